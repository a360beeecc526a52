/**
 * Tool calls on the real dev server: a tool that succeeded is never run again because its output could
 * not be recorded; idempotency keys are stable across retries and unique across runs; tools that name
 * approvers always ask them, whatever the run policy says.
 */
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/agents/define';
import type { AgentRun } from '../../src/client';
import { ApprovalRefusedError } from '../../src/client';
import type { PendingApproval } from '../../src/core/approvals/approvals';
import { outputText } from '../../src/core/messages/messages';
import { blobRef } from '../../src/integrations/store/blob-store';
import { ScriptedAgents } from '../helpers/agents';
import { toolResults, unrecordedOutputText } from '../helpers/events';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';

/** Executions of the tools below in this process (the worker runs here), by tool name. */
const runs = new Map<string, number>();
const ran = (tool: string) => runs.set(tool, (runs.get(tool) ?? 0) + 1);
const countOf = (tool: string) => runs.get(tool) ?? 0;

/** Retries quickly, so a wrongly retried tool shows within the test. */
const fastRetry = { maximumAttempts: 3, initialInterval: '50ms', maximumInterval: '100ms' } as const;

const bigintTool = defineTool({
  name: 'bigint_total',
  description: 'Returns a BigInt, which JSON cannot encode',
  input: z.object({}),
  retry: fastRetry,
  execute: () => {
    ran('bigint_total');
    return { total: 12345678901234567890n };
  },
});

const circularTool = defineTool({
  name: 'circular',
  description: 'Returns an object that contains itself',
  input: z.object({}),
  retry: fastRetry,
  execute: () => {
    ran('circular');
    const node: Record<string, unknown> = { name: 'loop' };
    node.self = node;
    return node;
  },
});

/** The store directory of the worker, set once the harness runs. */
let storeDir = '';
/** Files the unstorable tool put in the store's way (removed after its test, for the other runs). */
const blockers: string[] = [];
/**
 * Returns 40 KB (stored by reference) after making its own blob unwritable: a plain file sits where the
 * blob's shard directory would go, so the real FileBlobStore fails to store it.
 */
const unstorableTool = defineTool({
  name: 'unstorable',
  description: 'Returns output the blob store cannot store',
  input: z.object({}),
  retry: fastRetry,
  execute: () => {
    ran('unstorable');
    for (let nonce = 0; ; nonce++) {
      const text = `${'u'.repeat(40_000)}#${nonce}`;
      const shard = join(storeDir, blobRef(text).slice('sha256-'.length, 'sha256-'.length + 2));
      if (existsSync(shard)) continue; // a directory other blobs use: pick another text
      writeFileSync(shard, 'not a directory');
      blockers.push(shard);
      return text;
    }
  },
});

/** Idempotency keys seen by the tools, in order. */
const keys: Array<{ tool: string; workflowId: string; runId: string; callId: string; attempt: number; key: string }> = [];

const keyed = defineTool({
  name: 'keyed',
  description: 'Records its idempotency key',
  input: z.object({}),
  execute: (_args, ctx) => {
    keys.push({
      tool: 'keyed',
      workflowId: ctx.workflowId,
      runId: ctx.runId,
      callId: ctx.callId,
      attempt: ctx.attempt,
      key: ctx.idempotencyKey,
    });
    return 'ok';
  },
});

const flakyKeyed = defineTool({
  name: 'flaky_keyed',
  description: 'Records its idempotency key and fails its first attempt',
  input: z.object({}),
  retry: { maximumAttempts: 3, initialInterval: '10ms' },
  execute: (_args, ctx) => {
    keys.push({
      tool: 'flaky_keyed',
      workflowId: ctx.workflowId,
      runId: ctx.runId,
      callId: ctx.callId,
      attempt: ctx.attempt,
      key: ctx.idempotencyKey,
    });
    if (ctx.attempt === 1) throw new Error('first attempt fails');
    return 'ok on retry';
  },
});

/** Names approvers and says nothing of needsApproval: approval is implied. */
const guarded = defineTool({
  name: 'guarded',
  description: 'Only ops:alice may allow this',
  input: z.object({ target: z.string() }),
  approvers: ['ops:alice'],
  execute: ({ target }) => {
    ran('guarded');
    return `guarded ${target}`;
  },
});

const tools = [bigintTool, circularTool, unstorableTool, keyed, flakyKeyed, guarded];
const S = new ScriptedAgents();
const callOnce = (tool: string, args = {}) => [{ toolCalls: [{ name: tool, args }] }, { text: 'done' }];
S.add('bigint', callOnce('bigint_total'), { tools });
S.add('circular', callOnce('circular'), { tools });
S.add('unstorable', callOnce('unstorable'), { tools });
S.add('keys', callOnce('keyed'), { tools });
S.add('flaky_keys', callOnce('flaky_keyed'), { tools });
S.add('only_approvers', callOnce('guarded', { target: 'prod' }), { tools });

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
  storeDir = h.storeDir;
});
afterAll(async () => {
  await h?.stop();
});

