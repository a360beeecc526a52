/**
 * Approval rules written in an agent's code (`defineAgent({ approvalRules })`): checked when the agent
 * is defined, recorded in its described spec, applied by its runs as rules of scope `agent` (made by
 * `agent:<name>` unless `createdBy` says otherwise).
 */
import type { AgentApprovalRule } from '../core/approvals/rules';
import type { Cond } from '../core/approvals/conditions';
import type { JsonObject } from '../core/messages/json';

/**
 * A rule in an agent's code: a rule of scope `agent` whose `when` is a condition (data), or a function of
 * the call's arguments (parsed by the tool's schema) run by the `checkApprovals` activity, its answer
 * recorded. A function that throws cannot tell: a deny or ask rule asks a person, an allow rule does not apply.
 */
export type AgentRuleConfig = Omit<AgentApprovalRule, 'when' | 'fn'> & {
  /** A condition on the call's arguments (data), or a function of them (run by the `checkApprovals` activity); every call when absent. */
  when?: Cond | ((args: JsonObject) => boolean | Promise<boolean>);
};
import { parseCond } from '../core/approvals/conditions';
import { DefinitionError } from '../core/run/errors';

/** At most this many rules in an agent's code. */
export const MAX_AGENT_RULES = 100;

const ACTIONS = ['allow', 'ask', 'deny'];

/**
 * Check an agent's `approvalRules`.
 *
 * @throws {DefinitionError} naming the agent, the rule and what is wrong.
 */
export function checkApprovalRules(agent: string, rules: unknown): void {
  if (rules === undefined) return;
  const where = `agent "${agent}": approvalRules`;
  if (!Array.isArray(rules)) throw new DefinitionError(`${where} must be an array of { id, tool, action, when? }`);
  if (rules.length > MAX_AGENT_RULES) throw new DefinitionError(`${where}: at most ${MAX_AGENT_RULES} rules`);
  const ids = new Set<string>();
  for (const [i, r] of rules.entries()) {
    const at = `${where}[${i}]`;
    if (!r || typeof r !== 'object' || Array.isArray(r)) throw new DefinitionError(`${at} must be an object { id, tool, action, when? }`);
    const o = r as Record<string, unknown>;
    if (typeof o.id !== 'string' || !o.id || o.id.length > 200) throw new DefinitionError(`${at}: id must be a non-empty string`);
    if (ids.has(o.id)) throw new DefinitionError(`${at}: id "${o.id}" is used twice`);
    ids.add(o.id);
    if (typeof o.tool !== 'string' || !o.tool) throw new DefinitionError(`${at} (${o.id}): tool must name a tool, or * for every tool`);
    if (!ACTIONS.includes(o.action as string)) throw new DefinitionError(`${at} (${o.id}): action must be allow, ask or deny`);
    if (o.when !== undefined && typeof o.when !== 'function') {
      const cond = parseCond(o.when);
      if (!cond.ok) throw new DefinitionError(`${at} (${o.id}): when: ${cond.error}`);
    }
    if (o.until !== undefined && (typeof o.until !== 'string' || Number.isNaN(Date.parse(o.until))))
      throw new DefinitionError(`${at} (${o.id}): until must be an ISO time`);
  }
}

/** The rules as the spec records them (absent when there are none). */
export function approvalRulesField(rules: readonly AgentRuleConfig[] | undefined): { approvalRules?: AgentApprovalRule[] } {
  if (!rules?.length) return {};
  // A function condition is recorded as `fn: true` (its answers are recorded per call).
  return {
    approvalRules: rules.map(({ when, ...r }) => (typeof when === 'function' ? { ...r, fn: true } : { ...r, ...(when ? { when } : {}) })),
  };
}

/** The function condition of the rule `id` of an agent's code, when it has one. */
export function ruleFunction(
  rules: readonly AgentRuleConfig[] | undefined,
  id: string,
): ((args: JsonObject) => boolean | Promise<boolean>) | undefined {
  const when = rules?.find((r) => r.id === id)?.when;
  return typeof when === 'function' ? when : undefined;
}
