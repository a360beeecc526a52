/**
 * What a run policy may say, checked against the agent's tools before any tool runs. Two rules:
 *
 * - **Only tighten approvals.** For a tool that needs approval (`needsApproval`, a predicate, or named
 *   approvers), `allow` (named, or through `'*'`) would let its calls run with nobody asked: that needs an
 *   approval waiver, the identity of a caller allowed to approve (`{ by }`). `ask` and `deny` are always
 *   accepted (`allow` → `ask` → `deny` only tightens). Even with a waiver, a tool that names its approvers
 *   still asks them (`gateFor`).
 * - **Every key names a tool.** Keys other than `'*'` must be a tool of the agent (its MCP tools
 *   `server__tool` and the tools of agents it runs through agent tools included), exactly: a key that
 *   differs only by case is unknown too, and the error lists the near matches.
 *
 * Pure: the workflow checks with the recorded spec, clients with an agent definition.
 */
import type { ApprovalSpec, RunPolicy } from './approval-requests';
import { parseCond } from './conditions';
import { DurableAgentError } from '../run/errors';

/** A tool as the policy check sees it: its name and approval settings. */
export interface PolicyTool {
  name: string;
  approval?: ApprovalSpec;
}

/**
 * Who may loosen approvals in a run policy: the identity (e.g. `ops:alice`) of a caller allowed to approve
 * the calls it lets run unasked. Recorded in the run's input.
 */
export interface ApprovalWaiver {
  by: string;
}

/** One thing wrong with a run policy. */
export interface PolicyProblem {
  /** The policy key at fault (`'*'` when `'*': 'allow'` covers a tool that needs approval). */
  key: string;
  /** `unknown_tool`: the key names no tool; `loosens_approval`: `allow` on a tool that needs approval, without a waiver. */
  kind: 'unknown_tool' | 'loosens_approval';
  /** For `unknown_tool`: tool names close to the key (same letters but case, or a small edit away), best first. */
  nearMatches?: string[];
  /** For `loosens_approval`: the tool that needs approval. */
  tool?: string;
  /** One sentence for people. */
  message: string;
}

/** How to check: whether unknown keys are refused, and name prefixes accepted as tools (MCP servers not listed yet). */
export interface PolicyCheckOptions {
  waiver?: ApprovalWaiver;
  /** Default true. A sub-agent's run skips it: its parent's policy names the parent's tools too. */
  refuseUnknown?: boolean;
  /** Keys starting with one of these are accepted as tools (a client that cannot list an MCP server's tools). */
  acceptedPrefixes?: readonly string[];
}

/** Whether calls of a tool with these settings may need a person (so `allow` in a policy loosens it). */
export function needsApproval(approval: ApprovalSpec | undefined): boolean {
  return approval !== undefined && (approval.mode !== 'never' || Boolean(approval.approvers?.length));
}

/** Edit distance between two strings (insertions, deletions, substitutions). */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row.push(Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = row;
  }
  return prev[b.length] as number;
}

/** Names near `key`, best first (at most 3): equal but for case, or within an edit distance of a third of the key (at least 2). */
export function nearMatches(key: string, names: readonly string[]): string[] {
  const lower = key.toLowerCase();
  const limit = Math.max(2, Math.floor(key.length / 3));
  return names
    .map((name) => ({ name, d: name.toLowerCase() === lower ? 0 : distance(lower, name.toLowerCase()) }))
    .filter((m) => m.d <= limit)
    .sort((x, y) => x.d - y.d || x.name.localeCompare(y.name))
    .slice(0, 3)
    .map((m) => m.name);
}