const results = toolResults;

async function waitForPending(run: AgentRun): Promise<PendingApproval[]> {
  for (let i = 0; i < 200; i++) {
    const pending = await run.pendingApprovals();
    if (pending.length) return pending;
    if (i > 40 && (await run.handle.describe()).status.name !== 'RUNNING') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no pending approval for ${run.workflowId}`);
}

describe('a tool that succeeded is never run again for its output', () => {
  it.each([
    ['bigint', 'bigint_total', /BigInt/i],
    ['circular', 'circular', /circular/i],
  ])('%s: the model gets an error result, and the tool ran once', async (agent, tool, reason) => {
    const run = await h.client.start(agent, { input: 'go', workflowId: testId(agent) });
    const result = await run.result();
    unrecordedOutputText(result, reason);
    expect(countOf(tool)).toBe(1);
  });

  it('a blob store that fails to store the output is a storage error, and the tool ran once', async () => {
    const run = await h.client.start('unstorable', { input: 'go', workflowId: testId('unstorable') });
    const result = await run.result().finally(() => blockers.forEach((f) => rmSync(f, { force: true })));
    // The run either ends storage_error or reports the failure to the model: either way it says why.
    expect(JSON.stringify(result)).toContain('could not store the tool output');
    expect(countOf('unstorable')).toBe(1);
  });
});

describe('idempotency keys', () => {
  it('differ between two runs that reuse a workflow id, for the same call id', async () => {
    const workflowId = testId('reuse');
    const first = await h.client.start('keys', { input: 'go', workflowId });
    expect((await first.result()).status).toBe('success');
    const second = await h.client.start('keys', { input: 'go', workflowId });
    expect((await second.result()).status).toBe('success');
    const seen = keys.filter((k) => k.tool === 'keyed' && k.workflowId === workflowId);
    expect(seen.map((k) => k.callId)).toEqual(['call_1_0', 'call_1_0']);
    expect(seen[0]!.runId).not.toBe(seen[1]!.runId);
    expect(seen[0]!.key).not.toBe(seen[1]!.key);
    // Derived from the run's first execution id and the call id.
    expect(seen.map((k) => k.key)).toEqual(seen.map((k) => `${k.runId}/call_1_0`));
  });

  it('stay the same on a retry of the call', async () => {
    const run = await h.client.start('flaky_keys', { input: 'go', workflowId: testId('flaky') });
    const result = await run.result();
    expect(outputText(results(result)[0]!.output)).toBe('ok on retry');
    const seen = keys.filter((k) => k.tool === 'flaky_keyed' && k.workflowId === run.workflowId);
    expect(seen.map((k) => k.attempt)).toEqual([1, 2]);
    expect(seen[1]!.key).toBe(seen[0]!.key);
    expect(seen[0]!.key).toBe(`${seen[0]!.runId}/call_1_0`);
  });
});

describe('a tool that names approvers', () => {
  it('asks them even when the run policy allows every tool (with an approval waiver)', async () => {
    const run = await h.client.start('only_approvers', {
      input: 'go',
      workflowId: testId('appr-allow'),
      policy: { '*': 'allow' },
      approvalWaiver: { by: 'ops:root' },
    });
    const [pending] = await waitForPending(run);
    expect(pending).toMatchObject({ callId: 'call_1_0', tool: 'guarded', approvers: ['ops:alice'] });
    const before = countOf('guarded');
    await run.decide({ callId: 'call_1_0', decision: 'approve', by: 'ops:alice' });
    const result = await run.result();
    expect(outputText(results(result)[0]!.output)).toBe('guarded prod');
    expect(countOf('guarded')).toBe(before + 1);
  });

  it('under policy ask, refuses a decision by someone not among them', async () => {
    const run = await h.client.start('only_approvers', { input: 'go', workflowId: testId('appr-ask'), policy: { '*': 'ask' } });
    await waitForPending(run);
    const refused = await run.decide({ callId: 'call_1_0', decision: 'approve', by: 'ops:mallory' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApprovalRefusedError);
    expect((refused as Error).message).toBe('ops:mallory may not decide calls of "guarded" (allowed: ops:alice)');
    await run.decide({ callId: 'call_1_0', decision: 'deny', by: 'ops:alice', reason: 'not today' });
    const result = await run.result();
    expect(outputText(results(result)[0]!.output)).toBe('Denied by ops:alice: not today. The tool was not run.');
  });
});
