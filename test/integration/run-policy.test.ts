/**
 * Run policies may only tighten approvals, and every key must name a tool: checked by the workflow
 * (whatever client started it: typed client, agent name, send-or-start, schedule, raw workflow input)
 * and early by the typed client, on the real dev server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/agents/define';
import { agentTool } from '../../src/agents/agent-tool';
import { chain } from '../../src/agents/chain';
import { mcpServer } from '../../src/integrations/mcp/server';
import type { AgentRunResult } from '../../src/core/run/result';
import type { AgentWorkflowInput } from '../../src/core/run/contract';
import { PolicyError } from '../../src/core/approvals/run-policy';
import { ScriptedAgents } from '../helpers/agents';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';

const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const everything = mcpServer({ name: 'everything', command: process.execPath, args: [EVERYTHING, 'stdio'] });

/** Executions of the tools below, as `<tool>:<workflowId>`. */
const ran: string[] = [];
const recording = (name: string, config: { needsApproval?: boolean; approvers?: string[] } = {}) =>
  defineTool({
    name,
    description: `The ${name} tool`,
    input: z.object({}),
    ...config,
    execute: (_args, ctx) => {
      ran.push(`${name}:${ctx.workflowId}`);
      return `${name} done`;
    },
  });
const clear = recording('clear', { needsApproval: true });
const purge = recording('purge');
const lookup = recording('lookup');
const wipe = recording('wipe', { needsApproval: true });

const S = new ScriptedAgents();
const purger0 = S.add('rp_purger2', [{ toolCalls: [{ name: 'purge', args: {} }] }, { text: 'purged' }], { tools: [purge] });
const clearer = S.add('clearer', [{ toolCalls: [{ name: 'clear', args: {} }] }, { text: 'cleared' }], { tools: [clear, purge, lookup] });
S.add('purger', [{ toolCalls: [{ name: 'purge', args: {} }] }, { text: 'purged' }], { tools: [clear, purge, lookup] });
const helper = S.add('rp_helper', [{ toolCalls: [{ name: 'wipe', args: {} }] }, { text: 'wiped' }], { tools: [wipe], mcp: [everything] });
S.add('rp_boss', [{ toolCalls: [{ name: 'rp_helper', args: { input: 'wipe it' } }] }, { text: 'boss done' }], {
  tools: [agentTool(helper), lookup],
});
S.add('rp_mcp', [{ text: 'nothing to do' }], { tools: [], mcp: [everything] });

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
});
afterAll(async () => h?.stop());

