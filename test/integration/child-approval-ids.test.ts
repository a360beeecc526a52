/**
 * Approvals of a run's children listed and decided through the parent by unambiguous ids: call ids are
 * per run, so a child's `call_1_0` is listed on its parent as `<the parent's call that started it>/call_1_0`
 * and decided by that id — by update, signal, the CLI and the HTTP API — while `call_1_0` alone still
 * means the parent's own call.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { agentTool } from '../../src/agents/agent-tool';
import type { AgentRun } from '../../src/client';
import type { ToolResultBlock } from '../../src/core/messages/messages';
import { outputText } from '../../src/core/messages/messages';
import type { ChildPendingApproval } from '../../src/core/sub-agents/sub-agent';
import { createHttpApi } from '../../apps/http/app';
import { parseTokens } from '../../apps/http/auth';
import type { HttpApiServer } from '../../apps/http/server';
import { serveHttpApi } from '../../apps/http/server';
import { ScriptedAgents } from '../helpers/agents';
import { allEvents, resultWithin } from '../helpers/events';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { runCli, tempHome } from '../helpers/cli-run';
import { recordingDeploy } from '../helpers/tools';
import { launch } from '../fixtures/sub-agents';

const { deploy } = recordingDeploy();
const S = new ScriptedAgents();
const launcher = S.add('cq_launcher', [{ toolCalls: [{ name: 'launch', args: { rocket: 'r1' } }] }, { text: 'rocket launched' }], {
  tools: [launch],
});
// The parent's own call_1_0 asks (deploy); then two children run in parallel, each waiting on its own call_1_0.
S.add(
  'cq_parent',
  [
    { toolCalls: [{ name: 'deploy', args: { service: 'api' } }] },
    {
      toolCalls: [
        { name: 'cq_launcher', args: { input: 'launch a' } },
        { name: 'cq_launcher', args: { input: 'launch b' } },
      ],
    },
    { text: 'both launched' },
  ],
  { tools: [deploy, agentTool(launcher, { readOnly: true })] },
);

const TOKEN = `alice-${Math.random().toString(36).slice(2)}`;
let h: Harness;
let server: HttpApiServer;
beforeAll(async () => {
  h = await startHarness({ agents: S.agents.filter((a) => a.name === 'cq_parent'), providers: { scripted: S.provider } });
  const api = createHttpApi({
    client: h.client,
    auth: parseTokens(JSON.stringify({ tokens: { [TOKEN]: { identity: 'ops:http', approve: true } } }), 'test tokens'),
  });
  server = await serveHttpApi(api, { port: 0 });
});
afterAll(async () => {
  await server?.close();
  await h?.stop();
});

function toolResults(result: { messages: ReadonlyArray<{ role: string; content: ReadonlyArray<{ type: string }> }> }): ToolResultBlock[] {
  return result.messages.flatMap((m) => m.content.filter((b): b is ToolResultBlock => b.type === 'tool_result'));
}

/** The parent with its own call_1_0 approved and both children waiting: their approvals as the parent lists them. */
async function bothChildrenWaiting(run: AgentRun): Promise<ChildPendingApproval[]> {
  for (let i = 0; i < 200; i++) {
    const pending = await run.pendingApprovals();
    if (pending.some((p) => p.callId === 'call_1_0' && !('child' in p))) {
      await run.decide({ callId: 'call_1_0', decision: 'approve', by: 'ops:own' });
      continue;
    }
    if (pending.length === 2) return (pending as ChildPendingApproval[]).sort((a, b) => a.callId.localeCompare(b.callId));
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the children never waited');
}

async function decidedBy(childId: string): Promise<string | undefined> {
  for (let i = 0; i < 100; i++) {
    const e = (await allEvents(h.client.get(childId))).find((x) => x.type === 'approval_decided');
    if (e) return (e as { by: string }).by;
    await new Promise((r) => setTimeout(r, 50));
  }
  return undefined;
}

describe("children's approvals decided through the parent by qualified ids", () => {
  it('are listed as <call>/<child call> and decided by update and by signal, each in the right child', { timeout: 90_000 }, async () => {
    const run = await h.client.start('cq_parent', { input: 'go', workflowId: testId('cq') });
    const pending = await bothChildrenWaiting(run);
    expect(pending.map((p) => p.callId)).toEqual(['call_2_0/call_1_0', 'call_2_1/call_1_0']);
    expect(pending.map((p) => p.child.workflowId)).toEqual([`${run.workflowId}--call_2_0`, `${run.workflowId}--call_2_1`]);
    // The unqualified id is the parent's own call, already decided.
    await expect(run.decide({ callId: 'call_1_0', decision: 'approve', by: 'ops:x' })).rejects.toThrow('already decided');
    const receipt = await run.decide({ callId: 'call_2_1/call_1_0', decision: 'approve', by: 'ops:update' });
    expect(receipt).toMatchObject({ callId: 'call_2_1/call_1_0', tool: 'launch', decision: 'approve', by: 'ops:update' });
    expect(await decidedBy(`${run.workflowId}--call_2_1`)).toBe('ops:update');
    await run.signalDecision({ callId: 'call_2_0/call_1_0', decision: 'approve', by: 'ops:signal' });
    expect(await decidedBy(`${run.workflowId}--call_2_0`)).toBe('ops:signal');
    const result = await resultWithin(run);
    expect(result.status).toBe('success');
    expect(toolResults(result).map((b) => outputText(b.output))).toEqual(['deployed api', 'rocket launched', 'rocket launched']);
  });

  it('are decided by qualified id with the CLI and over HTTP', { timeout: 90_000 }, async () => {
    const run = await h.client.start('cq_parent', { input: 'go', workflowId: testId('cq-cli') });
    await bothChildrenWaiting(run);
    const cli = await runCli(['approve', run.workflowId, 'call_2_0/call_1_0', '--by', 'ops:cli', '--address', inject('temporalAddress')], {
      home: tempHome(),
    });
    expect(cli.code, cli.stderr).toBe(0);
    expect(await decidedBy(`${run.workflowId}--call_2_0`)).toBe('ops:cli');
    const res = await fetch(`${server.url}/runs/${run.workflowId}/approvals/${encodeURIComponent('call_2_1/call_1_0')}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ decision: 'approve' }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await decidedBy(`${run.workflowId}--call_2_1`)).toBe('ops:http');
    expect((await resultWithin(run)).status).toBe('success');
  });
});
