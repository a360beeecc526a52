/** Whether a call's arguments can be run (core/call-input.ts): a JSON object, or an error quoting what was sent. */
import { describe, expect, it } from 'vitest';
import type { ToolUseBlock } from '../../core/messages';
import { invalidCallInput } from '../../core/call-input';
import { use } from './core-fixtures';

describe('invalidCallInput', () => {
  it('accepts any JSON object', () => {
    expect(invalidCallInput(use('c', 't', {}))).toBeUndefined();
    expect(invalidCallInput(use('c', 't', { a: [1, { b: null }] }))).toBeUndefined();
  });

  it('refuses an object that came with a parse error (the input is then not what the model meant)', () => {
    const block: ToolUseBlock = { ...use('c', 't', { partial: true }), inputError: 'bad token' };
    expect(invalidCallInput(block)).toBe(
      'Invalid arguments for tool "t": they are not valid JSON (bad token). You sent: {"partial":true}. The tool was not run; call it again with a JSON object.',
    );
  });

  it('quotes at most 500 characters of what was sent, saying how much was left out', () => {
    const raw = 'x'.repeat(750);
    const text = invalidCallInput({ ...use('c', 't', raw), inputError: 'Unexpected token x' });
    expect(text).toContain(`You sent: ${'x'.repeat(500)}… [250 more chars]. The tool was not run`);
    const exact = invalidCallInput({ ...use('c', 't', 'y'.repeat(500)), inputError: 'e' });
    expect(exact).toContain(`You sent: ${'y'.repeat(500)}. The tool`);
  });

  it('names the tool and the kind of value it got', () => {
    expect(invalidCallInput(use('c', 'search', ['a']))).toMatch(/^Invalid arguments for tool "search": expected a JSON object, got an array\./);
  });
});
