/**
 * The agent loop's state transitions, as pure functions. The workflow drives them: it performs the
 * actions they return (call the model, run tools) and feeds the outcomes back. Nothing here does I/O,
 * reads the clock or touches Temporal, so every rule of the loop is unit-testable without a server.
 */
import { invalidCallInput, isJsonObject } from './call-input';
import type { AgentEventBody } from './events';
import type { JsonObject } from './json';
import { jsonBytes, preview, utf8Bytes } from './json';
import type { AssistantMessage, Message, ToolOutput, ToolResultBlock, ToolUseBlock } from './messages';
import { messageText, outputText, toolCalls } from './messages';
import type { StopReason } from './model';
import type { AgentRunResult, RunError, RunStatus, StepReport, ToolCallReport } from './result';
import type { AgentSpec, ToolSpec } from './spec';
import type { Usage } from './usage';
import { addUsage, ZERO_USAGE } from './usage';

/** Loop state, rebuilt by replay from history: never persisted by hand. */
export interface LoopState {
  agent: string;
  maxSteps: number;
  messages: Message[];
  /** `messages[0..stored)` are already in the transcript store under `head`. */
  stored: number;
  head: string | null;
  /** Model calls completed. */
  step: number;
  usage: Usage;
  steps: StepReport[];
  toolCalls: ToolCallReport[];
}

/** One tool call the model asked for, matched against the agent's tools. */
export interface PlannedCall {
  step: number;
  callId: string;
  name: string;
  args: JsonObject;
  /** Undefined when the model named a tool the agent does not have. */
  tool: ToolSpec | undefined;
}

/** What one tool call produced. */
export interface ToolOutcome {
  callId: string;
  name: string;
  output: ToolOutput;
  isError: boolean;
  /** Failure message, for the report, when `isError`. */
  error?: string;
  latencyMs: number;
  attempts: number;
  /** The run must end after this call: the tool's error policy is `fail` and it failed, or its approval expired with outcome `fail`. */
  fatal: boolean;
  /** How the run ends when `fatal`; default `tool_error`. */
  failStatus?: RunStatus;
}

/** The output of a completed model step, as the model activity returns it. */
export interface ModelStep {
  head: string;
  message: AssistantMessage;
  stopReason: StopReason;
  usage: Usage;
  provider: string;
  model: string;
  latencyMs: number;
  attempts: number;
  /** Cost in USD, when the worker's price table knows the model. */
  costUsd?: number;
}

/** What the workflow must do next. */
export type NextAction =
  | { type: 'call_model' }
  | {
      type: 'run_tools';
      calls: PlannedCall[];
      /** Calls to execute, in batches run one after the other; calls in a batch run in parallel. */
      batches: PlannedCall[][];
      /** Outcomes known without running anything (unknown tools). */
      immediate: ToolOutcome[];
    }
  | { type: 'finish'; status: RunStatus; error?: RunError };

/** The result of a transition. */
export interface Transition {
  state: LoopState;
  events: AgentEventBody[];
  next: NextAction;
}

/** The first state of a run: the user's prompt, nothing stored yet. */
export function startLoop(spec: AgentSpec, prompt: string, maxSteps?: number): LoopState {
  return {
    agent: spec.name,
    maxSteps: Math.max(1, Math.min(maxSteps ?? spec.limits.maxSteps, spec.limits.maxSteps)),
    messages: [{ role: 'user', content: [{ type: 'text', text: prompt }] }],
    stored: 0,
    head: null,
    step: 0,
    usage: ZERO_USAGE,
    steps: [],
    toolCalls: [],
  };
}

/** What the model activity needs: the stored transcript's head and the messages not stored yet. */
export function modelInput(state: LoopState): { head: string | null; append: Message[] } {
  return { head: state.head, append: state.messages.slice(state.stored) };
}

/** Apply a completed model call: record it, then decide whether to run tools or finish. */
export function applyModelStep(state: LoopState, spec: AgentSpec, out: ModelStep): Transition {
  const step = state.step + 1;
  const truncated = out.stopReason === 'max_tokens';
  const message = dropIncompleteCalls(out.message);
  const next: LoopState = {
    ...state,
    step,
    messages: [...state.messages, message],
    stored: state.messages.length + 1,
    head: out.head,
    usage: addUsage(state.usage, out.usage),
    steps: [
      ...state.steps,
      {
        step,
        provider: out.provider,
        model: out.model,
        latencyMs: out.latencyMs,
        stopReason: out.stopReason,
        usage: out.usage,
        attempts: out.attempts,
        ...(out.costUsd !== undefined ? { costUsd: out.costUsd } : {}),
      },
    ],
  };
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
    events.push({ type: 'tool_call', step, callId: c.id, tool: c.name, args: c.input, ...(c.inputError !== undefined ? { inputError: c.inputError } : {}) });
  }

  if (truncated) {
    // Complete calls of a truncated response are not run either: the model never finished its turn.
    const outcomes = calls.map((c) =>
      errorOutcome(c.id, c.name, 'Not executed: the response was cut off at the output token limit.'),
    );
    return {
      state: outcomes.length > 0 ? appendToolResults(next, calls, outcomes, step) : next,
      events: [...events, ...outcomes.map((o) => toolResultEvent(step, o))],
      next: { type: 'finish', status: 'max_tokens', error: { message: 'The model hit its output token limit.' } },
    };
  }
  if (calls.length === 0) return { state: next, events, next: { type: 'finish', status: 'success' } };

  const planned = calls.map((c) => planCall(spec, step, c));
  // A call whose input is not a JSON object never runs: it is answered at once, quoting what was sent.
  const invalid = calls.map(invalidCallInput);
  const immediate = planned.flatMap((p, i) => {
    const why = invalid[i];
    if (why !== undefined) return [errorOutcome(p.callId, p.name, why)];
    return p.tool ? [] : [unknownToolOutcome(spec, p)];
  });
  const runnable = planned.filter((_, i) => invalid[i] === undefined);
  return {
    state: next,
    events,
    next: { type: 'run_tools', calls: planned, batches: batchCalls(runnable), immediate },
  };
}

