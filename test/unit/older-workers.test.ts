import { describe, expect, it } from 'vitest';
import { withoutUnknownFields } from '../../src/client/older-workers';

const d = { callId: 'c1', decision: 'approve' as const, by: 'ops:alice', path: 'cli' as const };

describe('withoutUnknownFields (a decision for a worker older than its fields)', () => {
  it('drops the informational fields an older worker names as unknown', () => {
    expect(withoutUnknownFields(d, 'malformed decision: unknown field(s): path')).toEqual({
      callId: 'c1',
      decision: 'approve',
      by: 'ops:alice',
    });
    expect(withoutUnknownFields({ ...d, updateId: 'u' }, 'malformed decision: unknown field(s): path, updateId')).toEqual({
      callId: 'c1',
      decision: 'approve',
      by: 'ops:alice',
    });
  });

  it('keeps the refusal when a field changes the decision, another problem is named, or the field was not sent', () => {
    expect(
      withoutUnknownFields({ ...d, scope: 'run', match: 'tool' }, 'malformed decision: unknown field(s): match, path'),
    ).toBeUndefined();
    expect(withoutUnknownFields(d, 'malformed decision: scope must be "call" or "tool"; unknown field(s): path')).toBeUndefined();
    expect(
      withoutUnknownFields({ callId: 'c1', decision: 'approve', by: 'x' }, 'malformed decision: unknown field(s): path'),
    ).toBeUndefined();
    expect(withoutUnknownFields(d, 'call "c1" is not waiting for approval')).toBeUndefined();
  });
});
