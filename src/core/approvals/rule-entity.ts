/**
 * The namespace's rules entity, its pure side: the state it keeps ({@link RulesEntityState}), the
 * changes people ask for ({@link PutRuleRequest}, {@link RemoveRuleRequest}, {@link SetEditorsRequest}),
 * their checks (a refused change writes nothing) and how each one changes the state. Workflow-safe.
 */
import type { Cond } from './conditions';
import { parseCond } from './conditions';
import type { ApprovalRule, AuditPath, RuleAction, RuleScope, RuleSet } from './rules';
import { AUDIT_PATHS } from './rules';

/** At most this many standing rules in the set. */
export const MAX_RULES = 200;

/** At most this many bytes of JSON for the whole set. */
export const MAX_RULES_BYTES = 32 * 1024;

/** At most this many editors. */
export const MAX_EDITORS = 100;

/** The entity keeps this many rule changes (older ones are dropped). */
export const MAX_RULE_CHANGES = 500;

/** Scopes the entity holds (run-scope rules live in runs). */
export const STANDING_SCOPES: readonly RuleScope[] = ['session', 'agent', 'namespace'];

const ACTIONS: readonly RuleAction[] = ['allow', 'ask', 'deny'];

/** A rule as written by a person: the entity names it (when `id` is absent), versions it and records who made it. */
export interface RuleInput {
  /** Replace the rule with this id (or create it under this id); absent: a new id `r-<n>`. */
  id?: string;
  scope: 'session' | 'agent' | 'namespace';
  /** With scope `session`: the conversation (workflow id). */
  session?: string;
  /** With scope `agent`: the agent name. */
  agent?: string;
  /** A tool name, or `*`. */
  tool: string;
  when?: Cond;
  action: RuleAction;
  /** ISO time after which the rule no longer applies. */
  until?: string;
  reason?: string;
}

/** Who asks for a change, how, and why; `expectedVersion` refuses the change unless the set is at that version. */
export interface RuleChangeMeta {
  /** An editor's identity (e.g. `ops:alice`). */
  by: string;
  path?: AuditPath;
  reason?: string;
  /** Compare-and-set: refused when the set's version is another one. */
  expectedVersion?: number;
}

/** Add a rule or replace one (same id). */
export interface PutRuleRequest extends RuleChangeMeta {
  rule: RuleInput;
}

/** Remove a rule by id. */
export interface RemoveRuleRequest extends RuleChangeMeta {
  id: string;
}

/** Replace who may change rules (an editor must stay among them). */
export interface SetEditorsRequest extends RuleChangeMeta {
  editors: string[];
}

/** What a rule change returns: the set's version after it, and the rule written (a put). */
export interface RuleChangeReceipt {
  version: number;
  rule?: ApprovalRule;
}

/** What changed. */
export type RuleChangeOp = 'put' | 'remove' | 'editors' | 'expired';

/** One change of the rule set or of its editors, as the entity's log keeps it. */
export interface RuleChangedEvent {
  type: 'rule_changed';
  /** Position in the log (grows by one per change, across continue-as-new). */
  seq: number;
  /** Workflow time, ISO. */
  at: string;
  op: RuleChangeOp;
  /** The set's version after the change. */
  version: number;
  /** Who (`entity` for a rule that expired). */
  by: string;
  path?: AuditPath;
  reason?: string;
  /** The rule's id (put, remove, expired). */
  ruleId?: string;
  /** The rule as written (put). */
  rule?: ApprovalRule;
  /** The editors after the change (editors). */
  editors?: string[];
}

/** The entity's whole state, carried across continue-as-new. */
export interface RulesEntityState {
  version: number;
  rules: ApprovalRule[];
  editors: string[];
  /** Next number of a generated id (`r-<n>`). */
  nextId: number;
  /** The last {@link MAX_RULE_CHANGES} changes. */
  changes: RuleChangedEvent[];
  /** seq of the next change. */
  nextSeq: number;
}

/** What the `rules` query returns: the set and its editors. */
export interface RulesView extends RuleSet {
  editors: string[];
}

/** Why a change is refused: the sender is not an editor, the set is at another version than expected, or the change is malformed. */
export type RuleRefusalKind = 'forbidden' | 'conflict' | 'invalid';

/** A refused change: its kind and a message saying what to do. */
export interface RuleRefusal {
  kind: RuleRefusalKind;
  message: string;
}

/** The failure type a refusal of this kind carries (`RuleChangeForbidden`, …). */
export function refusalType(kind: RuleRefusalKind): string {
  return `RuleChange${kind[0]!.toUpperCase()}${kind.slice(1)}`;
}

/** The refusal kind a failure type names (undefined for another type). */
export function refusalKindOf(type: string | undefined | null): RuleRefusalKind | undefined {
  const kinds: RuleRefusalKind[] = ['forbidden', 'conflict', 'invalid'];
  return kinds.find((k) => refusalType(k) === type);
}

const invalid = (message: string): RuleRefusal => ({ kind: 'invalid', message });

