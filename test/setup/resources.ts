/**
 * The resources tests share in one vitest run, each started at most once whichever projects ask for it
 * (shared-resource.ts): the Temporal CLI, one dev server and one workflow bundle.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevServer } from '../../apps/cli/dev-server/dev-server';
import { RULES_TEST_NAMESPACES } from './namespaces';
import type { FoundCli } from '../../apps/cli/dev-server/temporal-cli';
import { ensureTemporalCli } from '../../apps/cli/dev-server/temporal-cli';
import { buildAgentBundle } from '../../src/worker/build-bundle';
import type { Held } from './shared-resource';
import { acquire } from './shared-resource';

/** The Temporal CLI, found or installed into `.temporal/`; undefined when only the SDK's download is left. */
export function holdTemporalCli(): Promise<Held<FoundCli | undefined>> {
  return acquire('temporal-cli', async () => ({
    value: ensureTemporalCli((line) => console.error(line)),
    stop: async () => undefined,
  }));
}

/** The shared dev server's address, and the CLI's path ('' when the SDK's download runs it). */
export interface DevServer {
  address: string;
  cliPath: string;
}

/** One dev server (in memory) for the run. */
export async function holdDevServer(): Promise<Held<DevServer>> {
  const cli = await holdTemporalCli();
  try {
    const server = await acquire('dev-server', async () => {
      const env = await startDevServer({ ...(cli.value ? { cli: cli.value } : {}), extraNamespaces: Object.values(RULES_TEST_NAMESPACES) });
      return { value: env.address, stop: () => env.teardown() };
    });
    return {
      value: { address: server.value, cliPath: cli.value?.path ?? '' },
      release: async () => {
        await server.release();
        await cli.release();
      },
    };
  } catch (err) {
    await cli.release();
    throw err;
  }
}

/** One workflow bundle for the run, built as `npm run build` builds the prebuilt one (manifest beside it). */
export function holdWorkflowBundle(): Promise<Held<string>> {
  return acquire('workflow-bundle', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'durable-agent-test-'));
    const bundlePath = join(dir, 'workflow-bundle.js');
    try {
      await buildAgentBundle(bundlePath);
    } catch (err) {
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
    return { value: bundlePath, stop: async () => rmSync(dir, { recursive: true, force: true }) };
  });
}
