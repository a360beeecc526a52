/** How tool return values become the text the model reads (activities/tool.ts renderToolValue). */
import { describe, expect, it } from 'vitest';
import { renderToolValue } from '../../src/activities/tool';

describe('renderToolValue', () => {
  it('passes strings through unchanged', () => {
    expect(renderToolValue('plain text')).toBe('plain text');
    expect(renderToolValue('')).toBe('');
    expect(renderToolValue('{"already":"json"}')).toBe('{"already":"json"}');
  });

  it('refuses undefined (a tool that returns nothing) and values JSON would silently change, saying what and where', () => {
    expect(() => renderToolValue(undefined)).toThrow('it returned undefined (no value)');
    expect(() => renderToolValue(Symbol('s'))).toThrow('it is a Symbol (Symbol(s)), which JSON cannot represent');
    expect(() => renderToolValue({ a: [1, NaN] })).toThrow('it contains, at index 1, the number NaN, which JSON cannot represent');
    expect(() => renderToolValue({ top: -Infinity })).toThrow('it contains, under the key "top", the number -Infinity');
    expect(() => renderToolValue(new Map())).toThrow('it is a Map');
    expect(() => renderToolValue({ s: new Set() })).toThrow('under the key "s", a Set');
    expect(() => renderToolValue(() => 1)).toThrow('it is a function');
    expect(() => renderToolValue({ p: Promise.resolve(1) })).toThrow('a Promise (not awaited)');
  });

  it('keeps what JSON represents faithfully: an absent property, toJSON', () => {
    expect(renderToolValue({ a: undefined, b: 1 })).toBe('{\n  "b": 1\n}');
  });

  it('renders other values as indented JSON', () => {
    expect(renderToolValue({ a: 1, b: ['x', null] })).toBe('{\n  "a": 1,\n  "b": [\n    "x",\n    null\n  ]\n}');
    expect(renderToolValue([1, 2])).toBe('[\n  1,\n  2\n]');
    expect(renderToolValue(42)).toBe('42');
    expect(renderToolValue(false)).toBe('false');
    expect(renderToolValue(null)).toBe('null');
    expect(renderToolValue({ when: new Date('2025-01-02T03:04:05.000Z') })).toBe('{\n  "when": "2025-01-02T03:04:05.000Z"\n}');
  });
});
