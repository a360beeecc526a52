/**
 * Types all the way from an agent definition to its runs: `tsc --noEmit` checks this file (`npm test`
 * runs it), vitest runs it too (the assertions are static). Every `@ts-expect-error` is a line that
 * must not compile.
 */
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import type { AgentRun } from '../../src/client';
import type { AgentClient, AgentRunOf, StartOptions } from '../../src/client';
import type { ApprovalRefusedError, RunNotFoundError } from '../../src/client';
import { defineAgent, defineTool } from '../../src/agents/define';
import type { PendingApproval, RunPolicy } from '../../src/core/approvals/approvals';
import type { DurableAgentErrorCode } from '../../src/core/run/errors';
import type { DefinitionError, DurableAgentError } from '../../src/core/run/errors';
import type { AgentEvent, ToolCallEvent } from '../../src/core/events/events';
import type { BudgetRequest } from '../../src/core/tool-calls/tool-call';
import type { AgentRunResult, AnyToolCall, RunError, RunStatus } from '../../src/core/run/result';
import type { JsonValue } from '../../src/core/messages/json';

const refund = defineTool({
  name: 'refund',
  description: 'Refund an order',
  input: z.object({ orderId: z.string(), amount: z.number() }),
  execute: ({ amount }) => `refunded ${amount}`,
});
const lookup = defineTool({
  name: 'lookup',
  description: 'Look a key up',
  input: z.object({ key: z.string() }),
  readOnly: true,
  execute: ({ key }) => key,
});
const assistant = defineAgent({ name: 'assistant', model: { provider: 'scripted', model: 'x' }, tools: [refund, lookup] });
type Assistant = typeof assistant;
type RefundArgs = { orderId: string; amount: number };
type AssistantCalls = { tool: 'refund'; args: RefundArgs } | { tool: 'lookup'; args: { key: string } };

/** Never connected: every use of it sits in a function that is only type-checked, never called. */
declare const client: AgentClient;
/** Type-check `body` without running it (it would need a live client). */
const staticOnly = (body: () => void): void => void body;

describe('AgentClient.start and get carry the agent type', () => {
  it('start(agent) and start<typeof agent>(name) give the same typed run', () =>
    staticOnly(() => {
      expectTypeOf(client.start(assistant, { input: 'x' })).resolves.toEqualTypeOf<AgentRun<AssistantCalls>>();
      expectTypeOf(client.start<Assistant>('assistant', { input: 'x' })).resolves.toEqualTypeOf<AgentRun<AssistantCalls>>();
      expectTypeOf(client.get<Assistant>('wf-1')).toEqualTypeOf<AgentRunOf<Assistant>>();
      expectTypeOf<AgentRunOf<Assistant>>().toEqualTypeOf<AgentRun<AssistantCalls>>();
    }));

  it('an agent not known statically gives any tool name and JSON arguments', () =>
    staticOnly(() => {
      expectTypeOf(client.start('anything', { input: 'x' })).resolves.toEqualTypeOf<AgentRun<AnyToolCall>>();
      expectTypeOf(client.get('wf-1')).toEqualTypeOf<AgentRun<AnyToolCall>>();
    }));

  it('the name must be the agent’s when its type is given', () =>
    staticOnly(() => {
      // @ts-expect-error -- 'helper' is not the name of typeof assistant
      void client.start<Assistant>('helper', { input: 'x' });
    }));

  it('the policy is keyed by the agent’s tool names and `*`', () =>
    staticOnly(() => {
      expectTypeOf<StartOptions<Assistant>['policy']>().toEqualTypeOf<RunPolicy<'refund' | 'lookup'> | undefined>();
      void client.start(assistant, { input: 'x', policy: { refund: 'ask', '*': 'allow' } });
      // @ts-expect-error -- no tool `delete_account` in this agent
      void client.start(assistant, { input: 'x', policy: { delete_account: 'deny' } });
      // @ts-expect-error -- not a policy rule
      void client.start(assistant, { input: 'x', policy: { refund: 'maybe' } });
      // a run of an unknown agent takes any tool name
      void client.start('other', { input: 'x', policy: { delete_account: 'deny' } });
    }));

  it('input is required', () =>
    staticOnly(() => {
      // @ts-expect-error -- the user's request is missing
      void client.start(assistant, {});
    }));
});

