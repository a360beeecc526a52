/**
 * Guardrails: checks of what goes into the model (`input`, before each call) and what comes out
 * (`output`, after each answer, the final one included). They are code — they may call a model or the
 * network — so they run in the worker, in the `checkGuardrails` activity, and only their decisions
 * enter history. The agent spec records their names and flags.
 */
import { DefinitionError } from '../core/run/errors';
import type { GuardrailKind, GuardrailSpec, GuardrailsSpec } from '../core/guardrails/guardrail-types';
import type { Message, ToolUseBlock } from '../core/messages/messages';
import { NAME, describeValue } from './describe-value';

export type { GuardrailKind } from '../core/guardrails/guardrail-types';

/** What a guardrail's `check` gets. */
export interface GuardrailContext {
  kind: GuardrailKind;
  agent: string;
  /** The step whose model call follows (input) or that just answered (output). */
  step: number;
  /**
   * Input: the messages about to be sent to the model (what it is shown, stored tool outputs read back).
   * Output: the conversation up to and including the model's answer.
   */
  messages: Message[];
  /** Input: the text of the newest user message. Output: the text of the model's answer. */
  text: string;
  /** Output: the tool calls the answer asks for (not run yet). Input: none. */
  toolCalls: ToolUseBlock[];
  /** Aborted when the run is cancelled or the check times out. */
  signal: AbortSignal;
  workflowId: string;
  runId: string;
}

/** A guardrail's decision: pass, or fail with a reason (shown to people, and to the model as feedback). */
export type GuardrailVerdict = { pass: true } | { pass: false; reason: string };

/** How a guardrail is declared. */
export interface GuardrailConfig {
  /** 1–64 letters, digits, `_` or `-`; unique among the agent's guardrails of its kind. */
  name: string;
  /** Which list it may go in; absent: either. */
  kind?: GuardrailKind;
  /** A failure ends the run with status `guardrail` and the reason as its final text. Default false. */
  tripwire?: boolean;
  /**
   * Output guardrails: a failure (without tripwire) sends the answer back to the model with the reason,
   * asking it to revise (a step; its tool calls are not run). Default true. False: the failure is only an event.
   */
  feedback?: boolean;
  /**
   * Decide. Runs in the worker (may call a model or the network); a throw is retried (3 attempts in
   * all), then ends the run `internal_error` naming the guardrail.
   */
  check(ctx: GuardrailContext): GuardrailVerdict | Promise<GuardrailVerdict>;
}

/** A defined guardrail. */
export interface Guardrail extends GuardrailConfig {
  readonly guardrail: true;
}

/** An agent's guardrails, by kind. */
export interface GuardrailsOptions {
  input?: readonly Guardrail[];
  output?: readonly Guardrail[];
}

/**
 * Declare a guardrail.
 *
 * @throws {DefinitionError} for an invalid name or kind, a missing `check`, or a flag that is not a boolean.
 * @example
 * ```ts
 * const noSecrets = defineGuardrail({
 *   name: 'no_secrets',
 *   kind: 'output',
 *   tripwire: true,
 *   check: ({ text }) => (/sk-[A-Za-z0-9]{20,}/.test(text) ? { pass: false, reason: 'the answer contains an API key' } : { pass: true }),
 * });
 * defineAgent({ name: 'helper', model, guardrails: { output: [noSecrets] } });
 * ```
 */
export function defineGuardrail(config: GuardrailConfig): Guardrail {
  checkGuardrail(config, 'guardrail');
  return Object.freeze({ ...config, guardrail: true as const });
}

function checkGuardrail(value: unknown, where: string, kind?: GuardrailKind): asserts value is GuardrailConfig {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new DefinitionError(`${where} must be a guardrail made by defineGuardrail({ name, check }), got ${describeValue(value)}`);
  }
  const g = value as Record<string, unknown>;
  if (typeof g.name !== 'string' || !NAME.test(g.name))
    throw new DefinitionError(`${where}: name ${JSON.stringify(g.name) ?? describeValue(g.name)} must be 1-64 letters, digits, _ or -`);
  const at = `${where} "${g.name}"`;
  if (typeof g.check !== 'function')
    throw new DefinitionError(
      `${at}: check must be a function ({ messages, text, ... }) => ({ pass: true } | { pass: false, reason }), got ${describeValue(g.check)}`,
    );
  if (g.kind !== undefined && g.kind !== 'input' && g.kind !== 'output')
    throw new DefinitionError(`${at}: kind must be "input" or "output", got ${JSON.stringify(g.kind) ?? describeValue(g.kind)}`);
  if (kind && g.kind !== undefined && g.kind !== kind)
    throw new DefinitionError(`${at} is an ${g.kind} guardrail: put it in guardrails.${g.kind}, not guardrails.${kind}`);
  for (const flag of ['tripwire', 'feedback'] as const) {
    if (g[flag] !== undefined && typeof g[flag] !== 'boolean')
      throw new DefinitionError(`${at}: ${flag} must be true or false, got ${describeValue(g[flag])}`);
  }
  if (kind === 'input' && g.feedback !== undefined)
    throw new DefinitionError(
      `${at}: feedback applies to output guardrails only (an input failure is an event, or ends the run with tripwire); remove it`,
    );
}

/**
 * Check an agent's `guardrails` option.
 *
 * @throws {DefinitionError} naming the agent, the list and the guardrail.
 */
export function checkGuardrails(agent: string, value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new DefinitionError(
      `agent "${agent}": guardrails must be an object { input?: [...], output?: [...] }, got ${describeValue(value)}`,
    );
  }
  const given = value as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if (key !== 'input' && key !== 'output')
      throw new DefinitionError(`agent "${agent}": guardrails has an unknown list "${key}" (known: input, output)`);
  }
  for (const kind of ['input', 'output'] as const) {
    const list = given[kind];
    if (list === undefined) continue;
    if (!Array.isArray(list))
      throw new DefinitionError(`agent "${agent}": guardrails.${kind} must be an array of guardrails, got ${describeValue(list)}`);
    const seen = new Set<string>();
    list.forEach((g: unknown, i) => {
      checkGuardrail(g, `agent "${agent}": guardrails.${kind}[${i}]`, kind);
      if (seen.has(g.name))
        throw new DefinitionError(`agent "${agent}" has two ${kind} guardrails named "${g.name}": names must be unique per kind`);
      seen.add(g.name);
    });
  }
}

/** The data form of an agent's guardrails, as a spec field: none when it has none (its spec stays as it was). */
export function guardrailsField(options: GuardrailsOptions | undefined): { guardrails?: GuardrailsSpec } {
  const spec = (g: Guardrail, kind: GuardrailKind): GuardrailSpec => ({
    name: g.name,
    tripwire: g.tripwire ?? false,
    feedback: kind === 'output' ? (g.feedback ?? true) : false,
  });
  const input = (options?.input ?? []).map((g) => spec(g, 'input'));
  const output = (options?.output ?? []).map((g) => spec(g, 'output'));
  return input.length || output.length ? { guardrails: { input, output } } : {};
}
