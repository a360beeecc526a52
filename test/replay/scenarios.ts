/**
 * The runs recorded into test/replay/histories/: one scenario per path of the agent workflow. Each
 * scenario has its own scripted agent with only the tools it needs, so histories stay small.
 */
import type { AgentRun } from '../../src/client';
import type { BudgetOptions, SessionOption } from '../../src/client';
import type { RunPolicy } from '../../src/core/approvals/approvals';
import type { RunStatus } from '../../src/core/run/result';
import { z } from 'zod';
import { waitTool } from '../../src/agents/wait';
import { mcpServer, mcpTools } from '../../src/integrations/mcp/server';
import { agentTool } from '../../src/agents/agent-tool';
import { consolidateTool } from '../../src/agents/consolidate-tool';
import { defineGuardrail } from '../../src/agents/guardrails';
import { ScriptedAgents } from '../helpers/agents';
import { big, boom, echo, fatalBoom, slowRead, slowWrite, typed, waitForever } from '../helpers/tools';
import { charge, deploy, payout, refund, wire } from './approval-tools';
import { waitForEvents, waitForPending } from './waits';
import { rulesChangedSignal } from '../../src/workflows/definitions';

/** One recorded run. */
export interface Scenario {
  /** File name stem of its history, and the agent's name. */
  name: string;
  input: string;
  maxSteps?: number;
  /** The status the run must end with for the recording to be kept. */
  status: RunStatus;
  /** Cancel the run once this tool is running. */
  cancelDuring?: string;
  /** The run-level approval policy to start the run with. */
  policy?: RunPolicy;
  /** Who may loosen approvals in `policy` (a policy that allows a tool needing approval is refused without it). */
  approvalWaiver?: { by: string };
  /** Run it as a session (waits for messages between answers). */
  session?: SessionOption;
  /** The run's budget. */
  budget?: BudgetOptions;
  /** Acts on the run while it executes (decides approvals); throws if the run is not where it should be. */
  during?: (run: AgentRun) => Promise<void>;
  /**
   * What the recorded history must contain for the scenario to cover its path: event types without the
   * `EVENT_TYPE_` prefix (e.g. `TIMER_FIRED`), or `patch:<id>` for a `patched()` marker.
   */
  covers?: readonly string[];
}

/** Agents and the scripted provider of every scenario. */
export const replayAgents = new ScriptedAgents();

replayAgents.add('plain', [{ text: 'Hello! How can I help?' }], { tools: [] });
replayAgents.add(
  'tool_cycle',
  [
    {
      text: 'Reading two keys, then writing two.',
      toolCalls: [
        { name: 'slow_read', args: { key: 'a', ms: 50 } },
        { name: 'slow_read', args: { key: 'b', ms: 10 } },
        { name: 'slow_write', args: { key: 'w1', ms: 10 } },
        { name: 'slow_write', args: { key: 'w2', ms: 10 } },
      ],
    },
    { toolCalls: [{ name: 'echo', args: { text: 'checked' } }] },
    { text: 'Read a and b, wrote w1 and w2.' },
  ],
  { tools: [slowRead, slowWrite, echo] },
);
replayAgents.add(
  'tool_errors',
  [
    {
      toolCalls: [
        { name: 'boom', args: {} },
        { name: 'teleport', args: { to: 'mars' } },
        { name: 'typed', args: { count: -2, colour: 'blue' } },
      ],
    },
    { toolCalls: [{ name: 'typed', args: { count: 2, colour: 'red' } }] },
    { text: 'Recovered from three kinds of tool error.' },
  ],
  { tools: [boom, typed] },
);
replayAgents.add(
  'model_retry',
  [{ text: 'Worked on the second try.', failures: [{ message: 'Overloaded', kind: 'overloaded', status: 529, type: 'overloaded_error' }] }],
  { tools: [] },
);
replayAgents.add('max_steps', () => ({ toolCalls: [{ name: 'echo', args: { text: 'again' } }] }), { tools: [echo], maxSteps: 3 });
replayAgents.add(
  'cancelled',
  [
    {
      toolCalls: [
        { name: 'echo', args: { text: 'quick' } },
        { name: 'wait_forever', args: {} },
        { name: 'echo', args: { text: 'after' } },
      ],
    },
    { text: 'never reached' },
  ],
  { tools: [echo, waitForever] },
);
replayAgents.add(
  'max_tokens',
  [
    {
      text: 'Let me write the file',
      stopReason: 'max_tokens',
      toolCalls: [
        { name: 'slow_write', args: { key: 'complete', ms: 1 } },
        { name: 'slow_write', args: { key: 'trunc' }, incomplete: true },
      ],
    },
  ],
  { tools: [slowWrite] },
);
replayAgents.add(
  'provider_error',
  [{ failures: [{ message: 'invalid x-api-key', kind: 'authentication', status: 401, type: 'authentication_error', retryable: false }] }],
  { tools: [] },
);

