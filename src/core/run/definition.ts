/**
 * The agent definition a run depends on, in a canonical form to hash: every field of the recorded
 * {@link AgentSpec} that the model or the loop reads (models, tools with their schemas and flags, limits,
 * retries, budget, context, guardrails, output) and the model-facing prompt itself. Left out: the blob
 * reference of the prompt (its content is in), `searchAttributes` (a setting of the worker, not of the
 * agent) and `subAgentTools` (listed only for runs with a policy; the sub-agents have hashes of their own). Pure: the worker hashes the text (see activities/describe.ts).
 */
import type { AgentSpec } from './spec';

/** Memo key holding the hash of the run's agent definition. */
export const DEFINITION_HASH_MEMO = 'durableAgent.definitionHash';
/** Memo key holding the run's agent name. */
export const AGENT_MEMO = 'durableAgent.agent';
/** Memo key holding who started the run (the identity of an HTTP token, or `startedBy` given to the client). */
export const STARTED_BY_MEMO = 'durableAgent.startedBy';

/** JSON with object keys sorted at every level (arrays keep their order), so equal data gives equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = sortKeys(v);
  }
  return out;
}

/**
 * The text whose hash identifies an agent definition: the spec without `promptRef`, `searchAttributes` and
 * `definitionHash`, plus the prompt, as canonical JSON.
 *
 * @example
 * createHash('sha256').update(definitionHashInput(spec, prompt)).digest('hex')
 */
export function definitionHashInput(spec: AgentSpec, prompt: unknown): string {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- dropped on purpose
  const { promptRef, searchAttributes, definitionHash, subAgentTools, standingRules, ...definition } = spec;
  return canonicalJson({ definition, prompt });
}
