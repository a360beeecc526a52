/**
 * Guardrails as the workflow sees them: their data form in the agent spec, the decisions the
 * `checkGuardrails` activity records, and the pure rules of what a decision does to the loop. An input
 * guardrail runs before each model call, an output guardrail after each model answer (the final one
 * included). A failure with `tripwire` ends the run `guardrail` with the reason as its final text; any
 * other failure is a `guardrail` event, and an output failure with `feedback` sends the answer back to
 * the model with the reason (a user turn asking it to revise), which counts a step.
 */
import type { AgentEventBody, GuardrailEvent } from '../events/events';
import { withUserText } from '../messages/user-messages';
import type { GuardrailDecision, GuardrailKind, GuardrailSpec, GuardrailsSpec } from './guardrail-types';
import { GUARDRAIL_ERROR } from './guardrail-types';
import type { FailureStatus, RunError } from '../run/result';
import type { LoopState } from '../loop/state';
import type { NextAction, Transition } from '../loop/transitions';
import { closeOpenCalls } from '../loop/transitions';

/** Whether an agent's spec has guardrails of `kind` (an agent without any issues no new commands). */
export function hasGuardrails(spec: { guardrails?: GuardrailsSpec }, kind: GuardrailKind): boolean {
  return (spec.guardrails?.[kind].length ?? 0) > 0;
}

/**
 * Whether output guardrails judge the answer a transition came to: a final answer or one asking for
 * tools. A cut-off answer (`max_tokens`) is never judged: it is not the model's answer yet.
 */
export function judgesAnswer(next: NextAction): boolean {
  return next.type === 'run_tools' || (next.type === 'finish' && next.status === 'success');
}

/** The text the model reads when its answer failed output guardrails with feedback on. */
export function feedbackText(failures: ReadonlyArray<{ name: string; reason: string }>): string {
  const lines = failures.map((f) => `- ${f.name}: ${f.reason}`);
  return `Your last answer did not pass ${failures.length === 1 ? 'a guardrail' : `${failures.length} guardrails`}:\n${lines.join('\n')}\nRevise your answer so that it passes; do not mention this check.`;
}

/** The result of a tool call not run because the answer asking for it failed a guardrail. */
export function notRunText(failure: { name: string; reason: string }): string {
  return `Not executed: the answer asking for this call did not pass the guardrail "${failure.name}": ${failure.reason}`;
}

/** The failures among `decisions`, joined to their specs (declaration order). */
function failuresOf(specs: readonly GuardrailSpec[], decisions: readonly GuardrailDecision[]): Array<GuardrailSpec & { reason: string }> {
  const byName = new Map(decisions.map((d) => [d.name, d]));
  const out: Array<GuardrailSpec & { reason: string }> = [];
  for (const s of specs) {
    const d = byName.get(s.name);
    if (d && !d.pass) out.push({ ...s, reason: d.reason?.trim() || `guardrail "${s.name}" failed` });
  }
  return out;
}

function event(kind: GuardrailKind, step: number, f: GuardrailSpec & { reason: string }, action: GuardrailEvent['action']): GuardrailEvent {
  return { type: 'guardrail', kind, step, name: f.name, pass: false, reason: f.reason, tripwire: f.tripwire, action };
}

/** The run ends `guardrail`: the reason is its final text. */
function tripped(state: LoopState, kind: GuardrailKind, f: { name: string; reason: string }, events: AgentEventBody[]): Transition {
  return {
    state: { ...state, finalText: f.reason },
    events,
    next: {
      type: 'finish',
      status: 'guardrail',
      error: { message: `The ${kind} guardrail "${f.name}" tripped: ${f.reason}`, type: GUARDRAIL_ERROR },
    },
  };
}

/**
 * Apply the decisions of the input guardrails run before step `state.step + 1`: the first failing one
 * with tripwire ends the run (the model is not called); other failures are events and the model is called.
 */
export function applyInputGuardrails(
  state: LoopState,
  specs: readonly GuardrailSpec[],
  decisions: readonly GuardrailDecision[],
): Transition {
  const step = state.step + 1;
  const failures = failuresOf(specs, decisions);
  const trip = failures.find((f) => f.tripwire);
  const events: AgentEventBody[] = failures.map((f) => event('input', step, f, f === trip ? 'ended' : 'logged'));
  if (trip) return tripped(state, 'input', trip, events);
  return { state, events, next: { type: 'call_model' } };
}

/**
 * Apply the decisions of the output guardrails on the answer `t` came to (its events are already
 * logged): all pass → `t` unchanged; a failure with tripwire → the run ends `guardrail` (calls the
 * answer asked for are closed without running); failures with feedback → the answer's calls are closed
 * without running and the model is asked to revise (when no step is left, the run ends `guardrail`);
 * other failures → events only, and the loop goes on as `t` said.
 */
export function applyOutputGuardrails(t: Transition, specs: readonly GuardrailSpec[], decisions: readonly GuardrailDecision[]): Transition {
  const step = t.state.step;
  const failures = failuresOf(specs, decisions);
  if (failures.length === 0) return { ...t, events: [] };
  const trip = failures.find((f) => f.tripwire);
  const feedback = trip ? [] : failures.filter((f) => f.feedback);
  const first = trip ?? feedback[0];
  const noStepLeft = !trip && feedback.length > 0 && t.state.step >= t.state.maxSteps;
  const ends = (f: (typeof failures)[number]) => f === trip || (noStepLeft && feedback.includes(f));
  const events: AgentEventBody[] = failures.map((f) =>
    event('output', step, f, ends(f) ? 'ended' : feedback.includes(f) ? 'feedback' : 'logged'),
  );
  if (!first) return { ...t, events };
  const closed = closeOpenCalls(t.state, [], notRunText(first));
  events.push(...closed.events);
  if (trip || noStepLeft) return tripped(closed.state, 'output', first, events);
  const state: LoopState = { ...closed.state, messages: withUserText(closed.state.messages, [feedbackText(feedback)]) };
  return { state, events, next: { type: 'call_model' } };
}

/**
 * A guardrail that could not decide (it threw after the activity's retries, returned a malformed verdict,
 * or is missing on the worker): the run ends with `ending` (`internal_error` with a message naming the
 * guardrail; `storage_error` when the store failed). Calls of the answer are closed without running.
 */
export function guardrailsFailed(state: LoopState, kind: GuardrailKind, ending: { status: FailureStatus; error: RunError }): Transition {
  const closed = closeOpenCalls(state, [], `Not executed: the ${kind} guardrails could not decide (${ending.error.message}).`);
  return { state: closed.state, events: closed.events, next: { type: 'finish', status: ending.status, error: ending.error } };
}