// Approvals. Every approval scenario runs with the worker's search attributes registered, so its history
// also holds the upserts of `DurableAgentAwaitingApproval` and friends.
const approvalTools = { tools: [deploy, refund, charge, wire, echo, fatalBoom] };
const oneDeploy = [{ toolCalls: [{ name: 'deploy', args: { service: 'api' } }] }, { text: 'finished' }];
replayAgents.add('approve_update', oneDeploy, approvalTools);
replayAgents.add('defer_delegate', oneDeploy, approvalTools);
replayAgents.add('escalate_expire', [{ toolCalls: [{ name: 'payout', args: { amount: 900 } }] }, { text: 'not paid' }], {
  tools: [payout],
});
replayAgents.add('deny_signal', oneDeploy, approvalTools);
replayAgents.add('skip_update', oneDeploy, approvalTools);
replayAgents.add(
  'sticky_tool',
  [
    {
      toolCalls: [
        { name: 'deploy', args: { service: 'a' } },
        { name: 'deploy', args: { service: 'b' } },
      ],
    },
    { toolCalls: [{ name: 'deploy', args: { service: 'c' } }] },
    { text: 'all deployed' },
  ],
  approvalTools,
);
// Issue 26: rules on arguments — a run policy entry, an agent-code rule, a person for the rest.
replayAgents.add(
  'rule_args',
  [
    {
      toolCalls: [
        { name: 'deploy', args: { service: 'z' } },
        { name: 'deploy', args: { service: 'a' } },
        { name: 'deploy', args: { service: 'b' } },
      ],
    },
    { text: 'z denied by policy, a allowed by the agent rule, b asked' },
  ],
  {
    ...approvalTools,
    approvalRules: [{ id: 'a-is-safe', tool: 'deploy', when: { path: 'service', op: 'eq', value: 'a' }, action: 'allow' }],
  },
);
// Issue 26: standing rules sent while calls wait decide them (patch `standing-rules`).
replayAgents.add(
  'rule_changed_waiting',
  [
    {
      toolCalls: [
        { name: 'deploy', args: { service: 'a' } },
        { name: 'deploy', args: { service: 'b' } },
      ],
    },
    { text: 'decided by rules' },
  ],
  approvalTools,
);
// Issue 26: run-scope rules made by decisions (recorded with patch `approval-audit-events`).
replayAgents.add(
  'run_rule_args',
  [
    { toolCalls: [{ name: 'deploy', args: { service: 'a' } }] },
    { toolCalls: [{ name: 'deploy', args: { service: 'a' } }] },
    { text: 'deployed twice, asked once' },
  ],
  approvalTools,
);
replayAgents.add(
  'always_reject',
  [
    {
      toolCalls: [
        { name: 'deploy', args: { service: 'a' } },
        { name: 'deploy', args: { service: 'b' } },
      ],
    },
    { toolCalls: [{ name: 'deploy', args: { service: 'c' } }] },
    { text: 'gave up' },
  ],
  approvalTools,
);
replayAgents.add(
  'reverse_order',
  [
    {
      toolCalls: [
        { name: 'deploy', args: { service: 'first' } },
        { name: 'deploy', args: { service: 'second' } },
      ],
    },
    { text: 'both decided' },
  ],
  approvalTools,
);
replayAgents.add(
  'conditional',
  [
    {
      toolCalls: [
        { name: 'refund', args: { amount: 50 } },
        { name: 'refund', args: { amount: 500 } },
      ],
    },
    { text: 'refunds handled' },
  ],
  approvalTools,
);
replayAgents.add(
  'expire_deny',
  [
    {
      toolCalls: [
        { name: 'charge', args: { amount: 900 } },
        { name: 'deploy', args: { service: 'api' } },
      ],
    },
    { text: 'not charged, deployed' },
  ],
  approvalTools,
);
replayAgents.add('expire_fail', [{ toolCalls: [{ name: 'wire', args: { amount: 900 } }] }, { text: 'never reached' }], approvalTools);
replayAgents.add(
  'policy_deny_allow',
  [
    {
      toolCalls: [
        { name: 'deploy', args: { service: 'api' } },
        { name: 'charge', args: { amount: 20 } },
        { name: 'refund', args: { amount: 500 } },
        { name: 'echo', args: { text: 'read' } },
      ],
    },
    { text: 'deploy denied by policy, charge allowed, refund still asked its approver' },
  ],
  approvalTools,
);
// Recorded after run policies were checked against the agent (patch `run-policy-checked`).
replayAgents.add(
  'policy_refused',
  [{ toolCalls: [{ name: 'deploy', args: { service: 'api' } }] }, { text: 'never reached' }],
  approvalTools,
);
replayAgents.add(
  'policy_checked',
  [
    {
      toolCalls: [
        { name: 'deploy', args: { service: 'api' } },
        { name: 'echo', args: { text: 'read' } },
      ],
    },
    { text: 'deploy denied by policy' },
  ],
  approvalTools,
);
replayAgents.add('refused_signal', [{ toolCalls: [{ name: 'refund', args: { amount: 500 } }] }, { text: 'refunded' }], approvalTools);
replayAgents.add(
  'fatal_stops_batches',
  [
    {
      toolCalls: [
        { name: 'fatal_boom', args: {} },
        { name: 'deploy', args: { service: 'api' } },
        { name: 'echo', args: { text: 'after' } },
      ],
    },
    { text: 'never reached' },
  ],
  approvalTools,
);

