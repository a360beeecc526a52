/**
 * `--policy tool=rule` flags (repeatable, or comma-separated) as a run policy, and early checks of it.
 * A rule on arguments is `tool:condition=rule` (e.g. `refund:amount<=50=allow`), one per flag (commas in
 * its condition are kept): the condition is read as `durable-agent rules --when` reads it, the rule after
 * the last `=`. Entries for one tool apply in the order given (the first that matches decides), and a
 * plain `tool=rule` after them is their fallback.
 */
import type { AnyAgent } from '../../src/entry/index';
import type { PolicyEntry, PolicyRule, RunPolicy } from '../../src/entry/client';
import { parseWhen, PolicyError } from '../../src/entry/client';
import { CliError } from './errors';

const RULES: readonly PolicyRule[] = ['allow', 'ask', 'deny'];

/** Commander's collector of a repeatable `--policy` flag. */
export function collectPolicy(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/**
 * The run policy of `--policy` values such as `purge=deny`, `refund=ask,*=allow`.
 *
 * @throws {CliError} for an entry that is not `<tool>=allow|ask|deny`, or a tool given twice.
 */
export function parsePolicyFlag(values: readonly string[] | undefined): RunPolicy | undefined {
  if (!values?.length) return undefined;
  const policy: Record<string, PolicyRule | PolicyEntry[]> = {};
  // An entry with a condition (`tool:condition=rule`) is a flag of its own; others may be comma-separated.
  for (const entry of values
    .flatMap((v) => (/^[^=,]*:/.test(v.trim()) ? [v] : v.split(',')))
    .map((e) => e.trim())
    .filter(Boolean)) {
    const eq = entry.lastIndexOf('=');
    const colon = entry.indexOf(':');
    const conditional = colon > 0 && colon < eq;
    const tool = entry.slice(0, conditional ? colon : eq).trim();
    const rule = entry.slice(eq + 1).trim() as PolicyRule;
    if (eq < 1 || !tool || !RULES.includes(rule))
      throw new CliError(
        `--policy "${entry}": give <tool>=allow|ask|deny (or *=<rule> for the other tools), or <tool>:<condition>=<rule>, e.g. --policy purge=deny --policy 'refund:amount<=50=allow'`,
      );
    const before = policy[tool];
    if (conditional) {
      if (tool === '*') throw new CliError(`--policy "${entry}": a condition needs a tool name, not *`);
      const when = parseWhen([entry.slice(colon + 1, eq)]);
      if (!when.ok) throw new CliError(`--policy "${entry}": ${when.error}`);
      if (typeof before === 'string')
        throw new CliError(`--policy "${entry}": "${tool}=${before}" was given before it and covers every call`);
      policy[tool] = [...(before ?? []), { when: when.value, action: rule }];
    } else if (Array.isArray(before)) policy[tool] = [...before, { action: rule }];
    else if (before !== undefined) throw new CliError(`--policy names "${tool}" twice`);
    else policy[tool] = rule;
  }
  return Object.keys(policy).length ? policy : undefined;
}

/**
 * Run `check` (a client call given the agent's definition, which checks the policy before starting
 * anything); a refused policy becomes one error line.
 *
 * @throws {CliError} the policy names no tool, or loosens an approval without `--approval-waiver`.
 */
export async function withPolicyChecked<T>(check: () => Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (err) {
    if (err instanceof PolicyError) throw new CliError(`${err.message.replace(/approvalWaiver\)/, '--approval-waiver <identity>)')}`);
    throw err;
  }
}

/** The definition of agent `name` among `agents`, when there. */
export function definitionOf(agents: readonly AnyAgent[] | undefined, name: string): AnyAgent | undefined {
  return agents?.find((a) => a.name === name);
}
