/**
 * `createWorker` warns at start when a store only this machine reads (a directory) serves a Temporal
 * server on another host. The warning is decided from the connection settings before connecting, so the
 * "other host" is an address that never resolves (`.invalid`, RFC 2606): createWorker warns, then fails
 * to connect. The contrast, the same directory store against the local dev server: a worker that starts,
 * without the warning.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import type { MockInstance } from 'vitest';
import { createWorker } from '../../src/worker';
import { FileBlobStore } from '../../src/integrations/store/blob-store';
import { ScriptedAgents } from '../helpers/agents';
import { installTestRuntime, testId } from '../helpers/harness';

const S = new ScriptedAgents();
S.add('warned', [{ text: 'Hello.' }]);

const dir = mkdtempSync(join(tmpdir(), 'durable-agent-store-'));
let warn: MockInstance<typeof console.warn>;

beforeAll(() => installTestRuntime());
afterEach(() => warn?.mockRestore());
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What `console.warn` printed during `work`, passed through to the console as well. */
async function warningsDuring(work: () => Promise<unknown>): Promise<{ warnings: string[]; outcome: unknown }> {
  warn = vi.spyOn(console, 'warn');
  const outcome = await work().then(
    (value) => value,
    (err: unknown) => err,
  );
  return { warnings: warn.mock.calls.map((args) => args.map(String).join(' ')), outcome };
}

describe('createWorker: the one-machine store warning', () => {
  it(
    'a directory store against a Temporal server on another host: warns naming the directory, the address and DURABLE_AGENT_STORE',
    { timeout: 60_000 },
    async () => {
      const address = 'temporal.invalid:7233';
      const { warnings, outcome } = await warningsDuring(() =>
        createWorker({
          agents: S.agents,
          providers: { scripted: S.provider },
          store: new FileBlobStore(dir),
          address,
          connectTimeoutMs: 0, // one attempt: this test is about the warning, not the retries
          taskQueue: testId('warned'),
          workflowBundle: { codePath: inject('workflowBundlePath') },
        }),
      );
      expect(outcome, 'the address does not resolve: createWorker must fail to connect').toBeInstanceOf(Error);
      const warning = warnings.find((w) => w.includes('only this machine reads'));
      expect(warning, `warnings: ${JSON.stringify(warnings)}`).toBeDefined();
      expect(warning).toContain(dir);
      expect(warning).toContain(address);
      expect(warning).toContain('DURABLE_AGENT_STORE=postgres://');
    },
  );

  it('the same directory store against the local dev server: the worker starts, and no warning', async () => {
    const { warnings, outcome } = await warningsDuring(() =>
      createWorker({
        agents: S.agents,
        providers: { scripted: S.provider },
        store: new FileBlobStore(dir),
        address: inject('temporalAddress'),
        taskQueue: testId('unwarned'),
        workflowBundle: { codePath: inject('workflowBundlePath') },
      }),
    );
    expect(outcome).not.toBeInstanceOf(Error);
    await (outcome as Awaited<ReturnType<typeof createWorker>>).close();
    expect(warnings.filter((w) => w.includes('only this machine reads'))).toEqual([]);
  });
});
