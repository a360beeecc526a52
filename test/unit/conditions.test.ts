// The approval condition language: evaluation (three-valued), glob, rendering and the CLI's infix form.
import { describe, expect, it } from 'vitest';
import type { Cond } from '../../src/core/approvals/conditions';
import { COND_WORK_LIMIT, evaluateCond, glob, jsonEqual, valueAt } from '../../src/core/approvals/evaluate-cond';
import { parseWhen, renderCond } from '../../src/core/approvals/render-cond';
import type { JsonValue } from '../../src/core/messages/json';

const args: JsonValue = {
  amount: 42,
  currency: 'EUR',
  env: 'staging',
  command: 'rm -rf /tmp/x',
  flags: ['force', 'quiet'],
  items: [
    { sku: 'a', qty: 1 },
    { sku: 'b', qty: 5 },
  ],
  meta: { owner: null, tags: { team: 'ops' } },
  empty: [],
};

describe('evaluateCond', () => {
  it.each<[Cond, true | false | 'unknown']>([
    [{ path: 'amount', op: 'lte', value: 50 }, true],
    [{ path: 'amount', op: 'lte', value: 42 }, true],
    [{ path: 'amount', op: 'lt', value: 42 }, false],
    [{ path: 'amount', op: 'gt', value: 10 }, true],
    [{ path: 'amount', op: 'gte', value: 43 }, false],
    [{ path: 'amount', op: 'lte', value: '50' }, 'unknown'], // no coercion
    [{ path: 'currency', op: 'lt', value: 'USD' }, true],
    [{ path: 'env', op: 'eq', value: 'staging' }, true],
    [{ path: 'env', op: 'eq', value: 'Staging' }, false],
    [{ path: 'env', op: 'eq', value: 'STAGING', i: true }, true],
    [{ path: 'env', op: 'ne', value: 'prod' }, true],
    [{ path: 'amount', op: 'eq', value: '42' }, false], // strict types
    [{ path: 'meta.tags', op: 'eq', value: { team: 'ops' } }, true], // deep
    [{ path: 'flags', op: 'eq', value: ['quiet', 'force'] }, false], // order matters in arrays
    [{ path: 'env', op: 'in', value: ['dev', 'staging'] }, true],
    [{ path: 'env', op: 'nin', value: ['dev', 'staging'] }, false],
    [{ path: 'command', op: 'glob', value: 'rm -rf *' }, true],
    [{ path: 'command', op: 'glob', value: 'RM *', i: true }, true],
    [{ path: 'command', op: 'glob', value: 'rm -r?' }, false],
    [{ path: 'amount', op: 'glob', value: '4*' }, 'unknown'],
    [{ path: 'command', op: 'contains', value: '/tmp' }, true],
    [{ path: 'flags', op: 'contains', value: 'force' }, true],
    [{ path: 'flags', op: 'contains', value: 'loud' }, false],
    [{ path: 'amount', op: 'contains', value: 4 }, 'unknown'],
    [{ path: 'command', op: 'startsWith', value: 'rm ' }, true],
    [{ path: 'command', op: 'endsWith', value: '/x' }, true],
    [{ path: 'items.1.sku', op: 'eq', value: 'b' }, true],
    [{ path: 'items.2.sku', op: 'eq', value: 'c' }, false], // missing: no match
    [{ path: 'nothere', op: 'ne', value: 1 }, false], // missing: no match, whatever the op
    [{ path: 'meta.owner', op: 'exists' }, true], // null is present
    [{ path: 'meta.nobody', op: 'exists' }, false],
    [{ path: 'amount.toString', op: 'exists' }, false],
    [{ path: 'constructor', op: 'exists' }, false], // own properties only
    [{ path: 'items', op: 'some', cond: { path: 'qty', op: 'gt', value: 3 } }, true],
    [{ path: 'items', op: 'every', cond: { path: 'qty', op: 'gt', value: 3 } }, false],
    [{ path: 'empty', op: 'every', cond: { path: 'qty', op: 'gt', value: 3 } }, true],
    [{ path: 'empty', op: 'some', cond: { path: 'qty', op: 'gt', value: 3 } }, false],
    [{ path: 'env', op: 'some', cond: { path: 'x', op: 'exists' } }, 'unknown'],
    [{ all: [] }, true],
    [{ any: [] }, false],
    [
      {
        all: [
          { path: 'amount', op: 'lte', value: 50 },
          { path: 'env', op: 'eq', value: 'staging' },
        ],
      },
      true,
    ],
    [
      {
        all: [
          { path: 'amount', op: 'lte', value: '50' },
          { path: 'env', op: 'eq', value: 'prod' },
        ],
      },
      false,
    ], // false beats unknown
    [
      {
        all: [
          { path: 'amount', op: 'lte', value: '50' },
          { path: 'env', op: 'eq', value: 'staging' },
        ],
      },
      'unknown',
    ],
    [
      {
        any: [
          { path: 'amount', op: 'lte', value: '50' },
          { path: 'env', op: 'eq', value: 'staging' },
        ],
      },
      true,
    ], // true beats unknown
    [
      {
        any: [
          { path: 'amount', op: 'lte', value: '50' },
          { path: 'env', op: 'eq', value: 'prod' },
        ],
      },
      'unknown',
    ],
    [{ not: { path: 'env', op: 'eq', value: 'prod' } }, true],
    [{ not: { path: 'amount', op: 'lt', value: '1' } }, 'unknown'],
  ])('%j → %s', (cond, expected) => {
    expect(evaluateCond(cond, args)).toBe(expected);
  });

  it('cannot tell about a string past the cap', () => {
    expect(evaluateCond({ path: 's', op: 'startsWith', value: 'a' }, { s: 'a'.repeat(65_537) })).toBe('unknown');
    expect(evaluateCond({ path: 's', op: 'startsWith', value: 'a' }, { s: 'a'.repeat(65_536) })).toBe(true);
  });

  it('cannot tell when the work is too much (nested quantifiers over big arrays)', () => {
    const big = Array.from({ length: 2000 }, (_, n) => ({ xs: Array.from({ length: 600 }, (_, k) => n * k) }));
    const cond: Cond = { path: 'rows', op: 'every', cond: { path: 'xs', op: 'every', cond: { path: 'nope', op: 'exists' } } };
    expect(evaluateCond(cond, { rows: big.map(() => ({ xs: [{}] })) })).toBe(false);
    const heavy: Cond = { path: 'rows', op: 'every', cond: { path: 'xs', op: 'every', cond: { path: 'z', op: 'ne', value: -1 } } };
    expect(2000 * 600 > COND_WORK_LIMIT).toBe(true);
    expect(evaluateCond(heavy, { rows: big.map((r) => ({ xs: r.xs.map((z) => ({ z })) })) })).toBe('unknown');
  });

  it('no args at all: nothing matches', () => {
    expect(evaluateCond({ path: 'a', op: 'eq', value: 1 }, undefined)).toBe(false);
  });
});