// Added with typed endings: a decision signalled before its call exists (queued, then applied), a
// Retry-After capped at the agent's maximum interval, and input no agent can run.
replayAgents.add(
  'early_decision',
  [{ delayMs: 1500, toolCalls: [{ name: 'deploy', args: { service: 'api' } }] }, { text: 'finished' }],
  approvalTools,
);
replayAgents.add(
  'retry_after_capped',
  [
    {
      text: 'Answered after a capped wait.',
      failures: [{ message: 'slow down', kind: 'rate_limit', status: 429, type: 'rate_limit_error', retryAfterMs: 3_600_000 }],
    },
  ],
  { tools: [], modelRetry: { maximumAttempts: 3, initialInterval: '50ms', maximumInterval: '200ms' } },
);
replayAgents.add('invalid_input', [{ text: 'never reached' }], { tools: [] });
// Added with sessions: messages by update and by signal between answers, a message during a tool step, end;
// and a session that ends on its idle timeout.
replayAgents.add(
  'session_chat',
  [
    { text: 'Hello! What next?' },
    { toolCalls: [{ name: 'slow_read', args: { key: 'k', ms: 800 } }] },
    { text: 'Read k, and saw your note.' },
    { text: 'Bye.' },
  ],
  { tools: [slowRead] },
);
replayAgents.add('session_idle', [{ text: 'Anyone there?' }], { tools: [] });
// Added with budgets: a token budget spent mid-loop, and a wall-clock budget that cancels a tool.
replayAgents.add('budget_tokens', () => ({ text: 'again', toolCalls: [{ name: 'echo', args: { text: 'x'.repeat(400) } }] }), {
  tools: [echo],
  maxSteps: 20,
});
// Added with the wait tool: a timer that fires, then one ended early by a message.
replayAgents.add(
  'wait_tool',
  [{ toolCalls: [{ name: 'wait', args: { seconds: 0.3 } }] }, { toolCalls: [{ name: 'wait', args: { seconds: 600 } }] }, { text: 'awake' }],
  { tools: [waitTool()] },
);
// Added with continue-as-new: a run that hands itself over twice (low threshold); the first and the
// continued executions are both recorded (record.ts saves the chain's executions one file each).
replayAgents.add(
  'continued',
  (request) => {
    const answered = request.messages.filter((m) => m.role === 'assistant').length;
    return answered < 10 ? { toolCalls: [{ name: 'echo', args: { text: `step ${answered + 1}` } }] } : { text: 'done' };
  },
  { tools: [echo], maxSteps: 20, continueAsNewAfterEvents: 50 },
);
// A run long enough for its loop state to be trimmed several times (patch 'bounded-loop-state'): a small
// result budget, 24 tool steps.
replayAgents.add(
  'bounded_state',
  (request) => {
    const answered = request.messages.filter((m) => m.role === 'assistant').length;
    return answered < 24 ? { toolCalls: [{ name: 'echo', args: { text: `step ${answered + 1} ${'x'.repeat(80)}` } }] } : { text: 'done' };
  },
  { tools: [echo], maxSteps: 30, resultMessagesInlineBytes: 1024 },
);
replayAgents.add(
  'budget_ask',
  (request) =>
    request.messages.filter((m) => m.role === 'assistant').length < 4
      ? { toolCalls: [{ name: 'echo', args: { text: 'x'.repeat(400) } }] }
      : { text: 'finished' },
  { tools: [echo], maxSteps: 20, budget: { maxTokens: 800 }, onBudgetExhausted: 'ask' },
);
replayAgents.add('budget_timeout', [{ toolCalls: [{ name: 'wait_forever', args: {} }] }, { text: 'never' }], { tools: [waitForever] });
// Added with compaction: summaries when the context passes its threshold (old results stubbed too), and
// one after a provider's "prompt is too long" with no window known.
const reading = (steps: number) => (_request: unknown, ctx: { step: number; purpose?: 'summary' }) =>
  ctx.purpose === 'summary'
    ? { text: `Read ${ctx.step - 1} pages so far.` }
    : ctx.step <= steps
      ? { toolCalls: [{ name: 'big', args: { kb: 2 } }] }
      : { text: 'all read' };
