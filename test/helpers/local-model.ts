/**
 * The tiny local model in tests: one throwaway llama.cpp server per test file (it costs ~570 MB and a
 * few seconds to start), on a free port, with the project's chat template; stopped after the file.
 * Installed by `npm run setup:llama` (`.ci/run` does it). Under CI (`CI=true`) a missing model fails the
 * tests; elsewhere they are skipped with a warning saying how to install it.
 */
import { afterAll, beforeAll } from 'vitest';
import { describeNeeding } from './component';
import type { LocalModelServer } from '../../apps/cli/dev-server/local-model';
import { findLocalModel, LLAMA_INSTALL_HINT, startLocalModelServer } from '../../apps/cli/dev-server/local-model';

/** Why the local model cannot be used, or undefined when it is installed. */
function missingReason(): string | undefined {
  try {
    return findLocalModel() ? undefined : `the local model is not installed: ${LLAMA_INSTALL_HINT}`;
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * `describe(name, fn)` with a local model server started once before the suite and stopped after it;
 * `fn` gets an accessor for the running server. Without the model: under CI a suite whose one test
 * fails saying what is missing; locally a skipped suite and a warning.
 */
export function describeWithLocalModel(name: string, fn: (server: () => LocalModelServer) => void): void {
  const missing = missingReason();
  describeNeeding(name, 'the local model', missing, () => {
    let server: LocalModelServer | undefined;
    if (!missing) {
      beforeAll(async () => {
        server = await startLocalModelServer();
      }, 90_000);
      afterAll(async () => {
        await server?.stop();
      });
    }
    fn(() => {
      if (!server) throw new Error('the local model server did not start (see the beforeAll error)');
      return server;
    });
  });
}