describe('glob', () => {
  it.each<[string, string, boolean]>([
    ['', '', true],
    ['', 'a', false],
    ['*', '', true],
    ['*', 'anything', true],
    ['a*', 'abc', true],
    ['*c', 'abc', true],
    ['a*c', 'ac', true],
    ['a*c', 'ab', false],
    ['a?c', 'abc', true],
    ['a?c', 'ac', false],
    ['*b*b*', 'abab', true],
    ['*b*b*', 'ab', false],
    ['a*b*c', 'aXbYbZc', true],
    ['a*bc', 'abcbc', true],
    ['ab*ba', 'aba', false], // pieces may not overlap
    ['rm -rf *', 'rm -rf /', true],
    ['rm -rf *', 'rm -r /', false],
    ['**', 'x', true],
    ['.*', 'ab', false], // no regex meaning
    ['.*', '.ab', true],
  ])('%j ~ %j → %s', (pattern, text, expected) => {
    expect(glob(pattern, text)).toBe(expected);
  });

  it('is fast on a pathological pattern', () => {
    const text = 'a'.repeat(60_000);
    const t0 = performance.now();
    expect(glob(`*${'a*'.repeat(20)}b`, text)).toBe(false);
    expect(performance.now() - t0).toBeLessThan(500);
  });
});

