import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { CheckGuardrailsInput } from '../core/run/contract';
import type { GuardrailDecision } from '../core/guardrails/guardrail-types';
import type { Message } from '../core/messages/messages';
import { messageText, toolCalls } from '../core/messages/messages';
import type { AgentRegistry } from '../agents/registry';
import type { Guardrail, GuardrailContext, GuardrailVerdict } from '../agents/guardrails';
import type { TranscriptStore } from '../integrations/store/transcript-store';
import { errorMessage, keepAlive } from './heartbeat';
import { shownMessages } from './model';
import { withStore } from './storage';

/** Failure type of a guardrail that threw (retried by the activity's retry policy). */
export const GUARDRAIL_THREW = 'GuardrailThrew';

/**
 * Run every guardrail of one kind at one check point, in parallel, on the conversation (loaded from the
 * transcript store as the model activity does), and return each decision: recorded in history, so
 * replay never runs them again. A guardrail that throws fails the attempt (all of them run again on the
 * next one); a malformed verdict, or a guardrail the worker's agent lacks, fails for good. Each failure
 * names the guardrail.
 */
export function checkGuardrailsActivity(registry: AgentRegistry, store: TranscriptStore) {
  return async function checkGuardrails(input: CheckGuardrailsInput): Promise<GuardrailDecision[]> {
    const ctx = Context.current();
    let defined: readonly Guardrail[];
    try {
      defined = registry.get(input.agent).guardrails?.[input.kind] ?? [];
    } catch (err) {
      throw ApplicationFailure.create({ message: errorMessage(err), type: 'UnknownAgent', nonRetryable: true });
    }
    const guards = input.names.map((name) => {
      const g = defined.find((d) => d.name === name);
      if (g) return g;
      throw ApplicationFailure.create({
        message: `The ${input.kind} guardrail "${name}" this run was started with is not on this worker's agent "${input.agent}" (has: ${defined.map((d) => d.name).join(', ') || 'none'}): deploy the agent with it, or start a new run`,
        type: 'UnknownGuardrail',
        nonRetryable: true,
      });
    });
    const head = await withStore('add the new messages to the transcript', () =>
      store.append(input.transcript.head, input.transcript.append),
    );
    const all = await withStore('load the transcript', () => store.load(head));
    const messages = await withStore('load what the model is shown', () => shownMessages(store, all, input.context, input.step));
    const checked = guardContext(input, messages, ctx);
    const stop = keepAlive(ctx);
    try {
      const results = await Promise.all(guards.map((g) => decide(g, checked)));
      const threw = results.find((r) => 'threw' in r);
      if (threw && 'threw' in threw) {
        throw ApplicationFailure.create({
          message: `The ${input.kind} guardrail "${threw.name}" threw: ${threw.threw}`,
          type: GUARDRAIL_THREW,
        });
      }
      const bad = results.find((r) => 'malformed' in r);
      if (bad && 'malformed' in bad) {
        throw ApplicationFailure.create({
          message: `The ${input.kind} guardrail "${bad.name}" ${bad.malformed}`,
          type: 'GuardrailVerdictInvalid',
          nonRetryable: true,
        });
      }
      return results as GuardrailDecision[];
    } finally {
      stop();
    }
  };
}

/** What every guardrail of the check point gets. */
function guardContext(input: CheckGuardrailsInput, messages: Message[], ctx: Context): GuardrailContext {
  const last = messages[messages.length - 1];
  const answer = input.kind === 'output' && last?.role === 'assistant' ? last : undefined;
  const newestUser = [...messages].reverse().find((m) => m.role === 'user');
  const info = ctx.info.workflowExecution;
  return {
    kind: input.kind,
    agent: input.agent,
    step: input.step,
    messages,
    text: answer ? messageText(answer) : input.kind === 'input' && newestUser ? messageText(newestUser) : '',
    toolCalls: answer ? toolCalls(answer) : [],
    signal: ctx.cancellationSignal,
    workflowId: info?.workflowId ?? '',
    runId: info?.runId ?? '',
  };
}

async function decide(
  g: Guardrail,
  ctx: GuardrailContext,
): Promise<GuardrailDecision | { name: string; threw: string } | { name: string; malformed: string }> {
  const started = Date.now();
  let verdict: GuardrailVerdict;
  try {
    verdict = await g.check({ ...ctx, messages: structuredClone(ctx.messages), toolCalls: structuredClone(ctx.toolCalls) });
  } catch (err) {
    return { name: g.name, threw: errorMessage(err) };
  }
  const latencyMs = Date.now() - started;
  const v = verdict as unknown as Record<string, unknown> | null;
  if (v && typeof v === 'object' && v.pass === true) return { name: g.name, pass: true, latencyMs };
  if (v && typeof v === 'object' && v.pass === false && typeof v.reason === 'string' && v.reason.trim()) {
    return { name: g.name, pass: false, reason: v.reason.trim(), latencyMs };
  }
  return {
    name: g.name,
    malformed: `returned ${JSON.stringify(verdict) ?? String(verdict)}; return { pass: true } or { pass: false, reason: '<why, non-empty>' }`,
  };
}
