/**
 * Guardrails in the loop: the `checkGuardrails` activity (one per check point, every guardrail of the
 * kind in parallel, the decisions recorded) and the pure rules of `core/guardrails.ts`. Called only for
 * agents whose spec has guardrails of the kind, so other runs issue exactly the commands they did before.
 */
import { ActivityCancellationType, isCancellation, proxyActivities } from '@temporalio/workflow';
import { viewOf } from '../core/context/context';
import type { AgentActivities } from '../core/run/contract';
import type { GuardrailDecision, GuardrailKind } from '../core/guardrails/guardrail-types';
import type { FailureStatus, RunError } from '../core/run/result';
import { applyInputGuardrails, applyOutputGuardrails, guardrailsFailed } from '../core/guardrails/guardrails';
import type { AgentSpec } from '../core/run/spec';
import type { LoopState } from '../core/loop/state';
import { modelInput } from '../core/loop/state';
import type { Transition } from '../core/loop/transitions';
import { failureEnding, isActivityFailure } from './failures';

const { checkGuardrails } = proxyActivities<AgentActivities>({
  startToCloseTimeout: '5 minutes',
  // A lost worker is noticed within seconds (the activity heartbeats while guardrails run).
  heartbeatTimeout: '5 seconds',
  // A guardrail that throws: three attempts in all, then the run ends `internal_error` naming it.
  retry: { maximumAttempts: 3, initialInterval: '1 second', backoffCoefficient: 2 },
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
});

/** Run the guardrails of `kind` for `step` on `loop`'s conversation: their decisions, or how the run ends. */
async function decisions(
  spec: AgentSpec,
  loop: LoopState,
  kind: GuardrailKind,
  step: number,
): Promise<{ decided: GuardrailDecision[] } | { failed: { status: FailureStatus; error: RunError } }> {
  const context = viewOf(loop.context, spec.context);
  try {
    const names = (spec.guardrails?.[kind] ?? []).map((g) => g.name);
    return {
      decided: await checkGuardrails({
        agent: spec.name,
        kind,
        step,
        names,
        transcript: modelInput(loop),
        ...(context ? { context } : {}),
      }),
    };
  } catch (err) {
    if (isCancellation(err) || !isActivityFailure(err)) throw err;
    return { failed: failureEnding(err, `run the ${kind} guardrails`) };
  }
}

/** Before the model call of the next step: the input guardrails' transition (`finish` when one trips). */
export async function inputGuardrails(spec: AgentSpec, loop: LoopState): Promise<Transition> {
  const d = await decisions(spec, loop, 'input', loop.step + 1);
  if ('failed' in d) return guardrailsFailed(loop, 'input', d.failed);
  return applyInputGuardrails(loop, spec.guardrails?.input ?? [], d.decided);
}

/**
 * After the model's answer (`t`, whose state holds it and whose events are logged): the output
 * guardrails' transition — `t` itself when all pass, else feedback to the model or the end of the run.
 */
export async function outputGuardrails(spec: AgentSpec, t: Transition): Promise<Transition> {
  const d = await decisions(spec, t.state, 'output', t.state.step);
  if ('failed' in d) return guardrailsFailed(t.state, 'output', d.failed);
  return applyOutputGuardrails(t, spec.guardrails?.output ?? [], d.decided);
}
