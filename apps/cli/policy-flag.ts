/** `--policy tool=rule` flags (repeatable, or comma-separated) as a run policy, and early checks of it. */
import type { AnyAgent } from '../../src/entry/index';
import type { PolicyRule, RunPolicy } from '../../src/entry/client';
import { PolicyError } from '../../src/entry/client';
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
  const policy: Record<string, PolicyRule> = {};
  for (const entry of values
    .flatMap((v) => v.split(','))
    .map((e) => e.trim())
    .filter(Boolean)) {
    const eq = entry.lastIndexOf('=');
    const tool = entry.slice(0, eq).trim();
    const rule = entry.slice(eq + 1).trim() as PolicyRule;
    if (eq < 1 || !tool || !RULES.includes(rule))
      throw new CliError(`--policy "${entry}": give <tool>=allow|ask|deny (or *=<rule> for the other tools), e.g. --policy purge=deny`);
    if (Object.hasOwn(policy, tool)) throw new CliError(`--policy names "${tool}" twice`);
    policy[tool] = rule;
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