/**
 * The message without tool calls whose arguments were cut off (max_tokens): such a call is never
 * executed, and neither the transcript store nor the workflow keeps it.
 */
export function dropIncompleteCalls(message: AssistantMessage): AssistantMessage {
  if (!message.content.some((b) => b.type === 'tool_use' && b.incomplete)) return message;
  return { role: 'assistant', content: message.content.filter((b) => !(b.type === 'tool_use' && b.incomplete)) };
}

/**
 * Match a tool call against the agent's tools. `args` is the model's input for a valid call; a call
 * whose input is not a JSON object ({@link invalidCallInput}) is never batched and gets `{}` here.
 */
export function planCall(spec: AgentSpec, step: number, call: ToolUseBlock): PlannedCall {
  return { step, callId: call.id, name: call.name, args: isJsonObject(call.input) ? call.input : {}, tool: spec.tools.find((t) => t.name === call.name) };
}

/**
 * Group calls into batches that run one after the other. Consecutive read-only calls share a batch
 * and run in parallel; every other call is a batch of its own, so writes keep the model's order and
 * a read after a write sees the write. Unknown tools are not executed at all.
 */
export function batchCalls(calls: readonly PlannedCall[]): PlannedCall[][] {
  const batches: PlannedCall[][] = [];
  let reads: PlannedCall[] = [];
  for (const call of calls) {
    if (!call.tool) continue;
    if (call.tool.readOnly) {
      reads.push(call);
      continue;
    }
    if (reads.length) batches.push(reads);
    reads = [];
    batches.push([call]);
  }
  if (reads.length) batches.push(reads);
  return batches;
}

/** The error result for a call to a tool the agent does not have. */
export function unknownToolOutcome(spec: AgentSpec, call: PlannedCall): ToolOutcome {
  const names = spec.tools.map((t) => t.name);
  const available = names.length ? `Available tools: ${names.join(', ')}.` : 'This agent has no tools.';
  return errorOutcome(call.callId, call.name, `Unknown tool "${call.name}". ${available}`);
}

/** An error outcome with a message the model can read. */
export function errorOutcome(callId: string, name: string, message: string, extra?: Partial<ToolOutcome>): ToolOutcome {
  return {
    callId,
    name,
    output: { type: 'text', text: message },
    isError: true,
    error: message,
    latencyMs: 0,
    attempts: 0,
    fatal: false,
    ...extra,
  };
}

/**
 * Apply the outcomes of a step's tool calls (in any order): append one user message with every
 * result in the order the model called them, then decide whether to call the model again.
 * Emits no `tool_result` events: those go out as each call completes ({@link toolResultEvent}).
 */
export function applyToolOutcomes(state: LoopState, calls: readonly PlannedCall[], outcomes: readonly ToolOutcome[]): Transition {
  const uses: ToolUseBlock[] = calls.map((c) => ({ type: 'tool_use', id: c.callId, name: c.name, input: c.args }));
  const next = appendToolResults(state, uses, outcomes, state.step);
  const events: AgentEventBody[] = [];
  const fatal = outcomes.find((o) => o.fatal);
  if (fatal) {
    const status = fatal.failStatus ?? 'tool_error';
    const error: RunError =
      status === 'approval_expired'
        ? { message: `Nobody decided on the call to "${fatal.name}" (${fatal.callId}) before its approval expired.`, type: 'ApprovalExpired' }
        : { message: fatal.error ?? `Tool "${fatal.name}" failed.`, type: 'ToolError' };
    return { state: next, events, next: { type: 'finish', status, error } };
  }
  if (next.step >= next.maxSteps) {
    return {
      state: next,
      events,
      next: { type: 'finish', status: 'max_steps', error: { message: `Reached the step limit (${next.maxSteps}).` } },
    };
  }
  return { state: next, events, next: { type: 'call_model' } };
}

/**
 * Close every call of the last assistant message that has no result yet (run cancelled mid-step),
 * keeping the outcomes that did complete, so the transcript never holds a call without a result.
 * Returns events only for the calls closed here.
 */