/** Everything wrong with `policy` for an agent with `tools` (empty: the policy is accepted). */
export function policyProblems(
  policy: RunPolicy | undefined,
  tools: readonly PolicyTool[],
  options: PolicyCheckOptions = {},
): PolicyProblem[] {
  if (!policy || typeof policy !== 'object') return [];
  const problems: PolicyProblem[] = [];
  const names = [...new Set(tools.map((t) => t.name))];
  if (options.refuseUnknown !== false) {
    for (const key of Object.keys(policy)) {
      if (key === '*' || names.includes(key) || options.acceptedPrefixes?.some((p) => key.startsWith(p))) continue;
      const near = nearMatches(key, names);
      problems.push({
        key,
        kind: 'unknown_tool',
        nearMatches: near,
        message: `policy key "${key}" names no tool of the agent${near.length ? ` (did you mean ${near.join(', ')}?)` : ''}; tools: ${names.length ? names.join(', ') : '(none)'}`,
      });
    }
  }
  if (!options.waiver) {
    const seen = new Set<string>();
    for (const tool of tools) {
      if (seen.has(tool.name) || !needsApproval(tool.approval)) continue;
      seen.add(tool.name);
      const key = Object.prototype.hasOwnProperty.call(policy, tool.name) ? tool.name : '*';
      const value = policy[key];
      // An entry on arguments that allows loosens the tool like a plain `allow` (so does the `*` value its entries fall back to).
      const allows = Array.isArray(value)
        ? value.some((e) => e.action === 'allow') || (key !== '*' && policy['*'] === 'allow')
        : value === 'allow';
      if (!allows) continue;
      problems.push({
        key,
        kind: 'loosens_approval',
        tool: tool.name,
        message: `policy ${key === '*' ? `"*": "allow" covers "${tool.name}"` : `"${key}": "allow"`}, a tool that needs approval: a run policy may only tighten approvals (allow → ask → deny) unless the caller's identity may approve (approvalWaiver)`,
      });
    }
  }
  return problems;
}

/** The problems in one line. */
export function policyMessage(problems: readonly PolicyProblem[]): string {
  return `Invalid run policy: ${problems.map((p) => p.message).join('; ')}`;
}

/**
 * A run policy refused before the run started (code `invalid_input`): a key that names no tool, or an
 * `allow` that loosens a tool needing approval without an approval waiver. `key` is the first key at
 * fault, `nearMatches` its near tool names; `problems` lists them all.
 */
export class PolicyError extends DurableAgentError {
  /** Every problem found. */
  readonly problems: PolicyProblem[];
  /** The first key at fault. */
  readonly key: string;
  /** Tool names near `key` when it names no tool. */
  readonly nearMatches: string[];
  constructor(problems: PolicyProblem[]) {
    super('invalid_input', policyMessage(problems));
    this.problems = problems;
    this.key = problems[0]?.key ?? '';
    this.nearMatches = problems[0]?.nearMatches ?? [];
  }
}

/** At most this many entries on arguments for one tool in a run policy. */
export const MAX_POLICY_ENTRIES = 32;

const ACTIONS: readonly string[] = ['allow', 'ask', 'deny'];

/**
 * What is wrong with the run policy's value for `tool` from the outside world (undefined: well formed):
 * `allow`, `ask`, `deny`, or a list of entries `{ when?, action, id? }` (conditions checked like rules').
 */
export function policyValueProblem(tool: string, value: unknown): string | undefined {
  if (typeof value === 'string')
    return ACTIONS.includes(value) ? undefined : `policy for "${tool}" must be allow, ask or deny (got ${JSON.stringify(value)})`;
  if (!Array.isArray(value))
    return `policy for "${tool}" must be allow, ask, deny or a list of entries { when?, action, id? } (got ${JSON.stringify(value)})`;
  if (!value.length || value.length > MAX_POLICY_ENTRIES) return `policy for "${tool}" must list 1 to ${MAX_POLICY_ENTRIES} entries`;
  for (const [i, e] of value.entries()) {
    const at = `policy for "${tool}", entry ${i}`;
    if (!e || typeof e !== 'object' || Array.isArray(e)) return `${at} must be an object { when?, action, id? }`;
    const o = e as Record<string, unknown>;
    const extra = Object.keys(o).filter((k) => k !== 'when' && k !== 'action' && k !== 'id');
    if (extra.length) return `${at} has unknown field(s): ${extra.join(', ')}`;
    if (!ACTIONS.includes(o.action as string)) return `${at}: action must be allow, ask or deny`;
    if (o.id !== undefined && (typeof o.id !== 'string' || !o.id || o.id.length > 200))
      return `${at}: id must be a non-empty string of at most 200 characters`;
    if (o.when !== undefined) {
      const cond = parseCond(o.when);
      if (!cond.ok) return `${at}: when: ${cond.error}`;
    }
  }
  return undefined;
}

/** Problems of an approval waiver from the outside world (undefined: well formed or absent). */
export function waiverProblem(waiver: unknown): string | undefined {
  if (waiver === undefined) return undefined;
  if (!waiver || typeof waiver !== 'object' || Array.isArray(waiver)) return 'approvalWaiver must be an object { by }';
  const w = waiver as Record<string, unknown>;
  const extra = Object.keys(w).filter((k) => k !== 'by');
  if (extra.length) return `approvalWaiver has unknown field(s): ${extra.join(', ')}`;
  if (typeof w.by !== 'string' || !w.by.trim()) return 'approvalWaiver.by must name who may approve (e.g. "ops:alice")';
  return undefined;
}
