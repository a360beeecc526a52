/**
 * Conditions as text: {@link renderCond} for people (console, CLI, events), and {@link parseWhen}, the
 * small infix form the CLI accepts (`amount<=50`, `env=staging`, `command~"rm -rf *"`, joined by `and`).
 */
import type { JsonValue } from '../messages/json';
import { parseCond, type Cond, type CondCompare, type CondCompareOp } from './conditions';

const SYMBOLS: Partial<Record<CondCompareOp, string>> = { eq: '==', ne: '!=', lt: '<', lte: '<=', gt: '>', gte: '>=' };

/** A condition as one readable line, e.g. `amount <= 50 and env == "staging"`. */
export function renderCond(c: Cond): string {
  return render(c, true);
}

function render(c: Cond, top: boolean): string {
  const group = (text: string): string => (top ? text : `(${text})`);
  if ('all' in c) return c.all.length ? group(c.all.map((x) => render(x, false)).join(' and ')) : 'true';
  if ('any' in c) return c.any.length ? group(c.any.map((x) => render(x, false)).join(' or ')) : 'false';
  if ('not' in c) return `not ${render(c.not, false)}`;
  if (c.op === 'exists') return `${c.path} exists`;
  if (c.op === 'some' || c.op === 'every') return `${c.op} ${c.path}: ${render(c.cond, false)}`;
  const cmp = c as CondCompare;
  const text = `${cmp.path} ${SYMBOLS[cmp.op] ?? cmp.op} ${literal(cmp.value)}`;
  return cmp.i ? `${text} (ignoring case)` : text;
}

function literal(v: JsonValue): string {
  return JSON.stringify(v) ?? 'null';
}

// Longest first, so `<=` is not read as `<`.
const INFIX: ReadonlyArray<[string, CondCompareOp]> = [
  ['<=', 'lte'],
  ['>=', 'gte'],
  ['!=', 'ne'],
  ['==', 'eq'],
  ['=', 'eq'],
  ['<', 'lt'],
  ['>', 'gt'],
  ['~', 'glob'],
];

/**
 * Parse the CLI's conditions: each expression is `path OP value` (OP one of `<= >= != == = < > ~`, `~`
 * being a glob), several in one string joined by ` and `, and every expression must hold. A value that
 * reads as JSON (`50`, `true`, `"x y"`, `["a","b"]`) is that JSON, anything else a string (`env=staging`);
 * `path=[…]` means "one of". The result is checked as any condition.
 */
export function parseWhen(expressions: readonly string[]): { ok: true; value: Cond } | { ok: false; error: string } {
  const parts: Cond[] = [];
  for (const expression of expressions.flatMap((e) => e.split(/\s+and\s+/))) {
    const text = expression.trim();
    if (!text) continue;
    let hit: { at: number; symbol: string; op: CondCompareOp } | undefined;
    for (const [symbol, op] of INFIX) {
      const at = text.indexOf(symbol);
      if (at > 0 && (!hit || at < hit.at || (at === hit.at && symbol.length > hit.symbol.length))) hit = { at, symbol, op };
    }
    if (!hit) return { ok: false, error: `cannot read condition "${text}": write path OP value, OP one of <= >= != == = < > ~` };
    const path = text.slice(0, hit.at).trim();
    const raw = text.slice(hit.at + hit.symbol.length).trim();
    let value: JsonValue = raw;
    try {
      value = JSON.parse(raw) as JsonValue;
    } catch {
      // A bare word: the string itself.
    }
    let op = hit.op;
    if (Array.isArray(value) && (op === 'eq' || op === 'ne')) op = op === 'eq' ? 'in' : 'nin';
    parts.push({ path, op, value });
  }
  if (!parts.length) return { ok: false, error: 'no condition given' };
  return parseCond(parts.length === 1 ? parts[0] : { all: parts });
}
