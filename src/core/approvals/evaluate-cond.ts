/**
 * Evaluation of approval conditions ({@link Cond}, language 1) over a call's arguments. Pure and
 * deterministic (workflow code re-evaluates on replay): no RegExp, no locale, bounded work. Three-valued:
 * `unknown` when the condition cannot tell (a comparison of the wrong types, a string past the caps, too
 * much work); a missing path does not match (`false`).
 */
import type { JsonValue } from '../messages/json';
import { COND_LIMITS, type Cond, type CondCompare, type CondResult } from './conditions';

/** Work units one evaluation may spend (elements visited, characters compared); past it the answer is `unknown`. */
export const COND_WORK_LIMIT = 1_000_000;

class TooMuchWork extends Error {}

/** Whether `cond` holds for `args`. */
export function evaluateCond(cond: Cond, args: JsonValue | undefined): CondResult {
  const budget = { left: COND_WORK_LIMIT };
  try {
    return evaluate(cond, args, budget);
  } catch (err) {
    if (err instanceof TooMuchWork) return 'unknown';
    throw err;
  }
}

type Budget = { left: number };

function spend(budget: Budget, units: number): void {
  budget.left -= units;
  if (budget.left < 0) throw new TooMuchWork();
}

function evaluate(c: Cond, args: JsonValue | undefined, budget: Budget): CondResult {
  spend(budget, 1);
  if ('all' in c) {
    let result: CondResult = true;
    for (const x of c.all) {
      const r = evaluate(x, args, budget);
      if (r === false) return false;
      if (r === 'unknown') result = 'unknown';
    }
    return result;
  }
  if ('any' in c) {
    let result: CondResult = false;
    for (const x of c.any) {
      const r = evaluate(x, args, budget);
      if (r === true) return true;
      if (r === 'unknown') result = 'unknown';
    }
    return result;
  }
  if ('not' in c) {
    const r = evaluate(c.not, args, budget);
    return r === 'unknown' ? 'unknown' : !r;
  }
  const actual = valueAt(args, c.path);
  if (c.op === 'exists') return actual !== undefined;
  if (actual === undefined) return false;
  if (c.op === 'some' || c.op === 'every') {
    if (!Array.isArray(actual)) return 'unknown';
    const some = c.op === 'some';
    let result: CondResult = !some;
    for (const element of actual) {
      const r = evaluate(c.cond, element, budget);
      if (r === some) return some;
      if (r === 'unknown') result = 'unknown';
    }
    return result;
  }
  return compare(c as CondCompare, actual, budget);
}

/** The value at a dotted path (own properties only; array elements by index), or undefined. */
export function valueAt(root: JsonValue | undefined, path: string): JsonValue | undefined {
  let v: JsonValue | undefined = root;
  for (const segment of path.split('.')) {
    if (v === null || v === undefined || typeof v !== 'object') return undefined;
    if (Array.isArray(v)) {
      if (!/^(0|[1-9][0-9]{0,8})$/.test(segment)) return undefined;
      v = v[Number(segment)];
    } else {
      v = Object.prototype.hasOwnProperty.call(v, segment) ? v[segment] : undefined;
    }
  }
  return v;
}

function compare(c: CondCompare, actual: JsonValue, budget: Budget): CondResult {
  if (typeof actual === 'string' && actual.length > COND_LIMITS.maxCompared) return 'unknown';
  const fold = (s: string): string => (c.i ? s.toLowerCase() : s);
  switch (c.op) {
    case 'eq':
    case 'ne': {
      const same =
        c.i && typeof actual === 'string' && typeof c.value === 'string'
          ? fold(actual) === fold(c.value)
          : jsonEqual(actual, c.value, budget);
      return c.op === 'eq' ? same : !same;
    }
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte': {
      let order: number;
      if (typeof actual === 'number' && typeof c.value === 'number') order = actual - c.value;
      else if (typeof actual === 'string' && typeof c.value === 'string') {
        spend(budget, Math.min(actual.length, c.value.length));
        order = actual < c.value ? -1 : actual > c.value ? 1 : 0;
      } else return 'unknown';
      return c.op === 'lt' ? order < 0 : c.op === 'lte' ? order <= 0 : c.op === 'gt' ? order > 0 : order >= 0;
    }
    case 'in':
    case 'nin': {
      if (!Array.isArray(c.value)) return 'unknown';
      const found = c.value.some((v) =>
        c.i && typeof actual === 'string' && typeof v === 'string' ? fold(actual) === fold(v) : jsonEqual(actual, v, budget),
      );
      return c.op === 'in' ? found : !found;
    }
    case 'glob':
    case 'startsWith':
    case 'endsWith': {
      if (typeof actual !== 'string' || typeof c.value !== 'string') return 'unknown';
      const a = fold(actual);
      const p = fold(c.value);
      spend(budget, a.length);
      if (c.op === 'startsWith') return a.startsWith(p);
      if (c.op === 'endsWith') return a.endsWith(p);
      return glob(p, a, budget);
    }
    case 'contains': {
      if (typeof actual === 'string') {
        if (typeof c.value !== 'string') return 'unknown';
        spend(budget, actual.length);
        return fold(actual).includes(fold(c.value));
      }
      if (Array.isArray(actual)) return actual.some((v) => jsonEqual(v, c.value, budget));
      return 'unknown';
    }
  }
}

/** Deep JSON equality (object keys in any order). */
export function jsonEqual(a: JsonValue, b: JsonValue, budget: Budget = { left: COND_WORK_LIMIT }): boolean {
  spend(budget, 1);
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, n) => jsonEqual(x, b[n] as JsonValue, budget));
  const ao = a as { [k: string]: JsonValue };
  const bo = b as { [k: string]: JsonValue };
  const keys = Object.keys(ao);
  if (keys.length !== Object.keys(bo).length) return false;
  return keys.every((k) => Object.prototype.hasOwnProperty.call(bo, k) && jsonEqual(ao[k] as JsonValue, bo[k] as JsonValue, budget));
}

/**
 * Whether the whole of `text` matches `pattern`: `*` any run of characters (also none), `?` exactly one,
 * everything else itself. No backtracking beyond one star: the literal pieces between stars are found
 * leftmost-first, which is exact for this syntax.
 */
export function glob(pattern: string, text: string, budget: Budget = { left: COND_WORK_LIMIT }): boolean {
  const pieces = pattern.split('*');
  const first = pieces[0] as string;
  if (pieces.length === 1) return text.length === first.length && matchesAt(first, text, 0, budget);
  const last = pieces[pieces.length - 1] as string;
  if (first.length + last.length > text.length) return false;
  if (!matchesAt(first, text, 0, budget) || !matchesAt(last, text, text.length - last.length, budget)) return false;
  let at = first.length;
  const end = text.length - last.length;
  for (let n = 1; n < pieces.length - 1; n++) {
    const piece = pieces[n] as string;
    let found = -1;
    for (let start = at; start + piece.length <= end; start++) {
      if (matchesAt(piece, text, start, budget)) {
        found = start;
        break;
      }
    }
    if (found < 0) return false;
    at = found + piece.length;
  }
  return true;
}

/** Whether `piece` (`?` matching any one character) matches `text` at `start`. */
function matchesAt(piece: string, text: string, start: number, budget: Budget): boolean {
  if (start + piece.length > text.length) return false;
  let k = 0;
  while (k < piece.length && (piece[k] === '?' || piece[k] === text[start + k])) k++;
  spend(budget, 1 + k);
  return k === piece.length;
}