const ranIn = (workflowId: string) => ran.filter((r) => r.endsWith(`:${workflowId}`) || r.includes(`:${workflowId}--`));
const within = <T>(p: Promise<T>, ms = 30_000): Promise<T> =>
  Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no result within ${ms} ms`)), ms))]);

/** The run refused its policy before any tool ran. */
function expectRefused(result: AgentRunResult, ...patterns: RegExp[]): void {
  expect(result.status).toBe('invalid_input');
  for (const p of patterns) expect(result.error?.message).toMatch(p);
  expect(result.report.toolCalls).toEqual([]);
}

const LOOSENS = /"clear": "allow".*only tighten approvals/;

describe('a run policy started by agent name is checked by the workflow', () => {
  it('allow on a tool that needs approval, without a waiver: refused, nothing ran', async () => {
    const workflowId = testId('rp-clear-allow');
    const run = await h.client.start('clearer', { input: 'go', workflowId, policy: { clear: 'allow' } });
    expectRefused(await within(run.result()), LOOSENS);
    expect(ranIn(workflowId)).toEqual([]);
  });

  it('allow with an approval waiver: the call runs unasked', async () => {
    const workflowId = testId('rp-clear-waived');
    const run = await h.client.start('clearer', {
      input: 'go',
      workflowId,
      policy: { clear: 'allow' },
      approvalWaiver: { by: 'ops:root' },
    });
    const result = await within(run.result());
    expect(result.status).toBe('success');
    expect(ranIn(workflowId)).toEqual([`clear:${workflowId}`]);
  });

  it('a typo of a tool name is refused with the near match; purge never runs', async () => {
    const workflowId = testId('rp-purg');
    const run = await h.client.start('purger', { input: 'go', workflowId, policy: { purg: 'deny' } });
    expectRefused(await within(run.result()), /policy key "purg" names no tool of the agent \(did you mean purge\?\)/);
    expect(ranIn(workflowId)).toEqual([]);
  });

  it('a key that differs only by case is unknown ("*": "allow" loosening clear is refused too)', async () => {
    const workflowId = testId('rp-PURGE');
    const run = await h.client.start('purger', { input: 'go', workflowId, policy: { '*': 'allow', PURGE: 'deny' } });
    expectRefused(
      await within(run.result()),
      /policy key "PURGE" names no tool of the agent \(did you mean purge\?\)/,
      /"\*": "allow" covers "clear"/,
    );
    expect(ranIn(workflowId)).toEqual([]);
    // With a waiver, only the unknown key is wrong.
    const waived = await h.client.start('purger', {
      input: 'go',
      workflowId: testId('rp-PURGE-waived'),
      policy: { '*': 'allow', PURGE: 'deny' },
      approvalWaiver: { by: 'ops:root' },
    });
    const result = await within(waived.result());
    expectRefused(result, /did you mean purge\?/);
    expect(result.error?.message).not.toMatch(/covers/);
  });

  it('tightening needs no waiver: ask → deny on clear, allow → ask on lookup, "*": "ask"', async () => {
    const denied = await h.client.start('clearer', {
      input: 'go',
      workflowId: testId('rp-tighten'),
      policy: { clear: 'deny', lookup: 'ask', purge: 'deny' },
    });
    const result = await within(denied.result());
    expect(result.status).toBe('success');
    expect(result.report.toolCalls.map((c) => [c.tool, c.attempts])).toEqual([['clear', 0]]);
    const asked = await h.client.start('purger', { input: 'go', workflowId: testId('rp-star-ask'), policy: { '*': 'ask' } });
    await expect.poll(() => asked.pendingApprovals().then((p) => p.map((x) => x.tool)), { timeout: 20_000 }).toEqual(['purge']);
    await asked.cancel();
  });

  it('raw workflow input (as the temporal CLI sends it) is checked the same way', async () => {
    const input: AgentWorkflowInput = { agent: 'purger', prompt: 'go', policy: { purg: 'deny' } };
    const workflowId = testId('rp-raw');
    const handle = await h.temporal.workflow.start('agentWorkflow', { taskQueue: h.taskQueue, workflowId, args: [input] });
    expectRefused((await within(handle.result())) as AgentRunResult, /did you mean purge\?/);
    const loosened = await h.temporal.workflow.start('agentWorkflow', {
      taskQueue: h.taskQueue,
      workflowId: testId('rp-raw-allow'),
      args: [{ agent: 'clearer', prompt: 'go', policy: { clear: 'allow' } }],
    });
    expectRefused((await within(loosened.result())) as AgentRunResult, LOOSENS);
    const badWaiver = await h.temporal.workflow.start('agentWorkflow', {
      taskQueue: h.taskQueue,
      workflowId: testId('rp-raw-waiver'),
      args: [{ agent: 'clearer', prompt: 'go', policy: { clear: 'allow' }, approvalWaiver: { by: ' ' } }],
    });
    expectRefused((await within(badWaiver.result())) as AgentRunResult, /approvalWaiver\.by must name who may approve/);
  });

  it('client.send (send-or-start) by agent name: the session is refused', async () => {
    const workflowId = testId('rp-send');
    const run = await h.client.send(workflowId, 'go', { agent: 'clearer', policy: { clear: 'allow' } });
    expectRefused(await within(run.result()), LOOSENS);
    expect(ranIn(workflowId)).toEqual([]);
  });

  it('a schedule’s runs are checked too', async () => {
    const s = await h.client.schedule('purger', {
      scheduleId: testId('rp-schedule'),
      interval: '1h',
      paused: true,
      input: 'go',
      policy: { purg: 'deny' },
    });
    try {
      await s.trigger();
      await expect.poll(async () => (await s.describe()).recentRuns.length, { timeout: 15_000 }).toBe(1);
      const workflowId = (await s.describe()).recentRuns[0]!.workflowId;
      expectRefused(await within(h.client.get(workflowId).result()), /did you mean purge\?/);
      expect(ranIn(workflowId)).toEqual([]);
    } finally {
      await s.delete();
    }
  });
});

describe('names of MCP tools and of sub-agents’ tools', () => {
  it('a sub-agent’s tool may be named; loosening it without a waiver is refused before the child starts', async () => {
    const denied = await h.client.start('rp_boss', {
      input: 'go',
      workflowId: testId('rp-boss-deny'),
      policy: { wipe: 'deny', 'everything__get-sum': 'deny' },
    });
    const result = await within(denied.result());
    expect(result.status).toBe('success');
    expect(ranIn(denied.workflowId)).toEqual([]);

    const loosened = await h.client.start('rp_boss', { input: 'go', workflowId: testId('rp-boss-allow'), policy: { wipe: 'allow' } });
    expectRefused(await within(loosened.result()), /"wipe": "allow"/);
    expect(ranIn(loosened.workflowId)).toEqual([]);

    // The waiver goes to the child with the policy: wipe runs there unasked.
    const waived = await h.client.start('rp_boss', {
      input: 'go',
      workflowId: testId('rp-boss-waived'),
      policy: { wipe: 'allow' },
      approvalWaiver: { by: 'ops:root' },
    });
    expect((await within(waived.result())).status).toBe('success');
    expect(ranIn(waived.workflowId)).toHaveLength(1);
  });

  it('an MCP tool is named server__tool; a typo of one is refused with the near match', async () => {
    const ok = await h.client.start('rp_mcp', { input: 'go', workflowId: testId('rp-mcp-ok'), policy: { everything__echo: 'deny' } });
    expect((await within(ok.result())).status).toBe('success');
    const typo = await h.client.start('rp_mcp', { input: 'go', workflowId: testId('rp-mcp-typo'), policy: { everything__ecoh: 'deny' } });
    expectRefused(await within(typo.result()), /did you mean everything__echo/);
    const sub = await h.client.start('rp_boss', {
      input: 'go',
      workflowId: testId('rp-boss-typo'),
      policy: { 'everything__get-summ': 'deny' },
    });
    expectRefused(await within(sub.result()), /did you mean everything__get-sum/);
  });
});

describe('the typed client checks early', () => {
  it('start, send and schedule with the agent definition throw PolicyError naming the key and near matches', async () => {
    const typo = h.client.start(clearer, { input: 'go', workflowId: testId('rp-typed-purg'), policy: { purg: 'deny' } as never });
    await expect(typo).rejects.toBeInstanceOf(PolicyError);
    await expect(typo).rejects.toMatchObject({ code: 'invalid_input', key: 'purg', nearMatches: ['purge'] });
    await expect(h.client.start(clearer, { input: 'go', policy: { clear: 'allow' } })).rejects.toMatchObject({
      key: 'clear',
      problems: [{ kind: 'loosens_approval', tool: 'clear' }],
    });
    await expect(h.client.send(testId('rp-typed-send'), 'go', { agent: clearer, policy: { '*': 'allow' } })).rejects.toMatchObject({
      key: '*',
      problems: [{ tool: 'clear' }],
    });
    await expect(
      h.client.schedule(clearer, { interval: '1h', paused: true, input: 'go', policy: { PURGE: 'deny' } as never }),
    ).rejects.toMatchObject({ key: 'PURGE', nearMatches: ['purge'] });
    // Accepted: tightening, and loosening with a waiver.
    const run = await h.client.start(clearer, {
      input: 'go',
      workflowId: testId('rp-typed-ok'),
      policy: { clear: 'allow', lookup: 'deny' },
      approvalWaiver: { by: 'ops:root' },
    });
    expect((await within(run.result())).status).toBe('success');
  });

  it('startChain checks the policy against every agent of the chain; the waiver reaches each run', async () => {
    await expect(h.client.startChain(chain(clearer, purger0), { input: 'go', policy: { clear: 'allow' } })).rejects.toMatchObject({
      key: 'clear',
      problems: [{ kind: 'loosens_approval' }],
    });
    await expect(h.client.startChain(chain(clearer, purger0), { input: 'go', policy: { purg: 'deny' } })).rejects.toMatchObject({
      key: 'purg',
      nearMatches: ['purge'],
    });
    const run = await h.client.startChain(chain(clearer, purger0), {
      input: 'go',
      workflowId: testId('rp-chain'),
      policy: { clear: 'allow' },
      approvalWaiver: { by: 'ops:root' },
    });
    expect((await within(run.result())).status).toBe('success');
    expect(ranIn(run.workflowId).map((r) => r.split(':')[0])).toEqual(['clear', 'purge']);
    // Started without the client's check, the chain's first run refuses the loosening itself.
    const raw = await h.temporal.workflow.start('chainWorkflow', {
      taskQueue: h.taskQueue,
      workflowId: testId('rp-chain-raw'),
      args: [{ agents: ['clearer', 'rp_purger2'], prompt: 'go', policy: { clear: 'allow' } }],
    });
    expect(((await within(raw.result())) as AgentRunResult).status).toBe('invalid_input');
    expect(ranIn(raw.workflowId)).toEqual([]);
  });
});
