/**
 * Starts one real Temporal dev server and builds one workflow bundle for the whole test run (as
 * `npm run build` builds the prebuilt one: with its manifest beside it); test files get the address and
 * bundle path through `inject`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node' with { 'resolution-mode': 'import' };
import { startDevServer } from '../../server/dev-server';
import { ensureTemporalCli } from '../../server/temporal-cli';
import { buildAgentBundle } from '../../worker/build-bundle';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    workflowBundlePath: string;
    temporalCliPath: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cli = ensureTemporalCli((line) => console.error(line));
  const env = await startDevServer({ cli });
  const dir = mkdtempSync(join(tmpdir(), 'durable-agent-test-'));
  const bundlePath = join(dir, 'workflow-bundle.js');
  await buildAgentBundle(bundlePath);
  project.provide('temporalAddress', env.address);
  project.provide('workflowBundlePath', bundlePath);
  project.provide('temporalCliPath', cli?.path ?? '');
  return async () => {
    await env.teardown();
    rmSync(dir, { recursive: true, force: true });
  };
}
