/**
 * The agent loop's state transitions, as pure functions. The workflow drives them: it performs the
 * actions they return (call the model, run tools) and feeds the outcomes back. Nothing here does I/O,
 * reads the clock or touches Temporal, so every rule of the loop is unit-testable without a server.
 */
import { anchorAt } from '../context/context';
import type { AgentEventBody } from '../events/events';
import type { UserMessageInput } from '../messages/user-messages';
import { withUserText } from '../messages/user-messages';
import type { Message, ToolResultBlock, ToolUseBlock } from '../messages/messages';
import { messageText, toolCalls } from '../messages/messages';
import type { ToolOutcome } from '../tool-calls/outcomes';
import { errorOutcome, outputBytes, toolResultEvent, truncatedOutcome } from '../tool-calls/outcomes';
import type { StepPlan } from '../tool-calls/plan';
import { planStep } from '../tool-calls/plan';
import type { RunError, RunStatus, ToolCallReport } from '../run/result';
import type { AgentSpec } from '../run/spec';
import type { LoopState, ModelStep } from './state';
import { addUsage } from '../budget/usage';
import { withChildSpend } from '../sub-agents/sub-agent';
import { withComputedLayers, withMessageLayers, withToolLayers } from '../prompt/apply';

/** What the model is told after an answer cut off at its output limit, when the agent recovers from it. */
export const MAX_TOKENS_CONTINUE =
  'Your last answer was cut off at the output token limit (any tool call in it was not run). Continue exactly where you stopped; if you were calling a tool, call it again, whole.';

/** What the workflow must do next. */
export type NextAction =
  { type: 'call_model' } | { type: 'run_tools'; plan: StepPlan } | { type: 'finish'; status: RunStatus; error?: RunError };

/** The result of a transition: the new state, the events to log, and what to do next. */
export interface Transition {
  state: LoopState;
  events: AgentEventBody[];
  next: NextAction;
}

/** Apply a completed model call: record it, then decide whether to run tools or finish. */
export function applyModelStep(state: LoopState, spec: AgentSpec, out: ModelStep): Transition {
  const step = state.step + 1;
  // Calls cut off at the output limit are not here: the model activity dropped them before storing the answer.
  const message = out.message;
  const next: LoopState = {
    ...state,
    step,
    messages: [...state.messages, message],
    stored: state.messages.length + 1,
    head: out.head,
    usage: addUsage(state.usage, out.usage),
    ...(spec.context ? { context: anchorAt(state.context, out.usage, (state.earlier?.messages ?? 0) + state.messages.length + 1) } : {}),
    steps: [
      ...state.steps,
      {
        step,
        turn: state.turn,
        provider: out.provider,
        model: out.model,
        latencyMs: out.latencyMs,
        stopReason: out.stopReason,
        usage: out.usage,
        attempts: out.attempts,
        ...(out.workerLosses ? { workerLosses: out.workerLosses } : {}),
        ...(out.costUsd !== undefined ? { costUsd: out.costUsd } : {}),
      },
    ],
  };
  const layered = withComputedLayers(next, spec, out, step);
  const events: AgentEventBody[] = [];
  const text = messageText(message);
  if (text) events.push({ type: 'text', step, text });
  events.push({
    type: 'step_finished',
    step,
    stopReason: out.stopReason,
    usage: out.usage,
    latencyMs: out.latencyMs,
    ...(out.costUsd !== undefined ? { costUsd: out.costUsd } : {}),
  });

  const calls = toolCalls(message);
  for (const c of calls) {
    events.push({
      type: 'tool_call',
      step,
      callId: c.id,
      tool: c.name,
      args: c.input,
      ...(c.inputError !== undefined ? { inputError: c.inputError } : {}),
    });
  }

  if (out.stopReason === 'max_tokens') {
    // Complete calls of a truncated response are not run either: the model never finished its turn.
    const outcomes = calls.map((c) => truncatedOutcome(c.id, c.name));
    const closed = outcomes.length > 0 ? appendToolResults(layered, calls, outcomes) : layered;
    const resultEvents = [...events, ...outcomes.map((o) => toolResultEvent(step, o))];
    const recoveries = state.recoveries ?? 0;
    if (recoveries < (spec.limits.maxTokensRecoveries ?? 0) && closed.step < closed.maxSteps) {
      // Recovery: the model is asked to go on where it stopped (its cut-off call, if any, was dropped).
      const continued = { ...closed, recoveries: recoveries + 1, messages: withUserText(closed.messages, [MAX_TOKENS_CONTINUE]) };
      return { state: continued, events: resultEvents, next: { type: 'call_model' } };
    }
    return {
      state: closed,
      events: resultEvents,
      next: { type: 'finish', status: 'max_tokens', error: { message: 'The model hit its output token limit.', type: 'MaxTokens' } },
    };
  }
  if (calls.length === 0) return { state: layered, events, next: { type: 'finish', status: 'success' } };
  return { state: layered, events, next: { type: 'run_tools', plan: planStep(spec, step, message) } };
}

/**
 * Apply messages people sent (a session's next turn, or text that steers the turn in progress): they
 * join the conversation before the next model call, together as one new user turn, each logged as a
 * `user_message` event.
 */
