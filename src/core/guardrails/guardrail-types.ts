/** Guardrails as data: how the agent spec records them and what the `checkGuardrails` activity decides. */

/** When a guardrail runs: on the messages about to be sent to the model, or on the model's answer. */
export type GuardrailKind = 'input' | 'output';

/** A guardrail as recorded in the agent spec: data only, its code stays in the worker. */
export interface GuardrailSpec {
  name: string;
  /** A failure ends the run (status `guardrail`). */
  tripwire: boolean;
  /** Output guardrails: a failure without tripwire is sent back to the model to revise its answer. */
  feedback: boolean;
}

/** An agent's guardrails, by kind, in the order they were declared. */
export interface GuardrailsSpec {
  input: GuardrailSpec[];
  output: GuardrailSpec[];
}

/** What one guardrail decided, as the `checkGuardrails` activity returns (and history records) it. */
export interface GuardrailDecision {
  name: string;
  pass: boolean;
  /** Why it failed (always set when `pass` is false). */
  reason?: string;
  latencyMs: number;
}

/** Type of the run error when a guardrail trips. */
export const GUARDRAIL_ERROR = 'GuardrailTripped';