replayAgents.add('compaction', reading(12), {
  tools: [big],
  maxSteps: 20,
  context: { windowTokens: 3_000, keepRecentTokens: 800, keepToolResults: 3 },
});
replayAgents.add('compaction_overflow', reading(10), {
  tools: [big],
  maxSteps: 20,
  context: { keepRecentTokens: 800, keepToolResults: 0 },
});
// Sub-agents: the parent's model calls an agent tool; the child asks for approval, decided through the parent.
const subAgentChild = replayAgents.add(
  'sub_agent_child',
  [{ toolCalls: [{ name: 'deploy', args: { service: 'api' } }] }, { text: 'deployed api' }],
  { tools: [deploy] },
);
replayAgents.add(
  'sub_agent',
  [{ toolCalls: [{ name: 'sub_agent_child', args: { input: 'deploy api' } }] }, { text: 'the child deployed api' }],
  { tools: [agentTool(subAgentChild)] },
);
// Consolidate: two agents in parallel (one asks for approval, decided through the parent), joined by a function in an activity.
const consolidateOther = replayAgents.add('consolidate_other', [{ text: 'checked api' }], { tools: [] });
replayAgents.add(
  'consolidate',
  [{ toolCalls: [{ name: 'deploy_and_check', args: { input: 'deploy api' } }] }, { text: 'deployed and checked' }],
  {
    tools: [
      consolidateTool('deploy_and_check', {
        description: 'Deploy and check at once',
        agents: [subAgentChild, consolidateOther],
        aggregate: { fn: (children) => children.map((c) => (c.status === 'success' ? c.answer : c.status)).join(' + ') },
      }),
    ],
  },
);
replayAgents.provider.setWindow('compaction', 3_000).setWindow('compaction_overflow', 3_000);
// Added with MCP tools: tools of the reference MCP server (stdio, started by the recording worker) listed
// at run start and recorded, two calls (one read-only pair in parallel), and a call with invalid arguments.
replayAgents.add(
  'mcp_tools',
  [
    {
      toolCalls: [
        { name: 'everything__echo', args: { message: 'recorded' } },
        { name: 'everything__get-sum', args: { a: 20, b: 22 } },
      ],
    },
    { toolCalls: [{ name: 'everything__echo', args: { text: 'wrong field' } }] },
    { text: 'echoed and summed' },
  ],
  {
    tools: [],
    mcp: [
      mcpTools(
        mcpServer({
          name: 'everything',
          command: process.execPath,
          args: [require.resolve('@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
        }),
        {
          include: ['echo', 'get-sum'],
          defaults: { readOnly: true },
        },
      ),
    ],
  },
);
// Added with guardrails and tool hooks: an answer an output guardrail sends back (feedback), then a call
// whose arguments the agent's beforeToolCall hook rewrites, then an answer that passes.
replayAgents.add(
  'guardrail_hook',
  [{ text: 'The code is 1234.' }, { toolCalls: [{ name: 'echo', args: { text: 'raw' } }] }, { text: 'I cannot share the code.' }],
  {
    tools: [echo],
    guardrails: {
      input: [defineGuardrail({ name: 'input_ok', check: () => ({ pass: true }) })],
      output: [
        defineGuardrail({
          name: 'no_codes',
          check: ({ text }) => (/\d{4}/.test(text) ? { pass: false, reason: 'the answer reveals a code' } : { pass: true }),
        }),
      ],
    },
    hooks: { beforeToolCall: ({ tool }) => (tool === 'echo' ? { args: { text: 'rewritten' } } : undefined) },
  },
);
// Added with structured output: a final answer through the final_answer tool that fails the schema, is
// fed back with zod's errors, and is fixed.
replayAgents.add(
  'output_fixed',
  [
    { toolCalls: [{ name: 'final_answer', args: { city: 'Rome', temperature: 'hot' } }] },
    { toolCalls: [{ name: 'final_answer', args: { city: 'Rome', temperature: 31 } }] },
  ],
  { tools: [], output: z.object({ city: z.string(), temperature: z.number() }) },
);

/** Throw unless the run's events of `type` are `expected` (compared on the listed fields). */
async function expectEvents(
  run: AgentRun,
  type: 'approval_decided' | 'approval_refused',
  expected: readonly Record<string, unknown>[],
): Promise<void> {
  const found = await waitForEvents(run, type, expected.length);
  const picked = found.map((e, i) =>
    Object.fromEntries(Object.keys(expected[i] ?? {}).map((k) => [k, (e as unknown as Record<string, unknown>)[k]])),
  );
  if (JSON.stringify(picked) !== JSON.stringify(expected))
    throw new Error(`${run.workflowId}: ${type} events ${JSON.stringify(found)}, expected ${JSON.stringify(expected)}`);
}

// Streaming tool execution (patch `early-tool-starts`): a read-only call streamed before the text starts
// while the text streams (the model activity signals its workflow), and the tool step takes its outcome.
const earlyText = { chunks: 5, intervalMs: 5, callsFirst: true, textIntervalMs: 60 };
replayAgents.add(
  'early_start',
  [
    { text: 'Reading a while I explain.', toolCalls: [{ name: 'slow_read', args: { key: 'a', ms: 100 } }], stream: earlyText },
    { text: 'Read a early.' },
  ],
  { tools: [slowRead], earlyToolStarts: true },
);
// The attempt fails after the early start: the call is cancelled and discarded, the retry starts it again.
replayAgents.add(
  'early_failed',
  [
    {
      text: 'Reading f, then the stream breaks.',
      toolCalls: [{ name: 'slow_read', args: { key: 'f', ms: 10 } }],
      stream: earlyText,
      failures: [{ message: 'stream broke', kind: 'server', retryable: true, afterStreaming: true }],
    },
    { text: 'Read f on the retry.' },
  ],
  { tools: [slowRead], earlyToolStarts: true },
);
// The worker is lost mid-answer after the early start (its event loop blocked past the model's heartbeat
// timeout: the history a killed worker leaves), the early call is discarded, the retry starts it again.
replayAgents.add(
  'early_lost',
  async (_request, ctx) => {
    if (ctx.step > 1) return { text: 'Read k after the worker came back.' };
    const turn = { text: 'Reading k.', toolCalls: [{ name: 'slow_read', args: { key: 'k', ms: 2_000 } }], stream: earlyText };
    if (ctx.attempt > 1) return turn;
    ctx.onToolCall?.(0, { type: 'tool_use', id: 'call_1_0', name: 'slow_read', input: { key: 'k', ms: 2_000 } });
    await new Promise((r) => setTimeout(r, 500));
    for (const until = Date.now() + 2_500; Date.now() < until;);
    return turn;
  },
  { tools: [slowRead], earlyToolStarts: true, modelHeartbeatTimeout: '1s' },
);

const UPSERT = 'UPSERT_WORKFLOW_SEARCH_ATTRIBUTES';
const UPDATE = 'WORKFLOW_EXECUTION_UPDATE_ACCEPTED';
const SIGNAL = 'WORKFLOW_EXECUTION_SIGNALED';

/** Every scenario; the replay test requires a history for each. */
export const SCENARIOS: readonly Scenario[] = [
  { name: 'plain', input: 'hi', status: 'success' },
  { name: 'tool_cycle', input: 'read and write', status: 'success' },
  { name: 'tool_errors', input: 'use the tools', status: 'success' },
  { name: 'model_retry', input: 'hi', status: 'success' },
  { name: 'max_steps', input: 'loop', status: 'max_steps' },
  { name: 'cancelled', input: 'wait', status: 'cancelled', cancelDuring: 'wait_forever' },
  { name: 'max_tokens', input: 'write', status: 'max_tokens' },
  { name: 'provider_error', input: 'hi', status: 'provider_error' },
  {
    name: 'approve_update',
    input: 'deploy',
    status: 'success',
    covers: [UPSERT, UPDATE],
    during: async (run) => {
      await waitForPending(run, ['call_1_0']);
      await run.decide({ callId: 'call_1_0', decision: 'approve', by: 'ops:alice', reason: 'looks fine' });
    },
  },
  {
    name: 'deny_signal',
    input: 'deploy',
    status: 'success',
    covers: [UPSERT, SIGNAL],
    during: async (run) => {
      await waitForPending(run, ['call_1_0']);
      await run.signalDecision({ callId: 'call_1_0', decision: 'deny', by: 'ops:bob', reason: 'change freeze' });
    },
  },
  {
    name: 'skip_update',
    input: 'deploy',
    status: 'success',
    covers: [UPSERT, UPDATE],
    during: async (run) => {
      await waitForPending(run, ['call_1_0']);
      await run.decide({ callId: 'call_1_0', decision: 'skip', by: 'ops:carol' });
    },
  },
  {
    // Issue 26: a policy entry denies deploy z (named policy:deploy:0), the agent's rule allows a, b asks.
    name: 'rule_args',
    input: 'deploy z, a and b',
    status: 'success',
    policy: { deploy: [{ when: { path: 'service', op: 'eq', value: 'z' }, action: 'deny' }] },
    covers: [UPDATE, 'patch:approval-audit-events'],
    during: async (run) => {
      await waitForPending(run, ['call_1_2']);
      await run.decide({ callId: 'call_1_2', decision: 'approve', by: 'ops:alice', path: 'sdk' });
    },
  },
  {
    // Issue 26: rule set v1 denies the waiting deploy a (session rule), v2 allows b (agent rule); a stale v1 is ignored.
    name: 'rule_changed_waiting',
    input: 'deploy a and b',
    status: 'success',
    covers: [SIGNAL, 'patch:standing-rules'],
    during: async (run) => {
      await waitForPending(run, ['call_1_0', 'call_1_1']);
      const session = run.workflowId;
      const denyA = {
        id: 'r-1',
        version: 1,
        scope: 'session' as const,
        session,
        tool: 'deploy',
        when: { path: 'service', op: 'eq' as const, value: 'a' },
        action: 'deny' as const,
        createdBy: 'ops:alice',
      };
      await run.handle.signal(rulesChangedSignal, { version: 1, rules: [denyA] });
      await waitForPending(run, ['call_1_1']);
      await run.handle.signal(rulesChangedSignal, { version: 1, rules: [] });
      const allowB = {
        id: 'r-2',
        version: 2,
        scope: 'agent' as const,
        agent: 'rule_changed_waiting',
        tool: 'deploy',
        action: 'allow' as const,
        createdBy: 'ops:alice',
      };
      await run.handle.signal(rulesChangedSignal, { version: 2, rules: [denyA, allowB] });
    },
  },
  {
    // Issue 26: approve and stop asking for these arguments; step 2's same call runs by rule run-1.
    name: 'run_rule_args',
    input: 'deploy a twice',
    status: 'success',
    covers: [UPDATE, 'patch:approval-audit-events'],
    during: async (run) => {
      await waitForPending(run, ['call_1_0']);
      await run.decide({ callId: 'call_1_0', decision: 'approve', by: 'ops:alice', scope: 'run', match: 'args', path: 'sdk' });
    },
  },
  {
    // Issue 26: always reject: the other waiting call is denied at once, step 2's call by rule run-1.
    name: 'always_reject',
    input: 'deploy all',
    status: 'success',
    covers: [UPDATE, 'patch:approval-audit-events'],
    during: async (run) => {
      await waitForPending(run, ['call_1_0', 'call_1_1']);
      const receipt = await run.decide({ callId: 'call_1_0', decision: 'deny', by: 'ops:alice', scope: 'run', reason: 'frozen' });
      if (receipt.applied.join() !== 'call_1_0,call_1_1') throw new Error(`always_reject: applied ${receipt.applied.join()}`);
    },
  },
  {
    // Both calls of step 1 are pending; approving the first for the whole run settles the second and
    // lets step 2's call run without asking.
    name: 'sticky_tool',
    input: 'deploy all',
    status: 'success',
    covers: [UPSERT, UPDATE],
    during: async (run) => {
      await waitForPending(run, ['call_1_0', 'call_1_1']);
      const receipt = await run.decide({ callId: 'call_1_0', decision: 'approve', by: 'ops:alice', scope: 'tool' });
      if (receipt.applied.join() !== 'call_1_0,call_1_1') throw new Error(`sticky_tool: applied ${receipt.applied.join()}`);
    },
  },
  {
    name: 'reverse_order',
    input: 'deploy both',
    status: 'success',
    covers: [UPSERT, UPDATE, SIGNAL],
    during: async (run) => {
      await waitForPending(run, ['call_1_0', 'call_1_1']);
      await run.decide({ callId: 'call_1_1', decision: 'approve', by: 'ops:alice' });
      await waitForPending(run, ['call_1_0']);
      await run.signalDecision({ callId: 'call_1_0', decision: 'approve', by: 'ops:bob' });
    },
  },
  {
    // The predicate asks for 500, not for 50; only an allowed approver may decide.
    name: 'conditional',
    input: 'refunds',
    status: 'success',
    covers: [UPSERT, UPDATE],
    during: async (run) => {
      await waitForPending(run, ['call_1_1']);
      await run.decide({ callId: 'call_1_1', decision: 'approve', by: 'ops:alice' });
    },
  },
  {
    // The charge expires (denied) while the deploy still waits; a late signal for the charge is refused.
    name: 'expire_deny',
    input: 'charge and deploy',
    status: 'success',
    covers: [UPSERT, 'TIMER_FIRED', SIGNAL, UPDATE],
    during: async (run) => {
      await waitForPending(run, ['call_1_0', 'call_1_1']);
      await waitForEvents(run, 'approval_expired');
      await waitForPending(run, ['call_1_1']);
      await run.signalDecision({ callId: 'call_1_0', decision: 'approve', by: 'ops:late' });
      await expectEvents(run, 'approval_refused', [{ callId: 'call_1_0', reason: 'the approval of call "call_1_0" has expired' }]);
      await run.decide({ callId: 'call_1_1', decision: 'approve', by: 'ops:alice' });
    },
  },
  {
    name: 'expire_fail',
    input: 'wire',
    status: 'approval_expired',
    covers: [UPSERT, 'TIMER_FIRED', 'patch:stop-batches-after-fatal-outcome'],
  },
  // deploy is denied by name; refund (which would ask) is allowed by `*`, so its predicate is never run.
  {
    name: 'policy_deny_allow',
    input: 'go',
    status: 'success',
    // `*: allow` waives charge (no named approvers) but not refund, which names ops:alice.
    policy: { deploy: 'deny', '*': 'allow' },
    approvalWaiver: { by: 'ops:recorder' },
    covers: [UPSERT],
    during: async (run) => {
      await waitForPending(run, ['call_1_2']);
      await run.decide({ callId: 'call_1_2', decision: 'approve', by: 'ops:alice' });
    },
  },
  {
    name: 'refused_signal',
    input: 'refund',
    status: 'success',
    covers: [UPSERT, SIGNAL],
    during: async (run) => {
      await waitForPending(run, ['call_1_0']);
      await run.handle.signal('approval', { callId: 'call_1_0', decision: 'approve' });
      await run.signalDecision({ callId: 'call_1_0', decision: 'approve', by: 'ops:mallory' });
      await expectEvents(run, 'approval_refused', [
        { callId: 'call_1_0', reason: 'malformed decision: by must name who decided (e.g. "ops:alice")' },
        { callId: 'call_1_0', by: 'ops:mallory', reason: 'ops:mallory may not decide calls of "refund" (allowed: ops:alice)' },
      ]);
      await waitForPending(run, ['call_1_0']);
      await run.signalDecision({ callId: 'call_1_0', decision: 'approve', by: 'ops:alice' });
      await expectEvents(run, 'approval_decided', [{ callId: 'call_1_0', by: 'ops:alice', via: 'signal' }]);
    },
  },
  // fatal_boom fails the run; the deploy waiting for approval and the echo after it are not executed.
  { name: 'fatal_stops_batches', input: 'go', status: 'tool_error', covers: [UPSERT, 'patch:stop-batches-after-fatal-outcome'] },
  {
    // The approval is signalled while the model still answers step 1: kept, then applied when the call asks.
    name: 'early_decision',
    input: 'deploy',
    status: 'success',
    covers: [UPSERT, SIGNAL, 'patch:queue-early-decisions'],
    during: async (run) => {
      await waitForEvents(run, 'step_started');
      await run.signalDecision({ callId: 'call_1_0', decision: 'approve', by: 'ops:alice' });
      await waitForEvents(run, 'approval_queued');
      await expectEvents(run, 'approval_decided', [{ callId: 'call_1_0', by: 'ops:alice', via: 'signal' }]);
    },
  },
  { name: 'retry_after_capped', input: 'go', status: 'success', covers: ['TIMER_FIRED', 'patch:cap-retry-after'] },
  // An empty prompt: the run ends invalid_input without calling any activity.
  { name: 'invalid_input', input: '', status: 'invalid_input' },
  // `allow` on a tool that needs approval, without a waiver: the run ends invalid_input after describing the agent.
  {
    name: 'policy_refused',
    input: 'go',
    status: 'invalid_input',
    policy: { deploy: 'allow', delpoy: 'deny' },
    covers: ['patch:run-policy-checked'],
  },
  // A policy that only tightens passes the check: deploy is denied, echo runs.
  {
    name: 'policy_checked',
    input: 'go',
    status: 'success',
    policy: { deploy: 'deny', echo: 'allow' },
    covers: ['patch:run-policy-checked'],
  },
  {
    name: 'session_chat',
    input: 'hi',
    session: true,
    status: 'success',
    covers: [UPDATE, SIGNAL],
    during: async (run) => {
      await waitForEvents(run, 'awaiting_message');
      await run.send('read k');
      await waitForEvents(run, 'tool_call');
      await run.signalMessage({ text: 'note: k may be stale', by: 'user:1' });
      await waitForEvents(run, 'awaiting_message', 2);
      await run.send('thanks, bye');
      await waitForEvents(run, 'awaiting_message', 3);
      await run.end();
    },
  },
  { name: 'session_idle', input: 'hi', session: { idleTimeout: '300ms' }, status: 'success', covers: ['TIMER_FIRED'] },
  {
    name: 'wait_tool',
    input: 'wait',
    status: 'success',
    covers: ['TIMER_FIRED', UPDATE],
    during: async (run) => {
      await waitForEvents(run, 'tool_call', 2);
      await run.send('wake up');
    },
  },
  { name: 'continued', input: 'go', status: 'success' },
  { name: 'bounded_state', input: 'go', status: 'success' },
  {
    // The token budget runs out; a person extends it by update, and the run finishes.
    name: 'budget_ask',
    input: 'loop',
    status: 'success',
    covers: [UPDATE],
    during: async (run) => {
      const [request] = await waitForEvents(run, 'approval_requested');
      await run.decide({ callId: (request as { callId: string }).callId, decision: 'approve', by: 'ops:alice', extendBy: 100_000 });
    },
  },
  { name: 'budget_tokens', input: 'loop', budget: { maxTokens: 1_500 }, status: 'budget_exceeded' },
  {
    name: 'budget_timeout',
    input: 'wait',
    budget: { timeout: '1s' },
    status: 'timeout',
    covers: ['TIMER_FIRED', 'ACTIVITY_TASK_CANCEL_REQUESTED'],
  },
  { name: 'compaction', input: 'read', status: 'success', covers: ['patch:context-compaction'] },
  { name: 'compaction_overflow', input: 'read', status: 'success', covers: ['patch:context-compaction'] },
  // MCP tools.
  { name: 'mcp_tools', input: 'echo and sum', status: 'success' },
  // Sub-agents: the parent's history holds the child's start and completion (its result), and the
  // decision forwarded to the child (a signal to it); the child's own history is its own run.
  {
    name: 'sub_agent',
    input: 'deploy through the child',
    status: 'success',
    covers: [
      'START_CHILD_WORKFLOW_EXECUTION_INITIATED',
      'CHILD_WORKFLOW_EXECUTION_COMPLETED',
      'SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED',
      'WORKFLOW_EXECUTION_SIGNALED',
      UPDATE,
    ],
    during: async (run) => {
      // The child's call, listed on the parent; the decision is forwarded to the child.
      await waitForPending(run, ['call_1_0']);
      await run.decide({ callId: 'call_1_0', decision: 'approve', by: 'ops:alice' });
    },
  },
  // Consolidate: both children's starts and completions, the forwarded decision, the aggregate activity.
  {
    name: 'consolidate',
    input: 'deploy and check',
    status: 'success',
    covers: [
      'START_CHILD_WORKFLOW_EXECUTION_INITIATED',
      'CHILD_WORKFLOW_EXECUTION_COMPLETED',
      'SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED',
      'ACTIVITY_TASK_COMPLETED',
    ],
    during: async (run) => {
      await waitForPending(run, ['call_1_0-1/call_1_0']);
      await run.decide({ callId: 'call_1_0-1/call_1_0', decision: 'approve', by: 'ops:alice' });
    },
  },
  // Guardrails and tool hooks.
  { name: 'guardrail_hook', input: 'what is the code?', status: 'success' },
  // Structured output: an invalid final answer fed back, then a valid one.
  { name: 'output_fixed', input: 'Weather in Rome?', status: 'success' },
  // Streaming tool execution: an early start, a failed attempt's discarded call, a worker lost mid-answer.
  { name: 'early_start', input: 'read a', status: 'success', covers: ['patch:early-tool-starts', SIGNAL] },
  { name: 'early_failed', input: 'read f', status: 'success', covers: ['patch:early-tool-starts', SIGNAL] },
  { name: 'early_lost', input: 'read k', status: 'success', covers: ['patch:early-tool-starts', SIGNAL, 'ACTIVITY_TASK_TIMED_OUT'] },
  // Defer (update) and its return (timer), then a delegation (signal) and the delegate's decision.
  {
    name: 'defer_delegate',
    input: 'deploy',
    status: 'success',
    covers: [UPSERT, UPDATE, SIGNAL, 'TIMER_FIRED', 'patch:approval-defer'],
    during: async (run) => {
      await waitForPending(run, ['call_1_0']);
      await run.defer({ callId: 'call_1_0', until: new Date(Date.now() + 500), by: 'ops:alice', reason: 'later' });
      await waitForEvents(run, 'approval_returned');
      await run.signalDelegate({ callId: 'call_1_0', to: 'ops:bob', by: 'ops:alice' });
      await waitForEvents(run, 'approval_delegated');
      await run.decide({ callId: 'call_1_0', decision: 'approve', by: 'ops:bob' });
    },
  },
  // Escalation after its timer, then the expiry's final action.
  {
    name: 'escalate_expire',
    input: 'pay',
    status: 'success',
    covers: ['TIMER_FIRED', 'patch:approval-escalation'],
    during: async (run) => {
      await waitForEvents(run, 'approval_escalated');
      await waitForEvents(run, 'approval_expired');
    },
  },
];
