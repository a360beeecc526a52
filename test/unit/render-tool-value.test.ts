/** How tool return values become the text the model reads (activities/tool.ts renderToolValue). */
import { describe, expect, it } from 'vitest';
import { renderToolValue } from '../../activities/tool';

describe('renderToolValue', () => {
  it('passes strings through unchanged', () => {
    expect(renderToolValue('plain text')).toBe('plain text');
    expect(renderToolValue('')).toBe('');
    expect(renderToolValue('{"already":"json"}')).toBe('{"already":"json"}');
  });

  it('renders undefined (a tool that returns nothing) as empty text', () => {
    expect(renderToolValue(undefined)).toBe('');
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
