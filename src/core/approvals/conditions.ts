/**
 * The condition language of approval rules (`Cond`): JSON data over a tool call's arguments, recorded in
 * history and evaluated in workflow code. Version 1 (`lang: 1`); its semantics are frozen: any change
 * needs a new `lang` (and `patched()` where recorded runs could see it). Types and the shape check here;
 * evaluation and rendering in `evaluate-cond.ts`.
 */
import type { JsonValue } from '../messages/json';

/** Comparison operators of a {@link CondCompare}. `eq`/`ne` are deep JSON equality; ordering compares numbers with numbers, strings with strings. */
export type CondCompareOp =
  | 'eq'
  | 'ne'
  | 'lt'
  | 'lte'
  | 'gt'
  | 'gte'
  /** The value is one of `value` (an array). */
  | 'in'
  /** The value is none of `value` (an array). */
  | 'nin'
  /** The whole string matches the glob `value` (`*` any run, `?` one character). */
  | 'glob'
  /** A string contains `value`, or an array has an element deep-equal to `value`. */
  | 'contains'
  | 'startsWith'
  | 'endsWith';

/** Compare the value at `path` (dotted, array indices as numbers: `items.0.sku`) with `value`. */
export interface CondCompare {
  path: string;
  op: CondCompareOp;
  value: JsonValue;
  /** `glob`, `contains`, `startsWith`, `endsWith`, `eq`/`ne` on strings: compare case-insensitively. */
  i?: boolean;
}

/** The value at `path` is present (not `undefined`; `null` counts as present). */
export interface CondExists {
  path: string;
  op: 'exists';
}

/** `some`: at least one element of the array at `path` satisfies `cond`; `every`: all do (an empty array: true). Paths inside `cond` are relative to the element. */
export interface CondQuantified {
  path: string;
  op: 'some' | 'every';
  cond: Cond;
}

/** Every condition holds (an empty list: true). */
export interface CondAll {
  all: Cond[];
}

/** At least one condition holds (an empty list: false). */
export interface CondAny {
  any: Cond[];
}

/** The condition does not hold. */
export interface CondNot {
  not: Cond;
}

/** A condition on a tool call's arguments (language version 1). */
export type Cond = CondAll | CondAny | CondNot | CondCompare | CondExists | CondQuantified;

/** The result of evaluating a condition: `unknown` when it cannot tell (wrong types, missing data, caps exceeded). */
export type CondResult = true | false | 'unknown';

/** Caps of a condition (checked by {@link parseCond}) and of what it compares (checked when evaluating: past them the answer is `unknown`). */
export const COND_LIMITS = {
  /** Nodes in a condition. */
  maxNodes: 64,
  /** Nesting depth of `all`/`any`/`not`/`some`/`every`. */
  maxDepth: 8,
  /** Characters of a literal string in a condition (and of a path). */
  maxLiteral: 1024,
  /** Characters of an argument string a condition compares; longer ⇒ `unknown`. */
  maxCompared: 65536,
} as const;

const COMPARE_OPS: readonly string[] = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'nin', 'glob', 'contains', 'startsWith', 'endsWith'];
const STRING_OPS: readonly string[] = ['glob', 'startsWith', 'endsWith'];

/** Check the shape and caps of a condition from the outside world (JSON). */
export function parseCond(input: unknown): { ok: true; value: Cond } | { ok: false; error: string } {
  const problems: string[] = [];
  let nodes = 0;
  const literal = (v: unknown, at: string, depth = 0): void => {
    if (depth > COND_LIMITS.maxDepth) problems.push(`${at}: value nested too deep`);
    else if (typeof v === 'string') {
      if (v.length > COND_LIMITS.maxLiteral) problems.push(`${at}: string longer than ${COND_LIMITS.maxLiteral} characters`);
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) problems.push(`${at}: number must be finite`);
    } else if (Array.isArray(v)) v.forEach((x, k) => literal(x, `${at}[${k}]`, depth + 1));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) literal(x, `${at}.${k}`, depth + 1);
    else if (v !== null && typeof v !== 'boolean') problems.push(`${at}: not a JSON value`);
  };
  const check = (c: unknown, at: string, depth: number): void => {
    nodes++;
    if (nodes > COND_LIMITS.maxNodes) {
      if (nodes === COND_LIMITS.maxNodes + 1) problems.push(`more than ${COND_LIMITS.maxNodes} conditions`);
      return;
    }
    if (depth > COND_LIMITS.maxDepth) {
      problems.push(`${at}: nested deeper than ${COND_LIMITS.maxDepth}`);
      return;
    }
    if (!c || typeof c !== 'object' || Array.isArray(c)) {
      problems.push(`${at}: a condition must be an object`);
      return;
    }
    const o = c as Record<string, unknown>;
    const keys = Object.keys(o);
    const only = (allowed: string[]): void => {
      const extra = keys.filter((k) => !allowed.includes(k));
      if (extra.length) problems.push(`${at}: unknown field(s) ${extra.join(', ')}`);
    };
    if ('all' in o || 'any' in o) {
      const k = 'all' in o ? 'all' : 'any';
      only([k]);
      const list = o[k];
      if (!Array.isArray(list)) problems.push(`${at}.${k} must be an array`);
      else list.forEach((x, n) => check(x, `${at}.${k}[${n}]`, depth + 1));
      return;
    }
    if ('not' in o) {
      only(['not']);
      check(o.not, `${at}.not`, depth + 1);
      return;
    }
    if (typeof o.path !== 'string' || !o.path) problems.push(`${at}.path must be a non-empty string`);
    else if (o.path.length > COND_LIMITS.maxLiteral) problems.push(`${at}.path is too long`);
    else if (o.path.split('.').some((s) => !s)) problems.push(`${at}.path has an empty segment`);
    if (o.op === 'exists') return only(['path', 'op']);
    if (o.op === 'some' || o.op === 'every') {
      only(['path', 'op', 'cond']);
      check(o.cond, `${at}.cond`, depth + 1);
      return;
    }
    if (typeof o.op !== 'string' || !COMPARE_OPS.includes(o.op)) {
      problems.push(`${at}.op must be one of ${[...COMPARE_OPS, 'exists', 'some', 'every'].join(', ')}`);
      return;
    }
    only(['path', 'op', 'value', 'i']);
    if (!('value' in o) || o.value === undefined) problems.push(`${at}.value is required for ${o.op}`);
    else literal(o.value, `${at}.value`);
    if ((o.op === 'in' || o.op === 'nin') && !Array.isArray(o.value)) problems.push(`${at}.value must be an array for ${o.op}`);
    if (STRING_OPS.includes(o.op) && typeof o.value !== 'string') problems.push(`${at}.value must be a string for ${o.op}`);
    if (['lt', 'lte', 'gt', 'gte'].includes(o.op) && typeof o.value !== 'number' && typeof o.value !== 'string')
      problems.push(`${at}.value must be a number or a string for ${o.op}`);
    if (o.i !== undefined && typeof o.i !== 'boolean') problems.push(`${at}.i must be a boolean`);
  };
  check(input, 'when', 0);
  if (problems.length) return { ok: false, error: `malformed condition: ${problems.slice(0, 10).join('; ')}` };
  return { ok: true, value: input as Cond };
}