/** A fresh state with these editors (the worker's configuration). */
export function initialRulesState(editors: readonly string[] = []): RulesEntityState {
  return { version: 0, rules: [], editors: uniq(editors), nextId: 1, changes: [], nextSeq: 1 };
}

/** The published set. */
export function ruleSetOf(state: RulesEntityState): RuleSet {
  return { version: state.version, rules: state.rules };
}

function uniq(list: readonly string[]): string[] {
  return [...new Set(list)];
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const nonEmpty = (v: unknown, max = 200): v is string => typeof v === 'string' && v.trim().length > 0 && v.length <= max;

/** Checks who asks and the version; a problem as text, or undefined. */
function metaProblem(state: RulesEntityState, req: Record<string, unknown>): RuleRefusal | undefined {
  if (!nonEmpty(req.by)) return invalid('by: give the identity of who changes the rules (e.g. "ops:alice")');
  if (!state.editors.length) {
    return {
      kind: 'forbidden',
      message: 'no one may change the rules yet: start a worker with approvalRules: { editors: [...] } (trusted configuration)',
    };
  }
  if (!state.editors.includes(req.by)) {
    return { kind: 'forbidden', message: `${req.by} may not change the rules (editors: ${state.editors.join(', ')})` };
  }
  if (req.path !== undefined && !AUDIT_PATHS.includes(req.path as AuditPath))
    return invalid(`path: unknown path ${JSON.stringify(req.path)}`);
  if (req.reason !== undefined && (typeof req.reason !== 'string' || req.reason.length > 1000)) {
    return invalid('reason: a string of at most 1000 characters');
  }
  if (req.expectedVersion !== undefined) {
    if (typeof req.expectedVersion !== 'number' || !Number.isInteger(req.expectedVersion)) return invalid('expectedVersion: an integer');
    if (req.expectedVersion !== state.version) {
      return {
        kind: 'conflict',
        message: `the rules changed: version is ${state.version}, not the expected ${req.expectedVersion} (read them again)`,
      };
    }
  }
  return undefined;
}

/** Problems of a rule as written, or undefined. `nowMs` refuses an `until` in the past. */
export function ruleInputProblem(input: unknown, nowMs: number): string | undefined {
  if (!isObject(input)) return 'rule: an object { scope, tool, action, … }';
  const known = ['id', 'scope', 'session', 'agent', 'tool', 'when', 'action', 'until', 'reason'];
  const extra = Object.keys(input).filter((k) => !known.includes(k));
  if (extra.length) return `rule: unknown field(s) ${extra.join(', ')}`;
  if (input.id !== undefined && (!nonEmpty(input.id, 100) || !/^[A-Za-z0-9._:-]+$/.test(input.id))) {
    return 'rule.id: letters, digits, . _ : - (at most 100)';
  }
  if (!STANDING_SCOPES.includes(input.scope as RuleScope)) return `rule.scope: one of ${STANDING_SCOPES.join(', ')}`;
  if (input.scope === 'session' ? !nonEmpty(input.session) : input.session !== undefined) {
    return input.scope === 'session'
      ? 'rule.session: the conversation (workflow id) a session rule applies to'
      : 'rule.session: only with scope session';
  }
  if (input.scope === 'agent' ? !nonEmpty(input.agent) : input.agent !== undefined) {
    return input.scope === 'agent' ? 'rule.agent: the agent an agent rule applies to' : 'rule.agent: only with scope agent';
  }
  if (!nonEmpty(input.tool)) return 'rule.tool: a tool name, or * for every tool';
  if (!ACTIONS.includes(input.action as RuleAction)) return `rule.action: one of ${ACTIONS.join(', ')}`;
  if (input.when !== undefined) {
    const cond = parseCond(input.when);
    if (!cond.ok) return `rule.when: ${cond.error}`;
  }
  if (input.until !== undefined) {
    const ms = typeof input.until === 'string' ? Date.parse(input.until) : NaN;
    if (!Number.isFinite(ms)) return 'rule.until: an ISO time';
    if (ms <= nowMs) return `rule.until: ${input.until} has passed`;
  }
  if (input.reason !== undefined && (typeof input.reason !== 'string' || input.reason.length > 1000))
    return 'rule.reason: at most 1000 characters';
  return undefined;
}

/** Why a put is refused, or undefined. */
export function putProblem(state: RulesEntityState, req: unknown, nowMs: number): RuleRefusal | undefined {
  if (!isObject(req)) return invalid('a put: { rule, by, path?, reason?, expectedVersion? }');
  const meta = metaProblem(state, req);
  if (meta) return meta;
  const rule = ruleInputProblem(req.rule, nowMs);
  if (rule) return invalid(rule);
  const next = applyPut(state, req as unknown as PutRuleRequest, new Date(nowMs).toISOString()).state;
  if (next.rules.length > MAX_RULES) return invalid(`too many rules: at most ${MAX_RULES} (remove some first)`);
  const bytes = JSON.stringify(ruleSetOf(next)).length;
  if (bytes > MAX_RULES_BYTES) return invalid(`the rules would take ${bytes} bytes: at most ${MAX_RULES_BYTES}`);
  return undefined;
}

/** Why a remove is refused, or undefined. */
export function removeProblem(state: RulesEntityState, req: unknown): RuleRefusal | undefined {
  if (!isObject(req)) return invalid('a remove: { id, by, path?, reason?, expectedVersion? }');
  const meta = metaProblem(state, req);
  if (meta) return meta;
  if (!state.rules.some((r) => r.id === req.id)) return invalid(`no rule ${JSON.stringify(req.id)}`);
  return undefined;
}

/** Why a change of editors is refused, or undefined. */
export function editorsProblem(state: RulesEntityState, req: unknown): RuleRefusal | undefined {
  if (!isObject(req)) return invalid('editors: { editors, by, path?, reason?, expectedVersion? }');
  const meta = metaProblem(state, req);
  if (meta) return meta;
  const editors = req.editors;
  if (!Array.isArray(editors) || !editors.length || !editors.every((e) => nonEmpty(e))) return invalid('editors: a list of identities');
  if (editors.length > MAX_EDITORS) return invalid(`editors: at most ${MAX_EDITORS}`);
  return undefined;
}

function logged(state: RulesEntityState, change: Omit<RuleChangedEvent, 'type' | 'seq'>): RulesEntityState {
  const event: RuleChangedEvent = { type: 'rule_changed', seq: state.nextSeq, ...change };
  return { ...state, nextSeq: state.nextSeq + 1, changes: [...state.changes, event].slice(-MAX_RULE_CHANGES) };
}

const meta = (req: RuleChangeMeta): Pick<RuleChangedEvent, 'by' | 'path' | 'reason'> => ({
  by: req.by,
  ...(req.path !== undefined ? { path: req.path } : {}),
  ...(req.reason !== undefined ? { reason: req.reason } : {}),
});

/** The state after a (checked) put, and the rule written. */
export function applyPut(state: RulesEntityState, req: PutRuleRequest, at: string): { state: RulesEntityState; rule: ApprovalRule } {
  const version = state.version + 1;
  let nextId = state.nextId;
  let id = req.rule.id;
  if (id === undefined) {
    while (state.rules.some((r) => r.id === `r-${nextId}`)) nextId++;
    id = `r-${nextId}`;
    nextId++;
  }
  const { id: _ignored, reason, ...fields } = req.rule;
  const rule: ApprovalRule = {
    id,
    version,
    ...fields,
    createdBy: req.by,
    ...(req.path !== undefined ? { path: req.path } : {}),
    ...(reason !== undefined ? { reason } : req.reason !== undefined ? { reason: req.reason } : {}),
  };
  const at0 = state.rules.findIndex((r) => r.id === id);
  const rules = at0 >= 0 ? state.rules.map((r, k) => (k === at0 ? rule : r)) : [...state.rules, rule];
  const next = logged({ ...state, version, rules, nextId }, { at, op: 'put', version, ...meta(req), ruleId: id, rule });
  return { state: next, rule };
}

/** The state after a (checked) remove. */
export function applyRemove(state: RulesEntityState, req: RemoveRuleRequest, at: string): RulesEntityState {
  const version = state.version + 1;
  const rules = state.rules.filter((r) => r.id !== req.id);
  return logged({ ...state, version, rules }, { at, op: 'remove', version, ...meta(req), ruleId: req.id });
}

/** The state after a (checked) change of editors (the set's version does not change: runs do not read editors). */
export function applyEditors(state: RulesEntityState, req: SetEditorsRequest, at: string): RulesEntityState {
  const editors = uniq(req.editors);
  return logged({ ...state, editors }, { at, op: 'editors', version: state.version, ...meta(req), editors });
}

/** Editors from trusted configuration, taken only while the entity has none. */
export function seedEditors(state: RulesEntityState, editors: readonly string[], at: string): RulesEntityState {
  const valid = uniq(editors.filter((e) => nonEmpty(e))).slice(0, MAX_EDITORS);
  if (state.editors.length || !valid.length) return state;
  return logged({ ...state, editors: valid }, { at, op: 'editors', version: state.version, by: 'configuration', editors: valid });
}

/** Time (ms) the next rule expires, if any. */
export function nextExpiry(state: RulesEntityState): number | undefined {
  let next: number | undefined;
  for (const r of state.rules) {
    if (r.until === undefined) continue;
    const ms = Date.parse(r.until);
    if (Number.isFinite(ms) && (next === undefined || ms < next)) next = ms;
  }
  return next;
}

/** The state without the rules expired at `nowMs` (one version for them all; the same state when none). */
export function pruneExpired(state: RulesEntityState, nowMs: number): RulesEntityState {
  const expired = state.rules.filter((r) => r.until !== undefined && Date.parse(r.until) <= nowMs);
  if (!expired.length) return state;
  const version = state.version + 1;
  let next: RulesEntityState = { ...state, version, rules: state.rules.filter((r) => !expired.includes(r)) };
  const at = new Date(nowMs).toISOString();
  for (const r of expired) next = logged(next, { at, op: 'expired', version, by: 'entity', ruleId: r.id });
  return next;
}
