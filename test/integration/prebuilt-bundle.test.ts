/**
 * The prebuilt agent workflow bundle: a worker given no bundle starts from it when it is current (and
 * runs an agent from it on the dev server), and bundles at start, saying why once, when it is stale.
 * The bundle is the one the global setup builds for the test run with `buildAgentBundle` (as
 * `npm run build` does), named by `DURABLE_AGENT_WORKFLOW_BUNDLE`; stale copies are made by changing
 * what its manifest records.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { AgentClient } from '../../src/client';
import { FileBlobStore } from '../../src/integrations/store/blob-store';
import { createWorker } from '../../src/worker';
import type { BundleManifest } from '../../src/worker/prebuilt-bundle';
import { WORKFLOW_BUNDLE_ENV, agentWorkflowCode, manifestPath, staleReason } from '../../src/worker/prebuilt-bundle';
import { ScriptedAgents } from '../helpers/agents';
import { installTestRuntime, testId } from '../helpers/harness';

const S = new ScriptedAgents();
S.add('prebuilt_hello', [{ text: 'Hello from the prebuilt bundle.' }]);

const work = mkdtempSync(join(tmpdir(), 'durable-agent-prebuilt-'));
const bundle = inject('workflowBundlePath');
let native: NativeConnection;
let connection: Connection;
const previousEnv = process.env[WORKFLOW_BUNDLE_ENV];

/** A copy of the test run's bundle and manifest in a folder of its own, the manifest changed by `edit`. */
function staleCopy(name: string, edit: (manifest: BundleManifest) => void): string {
  const path = join(work, `${name}.js`);
  copyFileSync(bundle, path);
  const manifest = JSON.parse(readFileSync(manifestPath(bundle), 'utf8')) as BundleManifest;
  edit(manifest);
  writeFileSync(manifestPath(path), JSON.stringify(manifest));
  return path;
}

beforeAll(async () => {
  installTestRuntime();
  native = await NativeConnection.connect({ address: inject('temporalAddress') });
  connection = await Connection.connect({ address: inject('temporalAddress') });
});

afterEach(() => {
  if (previousEnv === undefined) delete process.env[WORKFLOW_BUNDLE_ENV];
  else process.env[WORKFLOW_BUNDLE_ENV] = previousEnv;
});

afterAll(async () => {
  await connection?.close();
  await native?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('the prebuilt agent workflow bundle', () => {
  it('is used when current: the worker says so and runs an agent from it', async () => {
    expect(staleReason(bundle)).toBeUndefined();
    process.env[WORKFLOW_BUNDLE_ENV] = bundle;
    const taskQueue = testId('prebuilt');
    const worker = await createWorker({
      agents: S.agents,
      providers: { scripted: S.provider },
      store: new FileBlobStore(join(work, 'store')),
      encryption: false,
      connection: native,
      taskQueue,
    });
    expect(worker.workflowCode).toEqual({ kind: 'prebuilt', path: bundle });
    const run = await worker.runUntil(async () => {
      const client = new AgentClient(new Client({ connection }), taskQueue);
      return (await client.start('prebuilt_hello', { input: 'hi' })).result();
    });
    expect(run.status).toBe('success');
    expect(run.finalText).toBe('Hello from the prebuilt bundle.');
  });

  it('is stale when a workflow file, a source, a package or the bundle changed, or the manifest is missing', () => {
    const manifest = JSON.parse(readFileSync(manifestPath(bundle), 'utf8')) as BundleManifest;
    const file = Object.keys(manifest.files).find((f) => f.endsWith('agent.ts') || f.endsWith('agent.js')) as string;
    expect(file).toBeDefined();
    expect(staleReason(staleCopy('file', (m) => (m.files[file] = '0'.repeat(64))))).toMatch(`${file} changed since it was built`);
    expect(staleReason(staleCopy('source', (m) => (m.sources[file] = '0'.repeat(64))))).toMatch(`${file} changed since it was built`);
    expect(staleReason(staleCopy('package', (m) => (m.packages['@temporalio/workflow'] = '0.0.1'))), 'a package').toMatch(
      /holds @temporalio\/workflow 0\.0\.1, 1\.\d+\.\d+ is installed/,
    );
    expect(staleReason(staleCopy('bundle', (m) => (m.bundle = '0'.repeat(64))))).toMatch('is not the one its manifest describes');
    const bare = join(work, 'bare.js');
    copyFileSync(bundle, bare);
    expect(staleReason(bare)).toMatch('manifest');
    expect(staleReason(join(work, 'absent.js'))).toMatch('no prebuilt workflow bundle');
  });

  it('is not used when tracing is on, or when turned off', () => {
    expect(agentWorkflowCode({ tracing: true, env: { [WORKFLOW_BUNDLE_ENV]: bundle } })).toEqual({
      kind: 'bundled',
      reason: expect.stringContaining('tracing is on'),
    });
    expect(agentWorkflowCode({ tracing: false, env: { [WORKFLOW_BUNDLE_ENV]: 'off' } })).toEqual({
      kind: 'bundled',
      reason: `${WORKFLOW_BUNDLE_ENV}=off`,
    });
    expect(agentWorkflowCode({ tracing: false, env: { [WORKFLOW_BUNDLE_ENV]: bundle } })).toEqual({ kind: 'prebuilt', path: bundle });
  });

  it('when stale, the worker bundles at start and says why', async () => {
    process.env[WORKFLOW_BUNDLE_ENV] = staleCopy('stale-worker', (m) => (m.packages['@temporalio/workflow'] = '0.0.1'));
    const worker = await createWorker({
      agents: S.agents,
      providers: { scripted: S.provider },
      store: new FileBlobStore(join(work, 'store')),
      encryption: false,
      connection: native,
      taskQueue: testId('stale'),
    });
    expect(worker.workflowCode).toEqual({ kind: 'bundled', reason: expect.stringContaining('holds @temporalio/workflow 0.0.1') });
    await worker.close();
  });
});