describe('valueAt and jsonEqual', () => {
  it('walks own properties and array indices only', () => {
    expect(valueAt(args, 'items.0.qty')).toBe(1);
    expect(valueAt(args, 'items.01.qty')).toBeUndefined();
    expect(valueAt(args, 'items.length')).toBeUndefined();
    expect(valueAt(args, '__proto__')).toBeUndefined();
  });
  it('compares objects regardless of key order', () => {
    expect(jsonEqual({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(jsonEqual([1], { 0: 1 })).toBe(false);
  });
});

describe('renderCond', () => {
  it.each<[Cond, string]>([
    [{ path: 'amount', op: 'lte', value: 50 }, 'amount <= 50'],
    [
      {
        all: [
          { path: 'amount', op: 'lte', value: 50 },
          { path: 'env', op: 'eq', value: 'staging' },
        ],
      },
      'amount <= 50 and env == "staging"',
    ],
    [{ any: [{ path: 'a', op: 'exists' }, { not: { path: 'b', op: 'in', value: [1, 2] } }] }, 'a exists or not b in [1,2]'],
    [
      {
        all: [
          {
            any: [
              { path: 'a', op: 'gt', value: 1 },
              { path: 'b', op: 'lt', value: 2 },
            ],
          },
          { path: 'c', op: 'ne', value: null },
        ],
      },
      '(a > 1 or b < 2) and c != null',
    ],
    [{ path: 'command', op: 'glob', value: 'rm -rf *', i: true }, 'command glob "rm -rf *" (ignoring case)'],
    [{ path: 'items', op: 'some', cond: { path: 'qty', op: 'gt', value: 3 } }, 'some items: qty > 3'],
    [{ all: [] }, 'true'],
  ])('%j → %s', (cond, text) => {
    expect(renderCond(cond)).toBe(text);
  });
});

describe('parseWhen (CLI infix)', () => {
  it.each<[string[], Cond]>([
    [['amount<=50'], { path: 'amount', op: 'lte', value: 50 }],
    [['env=staging'], { path: 'env', op: 'eq', value: 'staging' }],
    [['env == "prod"'], { path: 'env', op: 'eq', value: 'prod' }],
    [['count!=0'], { path: 'count', op: 'ne', value: 0 }],
    [
      ['a>=1', 'b<2'],
      {
        all: [
          { path: 'a', op: 'gte', value: 1 },
          { path: 'b', op: 'lt', value: 2 },
        ],
      },
    ],
    [
      ['a>1 and b=x'],
      {
        all: [
          { path: 'a', op: 'gt', value: 1 },
          { path: 'b', op: 'eq', value: 'x' },
        ],
      },
    ],
    [['command~rm -rf *'], { path: 'command', op: 'glob', value: 'rm -rf *' }],
    [['env=["dev","staging"]'], { path: 'env', op: 'in', value: ['dev', 'staging'] }],
    [['env!=["prod"]'], { path: 'env', op: 'nin', value: ['prod'] }],
    [['dry=true'], { path: 'dry', op: 'eq', value: true }],
    [['items.0.sku=a=b'], { path: 'items.0.sku', op: 'eq', value: 'a=b' }],
  ])('%j', (input, cond) => {
    expect(parseWhen(input)).toEqual({ ok: true, value: cond });
  });

  it.each([[['amount']], [['=5']], [[]], [['  ']]])('refuses %j', (input) => {
    expect(parseWhen(input).ok).toBe(false);
  });

  it('refuses a glob on a number, as any condition', () => {
    expect(parseWhen(['a~5'])).toEqual({ ok: false, error: 'malformed condition: when.value must be a string for glob' });
  });
});