export function applyUserMessages(
  state: LoopState,
  messages: ReadonlyArray<{ message: UserMessageInput; via: 'signal' | 'update' }>,
  spec: Pick<AgentSpec, 'layers'> = {},
): Transition {
  if (messages.length === 0) return { state, events: [], next: { type: 'call_model' } };
  const turn = state.turn + 1;
  const texts = messages.map((m) => m.message.text);
  // Only a message not yet stored may take more text (the tool results of the step in progress).
  const open = state.stored < state.messages.length;
  const next = open ? withUserText(state.messages, texts) : [...state.messages, ...withUserText([], texts)];
  return {
    state: withMessageLayers({ ...state, turn, messages: next }, spec, messages),
    events: messages.map(({ message: m, via }) => ({
      type: 'user_message',
      turn,
      text: m.text,
      via,
      ...(m.by ? { by: m.by } : {}),
      ...(m.id ? { id: m.id } : {}),
    })),
    next: { type: 'call_model' },
  };
}

/**
 * Apply the outcomes of a step's tool calls (in any order): append one user message with every
 * result in the order the model called them, then decide whether to call the model again.
 * Emits no `tool_result` events: those go out as each call completes.
 */
export function applyToolOutcomes(
  state: LoopState,
  plan: StepPlan,
  outcomes: readonly ToolOutcome[],
  spec: Pick<AgentSpec, 'layers'> = {},
): Transition {
  const next = withToolLayers(appendToolResults(state, plan.calls, outcomes), spec, plan.calls, outcomes);
  // The first call, in the model's order, whose outcome ends the run: independent of completion timing.
  const byId = new Map(outcomes.map((o) => [o.callId, o]));
  const ending = plan.calls.map((c) => byId.get(c.id)).find((o) => o?.endsRun);
  if (ending?.endsRun) {
    const status = ending.endsRun;
    const error: RunError =
      status === 'approval_expired'
        ? {
            message: `Nobody decided on the call to "${ending.tool}" (${ending.callId}) before its approval expired.`,
            type: 'ApprovalExpired',
          }
        : status === 'tool_error'
          ? { message: ending.error ?? `Tool "${ending.tool}" failed.`, type: 'ToolError' }
          : {
              message: ending.error ?? `The call to "${ending.tool}" failed.`,
              type: status === 'storage_error' ? 'StorageError' : 'InternalError',
            };
    return { state: next, events: [], next: { type: 'finish', status, error } };
  }
  if (next.step >= next.maxSteps) {
    return {
      state: next,
      events: [],
      next: { type: 'finish', status: 'max_steps', error: { message: `Reached the step limit (${next.maxSteps}).`, type: 'MaxSteps' } },
    };
  }
  return { state: next, events: [], next: { type: 'call_model' } };
}

/**
 * Close every call of the last assistant message that has no result yet (run cancelled or failed
 * mid-step), keeping the outcomes that did complete, so the transcript never holds a call without a
 * result. Returns events only for the calls closed here.
 */
export function closeOpenCalls(
  state: LoopState,
  completed: readonly ToolOutcome[],
  reason: string,
): { state: LoopState; events: AgentEventBody[] } {
  const last = state.messages[state.messages.length - 1];
  if (!last || last.role !== 'assistant') return { state, events: [] };
  const calls = toolCalls(last);
  if (calls.length === 0) return { state, events: [] };
  const done = new Set(completed.map((o) => o.callId));
  const closed = calls.filter((c) => !done.has(c.id)).map((c) => errorOutcome(c.id, c.name, reason));
  return {
    state: appendToolResults(state, calls, [...completed, ...closed]),
    events: closed.map((o) => toolResultEvent(state.step, o)),
  };
}

/** One user message with a result for every call, in call order, and the calls' report lines. */
function appendToolResults(state: LoopState, calls: readonly ToolUseBlock[], outcomes: readonly ToolOutcome[]): LoopState {
  const byId = new Map(outcomes.map((o) => [o.callId, o]));
  const blocks: ToolResultBlock[] = [];
  const reports: ToolCallReport[] = [];
  for (const call of calls) {
    const o = byId.get(call.id);
    if (!o) throw new Error(`no outcome for tool call ${call.id}`);
    blocks.push({
      type: 'tool_result',
      toolUseId: call.id,
      output: o.output,
      isError: o.isError,
      ...(o.ranArgs ? { ranArgs: o.ranArgs } : {}),
    });
    reports.push({
      step: state.step,
      callId: call.id,
      tool: call.name,
      args: o.ranArgs ?? call.input,
      ...(o.ranArgs ? { requestedArgs: call.input } : {}),
      latencyMs: o.latencyMs,
      resultBytes: outputBytes(o.output),
      stored: o.output.type === 'stored',
      isError: o.isError,
      ...(o.error !== undefined ? { error: o.error } : {}),
      attempts: o.attempts,
      ...(o.workerLosses ? { workerLosses: o.workerLosses } : {}),
      ...(o.outcomeUnknown ? { outcomeUnknown: true as const } : {}),
      ...(o.child ? { child: o.child } : {}),
      ...(o.metrics ? { metrics: o.metrics } : {}),
      ...(o.lastProgress ? { lastProgress: o.lastProgress } : {}),
      ...(o.children ? { children: o.children } : {}),
      ...(o.approval ? { approval: o.approval } : {}),
    });
  }
  const message: Message = { role: 'user', content: blocks };
  return withChildSpend({ ...state, messages: [...state.messages, message], toolCalls: [...state.toolCalls, ...reports] }, outcomes);
}
