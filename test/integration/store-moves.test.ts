/**
 * A run moving to a worker whose store is empty (another machine, a lost disk): with the one-machine
 * default it ends `storage_error` with a message naming the fix; with a store both workers share it goes
 * on. Workers run in this process, one after the other, on one task queue.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defineTool } from '../../agents/define';
import { z } from 'zod';
import { ScriptedAgents } from '../helpers/agents';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { resultWithin, waitForPending } from '../helpers/events';

const guarded = defineTool({
  name: 'guarded',
  description: 'Do something once a person approves',
  input: z.object({ what: z.string() }),
  needsApproval: true,
  execute: ({ what }) => `did ${what}`,
});

const S = new ScriptedAgents();
const agent = S.add('mover', [{ text: 'Asking first.', toolCalls: [{ name: 'guarded', args: { what: 'the thing' } }] }, { text: 'Done after approval.' }], { tools: [guarded] });

const harnesses: Harness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((h) => h.stop().catch(() => undefined)));
});

/** Start a run on a worker with store `first`, stop that worker while the run waits, go on with store `second`. */
async function moveMidRun(first: string, second: string) {
  const a = await startHarness({ agents: S.agents, providers: { scripted: S.provider }, storeDir: first });
  harnesses.push(a);
  const run = await a.client.start(agent, { input: 'do it', workflowId: testId('mover') });
  const [pending] = await waitForPending(run);
  await a.stop();
  harnesses.splice(harnesses.indexOf(a), 1);
  const b = await startHarness({ agents: S.agents, providers: { scripted: S.provider }, storeDir: second, taskQueue: a.taskQueue });
  harnesses.push(b);
  const moved = b.client.get(run.workflowId);
  await moved.decide({ callId: pending?.callId ?? '', decision: 'approve', by: 'ops:test' });
  return resultWithin(moved, 30_000);
}

const dir = () => mkdtempSync(join(tmpdir(), 'durable-agent-store-'));

describe('a run moving to a worker with an empty store', () => {
  it('one-machine stores: ends storage_error, naming the missing blob and DURABLE_AGENT_STORE as the fix', async () => {
    const result = await moveMidRun(dir(), dir());
    expect(result.status).toBe('storage_error');
    expect(result.status !== 'success' && result.error.message).toMatch(/blob sha256-[0-9a-f]{64} not found/);
    expect(result.status !== 'success' && result.error.message).toContain('DURABLE_AGENT_STORE=postgres://');
  });

  it('a store both workers read: the run goes on and succeeds', async () => {
    const shared = dir();
    const result = await moveMidRun(shared, shared);
    expect(result.status).toBe('success');
    expect(result.finalText).toBe('Done after approval.');
  });
});