export function closeOpenCalls(state: LoopState, completed: readonly ToolOutcome[], reason: string): { state: LoopState; events: AgentEventBody[] } {
  const last = state.messages[state.messages.length - 1];
  if (!last || last.role !== 'assistant') return { state, events: [] };
  const calls = toolCalls(last);
  if (calls.length === 0) return { state, events: [] };
  const byId = new Map(completed.map((o) => [o.callId, o]));
  const closed = calls.filter((c) => !byId.has(c.id)).map((c) => errorOutcome(c.id, c.name, reason));
  return {
    state: appendToolResults(state, calls, [...completed, ...closed], state.step),
    events: closed.map((o) => toolResultEvent(state.step, o)),
  };
}

function appendToolResults(state: LoopState, calls: readonly ToolUseBlock[], outcomes: readonly ToolOutcome[], step: number): LoopState {
  const byId = new Map(outcomes.map((o) => [o.callId, o]));
  const blocks: ToolResultBlock[] = [];
  const reports: ToolCallReport[] = [];
  for (const call of calls) {
    const o = byId.get(call.id);
    if (!o) throw new Error(`no outcome for tool call ${call.id}`);
    blocks.push({ type: 'tool_result', toolUseId: call.id, output: o.output, isError: o.isError });
    reports.push({
      step,
      callId: call.id,
      tool: call.name,
      args: call.input,
      latencyMs: o.latencyMs,
      resultBytes: outputBytes(o.output),
      stored: o.output.type === 'stored',
      isError: o.isError,
      ...(o.error !== undefined ? { error: o.error } : {}),
      attempts: o.attempts,
    });
  }
  return {
    ...state,
    messages: [...state.messages, { role: 'user', content: blocks }],
    toolCalls: [...state.toolCalls, ...reports],
  };
}

function outputBytes(output: ToolOutput): number {
  return output.type === 'stored' ? output.bytes : utf8Bytes(output.text);
}

/** The `tool_result` event of an outcome; the workflow emits it as soon as the call completes. */
export function toolResultEvent(step: number, o: ToolOutcome): AgentEventBody {
  return {
    type: 'tool_result',
    step,
    callId: o.callId,
    tool: o.name,
    isError: o.isError,
    preview: preview(outputText(o.output)),
    bytes: outputBytes(o.output),
    stored: o.output.type === 'stored',
    latencyMs: o.latencyMs,
    attempts: o.attempts,
  };
}

/** Identity and timing of a run, known only to the workflow. */
export interface RunMeta {
  workflowId: string;
  runId: string;
  startedAt: string;
  endedAt: string;
}

/** The most recent messages whose JSON fits in `maxBytes` (at least the last one), and how many were left out. */
export function recentMessages(messages: readonly Message[], maxBytes: number): { messages: Message[]; omitted: number } {
  let bytes = 2;
  let start = messages.length;
  while (start > 0) {
    const size = jsonBytes(messages[start - 1]) + 1;
    if (bytes + size > maxBytes && start < messages.length) break;
    bytes += size;
    start--;
  }
  return { messages: messages.slice(start), omitted: start };
}

/**
 * The typed result of a finished run. Messages beyond `inlineBytes` (oldest first) are left out of the
 * result, which must stay well under Temporal's payload limit; the transcript store has them all.
 */
export function finishRun(state: LoopState, status: RunStatus, meta: RunMeta, error?: RunError, inlineBytes = Number.POSITIVE_INFINITY): AgentRunResult {
  const lastAssistant = [...state.messages].reverse().find((m) => m.role === 'assistant');
  const recent = recentMessages(state.messages, inlineBytes);
  const ending = status === 'success' ? { status } : { status, error: error ?? { message: status } };
  return {
    ...ending,
    finalText: lastAssistant ? messageText(lastAssistant) : '',
    messages: recent.messages,
    messagesOmitted: recent.omitted,
    steps: state.step,
    usage: state.usage,
    costUsd: runCost(state.steps).costUsd,
    report: {
      agent: state.agent,
      ...meta,
      steps: state.steps,
      toolCalls: state.toolCalls,
      usage: state.usage,
      ...runCost(state.steps),
    },
    transcriptHead: state.head,
  } as AgentRunResult;
}

/** The run's cost: the sum over priced steps, and how many steps the price table did not know. */
export function runCost(steps: readonly StepReport[]): { costUsd: number; unpricedSteps: number } {
  let cost = 0;
  let unpriced = 0;
  for (const s of steps) {
    if (s.costUsd === undefined) unpriced++;
    else cost += s.costUsd;
  }
  return { costUsd: Math.round(cost * 1e8) / 1e8, unpricedSteps: unpriced };
}

/** The `done` event of a finished run. */
export function doneEvent(result: AgentRunResult): AgentEventBody {
  return {
    type: 'done',
    status: result.status,
    steps: result.steps,
    usage: result.usage,
    costUsd: result.costUsd,
    finalText: result.finalText,
    ...(result.error ? { error: result.error } : {}),
  };
}
