/** The live window a streaming model call carries in its heartbeat details (streaming/live-window.ts). */
import { describe, expect, it } from 'vitest';
import { jsonBytes } from '../../src/core/messages/json';
import { LIVE_WINDOW_BYTES, LiveWindow } from '../../src/integrations/streaming/live-window';

describe('LiveWindow', () => {
  it('keeps the newest deltas within its bound of JSON bytes, numbered', () => {
    const w = new LiveWindow(1, 1, 100);
    for (let i = 0; i < 10; i++) expect(w.push({ type: 'text', text: `${i}`.repeat(20) })).toBe(i);
    const d = w.details();
    expect(jsonBytes(d.deltas)).toBeLessThanOrEqual(100);
    expect(d.first + d.deltas.length).toBe(10);
    expect(d.deltas.at(-1)).toEqual({ type: 'text', text: '9'.repeat(20) });
  });

  it('counts bytes, not characters: escaped and multi-byte text stays within the bound', () => {
    const w = new LiveWindow(1, 1, 1000);
    for (let i = 0; i < 50; i++) w.push({ type: 'text', text: '"\n€'.repeat(20) });
    expect(jsonBytes(w.details())).toBeLessThan(1200);
  });

  it('a single delta larger than the window is not carried: the window is empty and the numbers show the gap', () => {
    const w = new LiveWindow(3, 1);
    w.push({ type: 'text', text: 'before' });
    expect(w.push({ type: 'tool_args', call: 0, tool: 't', json: 'x'.repeat(2_500_000) })).toBe(1);
    expect(w.details()).toEqual({ live: 1, step: 3, attempt: 1, first: 2, deltas: [] });
    expect(jsonBytes(w.details())).toBeLessThan(LIVE_WINDOW_BYTES);
    expect(w.push({ type: 'text', text: 'after' })).toBe(2);
    expect(w.details()).toMatchObject({ first: 2, deltas: [{ type: 'text', text: 'after' }] });
  });
});