describe('results, events and approvals narrow on the tool name', () => {
  type Run = AgentRun<AssistantCalls>;

  it('a report tool call narrowed on tool === "refund" has the refund arguments', () => {
    expectTypeOf<Awaited<ReturnType<Run['result']>>>().toEqualTypeOf<AgentRunResult<AssistantCalls>>();
    const check = (result: AgentRunResult<AssistantCalls>) => {
      for (const call of result.report.toolCalls) {
        if (call.tool === 'refund') expectTypeOf(call.args).toEqualTypeOf<RefundArgs>();
        else expectTypeOf(call.args).toEqualTypeOf<{ key: string }>();
      }
    };
    expectTypeOf(check).toBeFunction();
  });

  it('a tool_call event narrowed on tool === "refund" has the refund arguments', () => {
    expectTypeOf<ReturnType<Run['events']>>().toEqualTypeOf<AsyncGenerator<AgentEvent<AssistantCalls>>>();
    const check = (event: AgentEvent<AssistantCalls>) => {
      if (event.type === 'tool_call' && event.tool === 'refund') {
        expectTypeOf(event.args).toEqualTypeOf<RefundArgs>();
        expectTypeOf(event.callId).toBeString();
      }
      if (event.type === 'tool_result') expectTypeOf(event.tool).toEqualTypeOf<'refund' | 'lookup'>();
    };
    expectTypeOf(check).toBeFunction();
    expectTypeOf<Extract<ToolCallEvent<AssistantCalls>, { tool: 'lookup' }>['args']>().toEqualTypeOf<{ key: string }>();
  });

  it('readEvents pages and pending approvals are typed the same way', () => {
    expectTypeOf<Awaited<ReturnType<Run['readEvents']>>['events']>().toEqualTypeOf<Array<AgentEvent<AssistantCalls>>>();
    // A spent budget's request (tool `budget`) may wait too, whatever the agent's tools.
    expectTypeOf<Awaited<ReturnType<Run['pendingApprovals']>>>().toEqualTypeOf<Array<PendingApproval<AssistantCalls | BudgetRequest>>>();
    const check = (p: PendingApproval<AssistantCalls | BudgetRequest>) => {
      if (p.tool === 'refund') expectTypeOf(p.args.amount).toBeNumber();
      if (p.tool === 'budget') expectTypeOf(p.args.spent).toBeNumber();
    };
    const onEvent = (e: AgentEvent<AssistantCalls>) => {
      if (e.type === 'approval_requested' && e.tool === 'budget')
        expectTypeOf(e.args.budget).toEqualTypeOf<'maxTokens' | 'maxCostUsd' | 'maxTurns'>();
    };
    expectTypeOf(onEvent).toBeFunction();
    expectTypeOf(check).toBeFunction();
  });
});

describe('AgentRunResult narrows on status', () => {
  it('success has no error; every other ending has a RunError', () => {
    const check = (r: AgentRunResult) => {
      if (r.status === 'success') expectTypeOf(r.error).toEqualTypeOf<undefined>();
      else expectTypeOf(r.error).toEqualTypeOf<RunError>();
      if (r.status === 'provider_error' || r.status === 'cancelled' || r.status === 'max_steps')
        expectTypeOf(r.error).toEqualTypeOf<RunError>();
    };
    expectTypeOf(check).toBeFunction();
    expectTypeOf<AgentRunResult['status']>().toEqualTypeOf<RunStatus>();
  });
});

describe('errors keep their code', () => {
  it('DurableAgentError subclasses have code and their own fields', () => {
    expectTypeOf<ApprovalRefusedError>().toExtend<DurableAgentError>();
    expectTypeOf<RunNotFoundError>().toExtend<DurableAgentError>();
    expectTypeOf<DefinitionError>().toExtend<DurableAgentError>();
    expectTypeOf<ApprovalRefusedError['code']>().toEqualTypeOf<DurableAgentErrorCode>();
    expectTypeOf<RunNotFoundError['workflowId']>().toBeString();
    expectTypeOf<'approval_refused'>().toExtend<DurableAgentErrorCode>();
    expectTypeOf<'run_not_found'>().toExtend<DurableAgentErrorCode>();
  });
});

describe('a successful result’s output is typed by the agent’s output schema', () => {
  const triage = defineAgent({
    name: 'triage',
    model: { provider: 'scripted', model: 'x' },
    tools: [lookup],
    output: z.object({ severity: z.enum(['low', 'high']), tags: z.array(z.string()), note: z.string().optional() }),
  });
  type Triage = { severity: 'low' | 'high'; tags: string[]; note?: string | undefined };

  it('start(agent) gives result.output the schema’s type on success, and nothing on other endings', () =>
    staticOnly(() => {
      const check = (r: AgentRunResult<{ tool: 'lookup'; args: { key: string } }, Triage>) => {
        if (r.status === 'success') expectTypeOf(r.output).toEqualTypeOf<Triage>();
        else expectTypeOf(r.output).toEqualTypeOf<undefined>();
      };
      expectTypeOf(check).toBeFunction();
      expectTypeOf(client.start(triage, { input: 'x' })).resolves.toEqualTypeOf<
        AgentRun<{ tool: 'lookup'; args: { key: string } }, Triage>
      >();
      expectTypeOf(client.get<typeof triage>('wf-1')).toEqualTypeOf<AgentRun<{ tool: 'lookup'; args: { key: string } }, Triage>>();
      // A run typed by its output is still an AgentRun (e.g. for helpers that take any run).
      const _toolless = defineAgent({ name: 'toolless', model: { provider: 'scripted', model: 'x' }, output: z.object({ n: z.number() }) });
      expectTypeOf(client.get<typeof _toolless>('wf-2')).toExtend<AgentRun>();
      void (async () => {
        const result = await (await client.start(triage, { input: 'x' })).result();
        if (result.status === 'success') {
          expectTypeOf(result.output.severity).toEqualTypeOf<'low' | 'high'>();
          // @ts-expect-error -- not a field of the output schema
          void result.output.priority;
        }
      });
    }));

  it('an agent without an output schema, or one not known statically, has any JSON or nothing as output', () =>
    staticOnly(() => {
      expectTypeOf(client.start(assistant, { input: 'x' })).resolves.toEqualTypeOf<AgentRun<AssistantCalls, JsonValue | undefined>>();
      const check = (r: AgentRunResult) => {
        if (r.status === 'success') expectTypeOf(r.output).toEqualTypeOf<JsonValue | undefined>();
      };
      expectTypeOf(check).toBeFunction();
    }));

  it('output must be a zod object schema', () => {
    // @ts-expect-error -- a string schema is not an object schema
    const bad = () => defineAgent({ name: 'bad', model: { provider: 'scripted', model: 'x' }, output: z.string() });
    expectTypeOf(bad).toBeFunction();
  });
});
