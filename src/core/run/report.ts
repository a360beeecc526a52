/** The end of a run: its typed result, run report and `done` event, built from the final loop state. */
import type { DoneEvent } from '../events/events';
import { jsonBytes } from '../messages/json';
import type { AssistantMessage, Message } from '../messages/messages';
import { messageText } from '../messages/messages';
import { finalAnswerText } from '../output/output';
import type { AgentRunResult, RunError, RunStatus, StepReport, SuccessResult } from './result';
import type { LoopState } from '../loop/state';
import { MAX_TOKENS_CONTINUE } from '../loop/transitions';
import type { LayerReport } from '../prompt/layers';
import { layerReports } from '../prompt/layers';

/** Identity and timing of a run, known only to the workflow. */
export interface RunMeta {
  workflowId: string;
  runId: string;
  startedAt: string;
  endedAt: string;
}

/**
 * How many bytes of per-step and per-call detail a result's report carries (each list gets this much, its
 * most recent entries): a run of thousands of steps must still return a result well under Temporal's
 * payload limits (with 256 KiB of messages, the whole result stays under its 512 KB warning). Totals
 * (usage, cost, counts) always cover every step.
 */
export const REPORT_DETAIL_BYTES = 64 * 1024;

/** The most recent items whose JSON fits in `maxBytes` (at least the last one), and how many were left out. */
export function recentWithin<T>(items: readonly T[], maxBytes: number): { items: T[]; omitted: number } {
  let bytes = 2;
  let start = items.length;
  while (start > 0) {
    const size = jsonBytes(items[start - 1]) + 1;
    if (bytes + size > maxBytes && start < items.length) break;
    bytes += size;
    start--;
  }
  return { items: items.slice(start), omitted: start };
}

/** The most recent messages whose JSON fits in `maxBytes` (at least the last one), and how many were left out. */
export function recentMessages(messages: readonly Message[], maxBytes: number): { messages: Message[]; omitted: number } {
  const recent = recentWithin(messages, maxBytes);
  return { messages: recent.items, omitted: recent.omitted };
}

/**
 * The text of the answer ending at `messages[last]` (an assistant message): its own text, preceded by
 * the text of every answer it continues after a cut-off (`maxTokensRecoveries`: an assistant message
 * followed by the "continue" request), so a recovered answer is whole. The parts are joined as they
 * are: each continues exactly where the one before stopped.
 */
export function answerText(messages: readonly Message[], last: number): string {
  const parts = [messageText(messages[last]!)];
  for (let i = last; i >= 2; i -= 2) {
    const ask = messages[i - 1]!;
    const before = messages[i - 2]!;
    const continues = ask.role === 'user' && ask.content.some((b) => b.type === 'text' && b.text === MAX_TOKENS_CONTINUE);
    if (!continues || before.role !== 'assistant') break;
    parts.unshift(messageText(before));
  }
  return parts.join('');
}

/**
 * The typed result of a finished run. Messages beyond `inlineBytes` (oldest first) are left out of the
 * result, which must stay well under Temporal's payload limit; the transcript store has them all. Every
 * status but `success` carries an error (a generic one if none was given).
 */
export function finishRun(
  state: LoopState,
  status: RunStatus,
  meta: RunMeta,
  error?: RunError,
  inlineBytes = Number.POSITIVE_INFINITY,
): AgentRunResult {
  let last = state.messages.length - 1;
  while (last >= 0 && state.messages[last]!.role !== 'assistant') last--;
  const lastAssistant = last >= 0 ? (state.messages[last] as AssistantMessage) : undefined;
  const recent = recentMessages(state.messages, inlineBytes);
  const here = runCost(state.steps);
  const earlier = state.earlier;
  // Summaries written by compaction are paid for too.
  const other = (earlier?.costUsd ?? 0) + (state.context?.costUsd ?? 0) + (state.subAgents?.costUsd ?? 0);
  const known =
    other > 0 || earlier
      ? { costUsd: Math.round((here.costUsd + other) * 1e8) / 1e8, unpricedSteps: here.unpricedSteps + (earlier?.unpricedSteps ?? 0) }
      : here;
  // Nothing the run paid for had a price: its cost is unknown (null), not $0.
  const cost = { costUsd: costUnknown(state.step, known.unpricedSteps, other) ? null : known.costUsd, unpricedSteps: known.unpricedSteps };
  const steps = recentWithin(state.steps, REPORT_DETAIL_BYTES);
  const toolCalls = recentWithin(state.toolCalls, REPORT_DETAIL_BYTES);
  const base = {
    // An answer given through the final_answer tool (agents with an output schema) has no text of its own.
    finalText:
      state.finalText ??
      (lastAssistant
        ? answerText(state.messages, last) ||
          (state.output !== undefined || status === 'output_invalid' ? finalAnswerText(lastAssistant) : '')
        : ''),
    messages: recent.messages,
    messagesOmitted: recent.omitted + (earlier?.messages ?? 0),
    steps: state.step,
    usage: state.usage,
    costUsd: cost.costUsd,
    report: {
      agent: state.agent,
      ...meta,
      steps: steps.items,
      stepsOmitted: steps.omitted + (earlier?.steps ?? 0),
      toolCalls: toolCalls.items,
      toolCallsOmitted: toolCalls.omitted + (earlier?.toolCalls ?? 0),
      usage: state.usage,
      ...cost,
      ...(state.context?.compactions ? { compactions: state.context.compactions } : {}),
      ...layersReport(state),
    },
    transcriptHead: state.head,
  };
  // `output` is absent (rather than undefined) for agents without an output schema.
  if (status === 'success') return { status, ...base, ...(state.output !== undefined ? { output: state.output } : {}) } as SuccessResult;
  return { status, error: error ?? { message: `The run ended: ${status}.` }, ...base };
}

/** The report's `layers`: absent when none is set. */
function layersReport(state: LoopState): { layers?: LayerReport[] } {
  const layers = layerReports(undefined, state.layers);
  return layers.length ? { layers } : {};
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

/**
 * Whether a run's cost is unknown: it made model calls, none of them had a price, and nothing else it
 * paid for (compaction summaries, sub-agents) had one either.
 */
export function costUnknown(steps: number, unpricedSteps: number, otherCostUsd: number): boolean {
  return steps > 0 && unpricedSteps >= steps && otherCostUsd === 0;
}

/** The `done` event of a finished run. */
export function doneEvent(result: AgentRunResult): DoneEvent {
  return {
    type: 'done',
    status: result.status,
    steps: result.steps,
    usage: result.usage,
    costUsd: result.costUsd,
    finalText: result.finalText,
    ...(result.status === 'success' && result.output !== undefined ? { output: result.output } : {}),
    ...(result.error ? { error: result.error } : {}),
  };
}
