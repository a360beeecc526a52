/**
 * `durable-agent rules list|add|remove|editors|history`: the namespace's standing approval rules (session,
 * agent and namespace scopes), kept by the rules entity. Changes name who makes them (`--by`, default
 * `cli:<user>`) and the entity refuses anyone who is not one of its editors.
 */
import type { ApprovalRule, Cond, RuleChangedEvent, RuleChangeOptions, RuleInput, RulesView } from '../../../src/entry/client';
import { NoWorkerError, parseCond, parseWhen, renderCond, RuleChangeRefusedError } from '../../../src/entry/client';
import { CliError, errorMessage } from '../errors';
import { Output } from '../terminal-output';
import { Session } from '../session';
import type { ConnectionFlags } from '../target';
import { resolveTarget } from '../target';
import { defaultApprover } from './approvals';
import { parseUntil } from './defer';

/** Flags of every `rules` subcommand. */
export interface RulesFlags extends Omit<ConnectionFlags, 'taskQueue'> {
  json?: boolean;
  /** Changes: who makes them (default `cli:<user>`). */
  by?: string;
  reason?: string;
  /** Changes: refuse unless the rules are at this version. */
  expectedVersion?: string;
}

/** Flags of `rules add`. */
export interface RuleAddFlags extends RulesFlags {
  tool?: string;
  action?: string;
  scope?: string;
  agent?: string;
  session?: string;
  /** Infix conditions (`amount<=50`, several joined by and). */
  when?: string[];
  /** A condition as JSON. */
  whenJson?: string;
  /** A duration from now (`8h`) or an ISO date-time. */
  until?: string;
  id?: string;
}

/** Flags of `rules editors`. */
export interface EditorsFlags extends RulesFlags {
  /** Replace the editors: comma-separated identities. */
  set?: string;
}

/** A rule on one line: id, version, scope, tool, action, condition, until, maker, reason. */
export function formatRule(r: ApprovalRule): string {
  const scope = r.scope === 'agent' ? `agent ${r.agent ?? ''}` : r.scope === 'session' ? `session ${r.session ?? ''}` : r.scope;
  const parts = [`${r.id}${r.version !== undefined ? ` v${r.version}` : ''}`, `[${scope}]`, `${r.action} ${r.tool}`];
  if (r.when) parts.push(`when ${renderCond(r.when)}`);
  if (r.until) parts.push(`until ${r.until}`);
  parts.push(`by ${r.createdBy}${r.path ? ` via ${r.path}` : ''}`);
  return parts.join('  ') + (r.reason ? `: ${r.reason}` : '');
}

/** A change of the log on one line. */
export function formatChange(c: RuleChangedEvent): string {
  const what = c.op === 'editors' ? `editors ${(c.editors ?? []).join(', ')}` : `${c.op} ${c.ruleId ?? ''}`;
  return `${c.seq}. ${c.at} v${c.version} ${what} by ${c.by}${c.path ? ` via ${c.path}` : ''}${c.reason ? `: ${c.reason}` : ''}`;
}

function expectedVersion(flags: RulesFlags): number | undefined {
  if (flags.expectedVersion === undefined) return undefined;
  const n = Number(flags.expectedVersion);
  if (!Number.isInteger(n) || n < 0) throw new CliError(`--expected-version must be a whole number, got "${flags.expectedVersion}"`);
  return n;
}

function changeOptions(flags: RulesFlags): RuleChangeOptions {
  const expected = expectedVersion(flags);
  return {
    by: flags.by ?? defaultApprover(),
    path: 'cli',
    ...(flags.reason !== undefined ? { reason: flags.reason } : {}),
    ...(expected !== undefined ? { expectedVersion: expected } : {}),
  };
}

/** The rule `rules add` writes, from its flags. */
export function ruleOfFlags(flags: RuleAddFlags, now = Date.now()): RuleInput {
  if (!flags.tool) throw new CliError('--tool is required (a tool name, or * for every tool)');
  const action = flags.action;
  if (action !== 'allow' && action !== 'ask' && action !== 'deny')
    throw new CliError(`--action must be allow, ask or deny, got "${action ?? ''}"`);
  const scope = flags.scope ?? (flags.agent ? 'agent' : flags.session ? 'session' : 'namespace');
  if (scope !== 'namespace' && scope !== 'agent' && scope !== 'session')
    throw new CliError(`--scope must be namespace, agent or session, got "${scope}"`);
  if (scope === 'agent' && !flags.agent) throw new CliError('--scope agent needs --agent <name>');
  if (scope === 'session' && !flags.session) throw new CliError('--scope session needs --session <workflowId>');
  let when: Cond | undefined;
  if (flags.when?.length && flags.whenJson) throw new CliError('give --when or --when-json, not both');
  if (flags.when?.length) {
    const parsed = parseWhen(flags.when);
    if (!parsed.ok) throw new CliError(`--when: ${parsed.error}`);
    when = parsed.value;
  } else if (flags.whenJson) {
    let json: unknown;
    try {
      json = JSON.parse(flags.whenJson);
    } catch (err) {
      throw new CliError(`--when-json is not JSON: ${errorMessage(err)}`);
    }
    const parsed = parseCond(json);
    if (!parsed.ok) throw new CliError(`--when-json: ${parsed.error}`);
    when = parsed.value;
  }
  return {
    ...(flags.id ? { id: flags.id } : {}),
    scope,
    ...(scope === 'agent' ? { agent: flags.agent } : {}),
    ...(scope === 'session' ? { session: flags.session } : {}),
    tool: flags.tool,
    ...(when ? { when } : {}),
    action,
    ...(flags.until ? { until: parseUntil(flags.until, now).toISOString() } : {}),
  };
}

/** Open a session, run `use` with the rules client, turn the client's refusals into CLI errors. */
async function withRules<T>(
  flags: RulesFlags,
  out: Output,
  use: (rules: ReturnType<Session['agentClient']>['rules']) => Promise<T>,
): Promise<T> {
  const session = await Session.open(resolveTarget(flags), { embed: 'if-state', log: (l) => out.note(l) });
  try {
    return await use(session.agentClient().rules);
  } catch (err) {
    if (err instanceof RuleChangeRefusedError) throw new CliError(`refused: ${err.message}`);
    if (err instanceof NoWorkerError) {
      throw new CliError(
        'no worker polls the rules queue "durable-agent.rules": start a worker (every createWorker polls it unless approvalRules is false)',
      );
    }
    throw err;
  } finally {
    await session.close();
  }
}

function printView(out: Output, view: RulesView, json: boolean): void {
  if (json) return out.json(view);
  out.line(`rules version ${view.version}; editors: ${view.editors.length ? view.editors.join(', ') : '(none)'}`);
  if (!view.rules.length) out.line('no standing rules');
  else out.line(...view.rules.map(formatRule));
}

/** `rules list`. */
export async function rulesListCommand(flags: RulesFlags): Promise<number> {
  const out = new Output(Boolean(flags.json));
  printView(out, await withRules(flags, out, (rules) => rules.list()), Boolean(flags.json));
  return 0;
}

/** `rules add`. */
export async function rulesAddCommand(flags: RuleAddFlags): Promise<number> {
  const out = new Output(Boolean(flags.json));
  const rule = ruleOfFlags(flags);
  const options = changeOptions(flags);
  const receipt = await withRules(flags, out, (rules) => rules.put(rule, options));
  if (flags.json) out.json(receipt);
  else out.line(`rules version ${receipt.version}: ${receipt.rule ? formatRule(receipt.rule) : ''}`);
  return 0;
}

/** `rules remove <id>`. */
export async function rulesRemoveCommand(id: string, flags: RulesFlags): Promise<number> {
  const out = new Output(Boolean(flags.json));
  if (!id.trim()) throw new CliError('the rule id is empty');
  const options = changeOptions(flags);
  const receipt = await withRules(flags, out, (rules) => rules.remove(id, options));
  if (flags.json) out.json(receipt);
  else out.line(`rules version ${receipt.version}: removed ${id}`);
  return 0;
}

/** `rules editors [--set a,b]`. */
export async function rulesEditorsCommand(flags: EditorsFlags): Promise<number> {
  const out = new Output(Boolean(flags.json));
  if (flags.set === undefined) {
    const editors = await withRules(flags, out, (rules) => rules.editors());
    if (flags.json) out.json({ editors });
    else out.line(editors.length ? editors.join('\n') : '(no editors: start a worker with approvalRules: { editors })');
    return 0;
  }
  const editors = flags.set
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (!editors.length) throw new CliError('--set needs at least one identity (comma-separated)');
  const options = changeOptions(flags);
  const receipt = await withRules(flags, out, (rules) => rules.setEditors(editors, options));
  if (flags.json) out.json({ ...receipt, editors });
  else out.line(`editors: ${editors.join(', ')}`);
  return 0;
}

/** `rules history`. */
export async function rulesHistoryCommand(flags: RulesFlags): Promise<number> {
  const out = new Output(Boolean(flags.json));
  const changes = await withRules(flags, out, (rules) => rules.history());
  if (flags.json) out.json(changes);
  else out.line(...(changes.length ? changes.map(formatChange) : ['no rule changes']));
  return 0;
}
