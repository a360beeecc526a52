/** The run event log read by cursor (core/event-log.ts). */
import { describe, expect, it } from 'vitest';
import type { AgentEventBody } from '../../src/core/events/events';
import { EVENT_PAGE_BYTES, EVENT_PAGE_LIMIT, EVENT_PAGE_MAX, EventLog, recordedPage } from '../../src/core/events/event-log';
import { ZERO_USAGE } from '../../src/core/budget/usage';

function text(n: number): AgentEventBody {
  return { type: 'text', step: 1, text: `event ${n}` };
}
const DONE: AgentEventBody = { type: 'done', status: 'success', steps: 1, usage: ZERO_USAGE, costUsd: 0, finalText: 'ok' };

function clock(): () => Date {
  let t = Date.parse('2025-01-01T00:00:00.000Z');
  return () => new Date((t += 1000));
}

function logWith(count: number, done = false): EventLog {
  const log = new EventLog(clock());
  for (let i = 0; i < count; i++) log.push(text(i));
  if (done) log.push(DONE);
  return log;
}

describe('EventLog', () => {
  it('numbers events from 0 across pushes and stamps each push with the clock', () => {
    const log = new EventLog(clock());
    log.push(text(0), text(1));
    log.push(text(2));
    expect(log.size).toBe(3);
    const { events } = log.page();
    expect(events.map((e) => e.seq)).toEqual([0, 1, 2]);
    expect(events.map((e) => e.at)).toEqual(['2025-01-01T00:00:01.000Z', '2025-01-01T00:00:01.000Z', '2025-01-01T00:00:02.000Z']);
    expect(events[2]).toEqual({ type: 'text', step: 1, text: 'event 2', seq: 2, at: '2025-01-01T00:00:02.000Z' });
  });

  it('pages by cursor without gaps or repeats', () => {
    const log = logWith(5);
    const seen: number[] = [];
    let cursor = 0;
    const sizes: number[] = [];
    for (let i = 0; i < 4; i++) {
      const page = log.page(cursor, 2);
      sizes.push(page.events.length);
      seen.push(...page.events.map((e) => e.seq));
      expect(page.next).toBe(cursor + page.events.length);
      cursor = page.next;
    }
    expect(sizes).toEqual([2, 2, 1, 0]);
    expect(seen).toEqual([0, 1, 2, 3, 4]);
    expect(cursor).toBe(5);
  });

  it('sees events pushed after a page was read', () => {
    const log = logWith(2);
    const first = log.page();
    log.push(text(2));
    const second = log.page(first.next);
    expect(second.events.map((e) => e.seq)).toEqual([2]);
    expect(second.next).toBe(3);
  });

  it('pages EVENT_PAGE_MAX events by default, up to EVENT_PAGE_LIMIT when asked, within EVENT_PAGE_BYTES', () => {
    const log = logWith(EVENT_PAGE_LIMIT + 20);
    expect(log.page(0).events).toHaveLength(EVENT_PAGE_MAX);
    expect(log.page(0, 1_000_000).events).toHaveLength(EVENT_PAGE_LIMIT);
    const big = new EventLog(clock());
    for (let i = 0; i < 40; i++) big.push({ type: 'text', step: 1, text: 'x'.repeat(100_000) });
    const page = big.page(0, 1_000);
    expect(page.events.length).toBe(Math.floor(EVENT_PAGE_BYTES / 100_100));
    expect(JSON.stringify(page).length).toBeLessThanOrEqual(EVENT_PAGE_BYTES + 2048);
    expect(big.page(page.next, 1_000).events[0]?.seq).toBe(page.next);
    const huge = new EventLog(clock());
    huge.push({ type: 'text', step: 1, text: 'y'.repeat(2 * EVENT_PAGE_BYTES) });
    expect(huge.page(0).events).toHaveLength(1);
  });

  it('points a cursor before its first event to the execution holding it, from the chain of executions', () => {
    const chain = [
      { runId: 'r1', from: 0 },
      { runId: 'r2', from: 100 },
      { runId: 'r3', from: 250 },
    ];
    const log = new EventLog(clock(), { count: 400, runId: 'r3', chain });
    expect(log.page(0).earlier).toEqual({ runId: 'r1', before: 100 });
    expect(log.page(99).earlier).toEqual({ runId: 'r1', before: 100 });
    expect(log.page(100).earlier).toEqual({ runId: 'r2', before: 250 });
    expect(log.page(399).earlier).toEqual({ runId: 'r3', before: 400 });
    expect(log.page(400).earlier).toBeUndefined();
    expect(log.chain('r4')).toEqual([...chain, { runId: 'r4', from: 400 }]);
    // Without a chain (runs recorded before it was kept): the previous execution, which knows its own.
    expect(new EventLog(clock(), { count: 400, runId: 'r3' }).page(5).earlier).toEqual({ runId: 'r3', before: 400 });
    // A chain that forgot the oldest executions: its oldest one points further back.
    expect(new EventLog(clock(), { count: 400, runId: 'r3', chain: chain.slice(1) }).page(5).earlier).toEqual({ runId: 'r2', before: 250 });
  });

  it('serves the tail the previous execution carried, and points only older cursors to it', () => {
    const before = logWith(600);
    const tail = before.tail();
    expect(tail.length).toBe(500);
    expect(tail.at(-1)?.seq).toBe(599);
    const next = new EventLog(clock(), { count: 600, runId: 'r1', chain: [{ runId: 'r1', from: 0 }], tail });
    expect(next.size).toBe(600);
    expect(next.offset).toBe(100);
    const page = next.page(550);
    expect(page.earlier).toBeUndefined();
    expect(page.events.map((e) => e.seq)).toEqual(Array.from({ length: 50 }, (_, i) => 550 + i));
    expect(next.page(99).earlier).toEqual({ runId: 'r1', before: 600 });
    next.push(text(600));
    expect(next.page(599).events.map((e) => e.seq)).toEqual([599, 600]);
    expect(next.chain('r2').at(-1)).toEqual({ runId: 'r2', from: 100 });
    // A tail that does not end where the count says is not trusted.
    expect(new EventLog(clock(), { count: 700, runId: 'r1', tail }).offset).toBe(700);
    // Big events: the tail stays within its byte budget.
    const big = new EventLog(clock());
    for (let i = 0; i < 10; i++) big.push({ type: 'text', step: 1, text: 'z'.repeat(50_000) });
    expect(big.tail().length).toBe(2);
  });

  it('clamps the page size to 1..EVENT_PAGE_LIMIT', () => {
    const log = logWith(EVENT_PAGE_MAX + 20);
    expect(log.page(0).events).toHaveLength(EVENT_PAGE_MAX);
    expect(log.page(0, 0).events).toHaveLength(1);
    expect(log.page(0, -7).events).toHaveLength(1);
    expect(log.page(0, 2.9).events).toHaveLength(2);
    expect(log.page(0, Number.NaN).events).toHaveLength(EVENT_PAGE_MAX);
  });

  it('reads from the start for negative or non-numeric cursors', () => {
    const log = logWith(3);
    for (const bad of [-1, -100, Number.NaN, Number.POSITIVE_INFINITY]) {
      const page = log.page(bad);
      expect(page.events.map((e) => e.seq)).toEqual([0, 1, 2]);
      expect(page.next).toBe(3);
    }
    expect(log.page(1.7).events.map((e) => e.seq)).toEqual([1, 2]);
  });

  it('returns nothing past the end', () => {
    const page = logWith(3).page(10);
    expect(page.events).toEqual([]);
    expect(page.done).toBe(false);
  });

  it('says done only once the done event is in the log and the page reached the end', () => {
    const running = logWith(3);
    expect(running.page().done).toBe(false);

    const finished = logWith(3, true);
    expect(finished.page(0, 2)).toMatchObject({ next: 2, done: false });
    expect(finished.page(2, 2)).toMatchObject({ next: 4, done: true });
    expect(finished.page(4)).toMatchObject({ events: [], next: 4, done: true });
    expect(finished.page(2, 2).events.at(-1)?.type).toBe('done');
  });
});

describe('recorded events (a closed execution read from its history)', () => {
  it('pages what an execution recorded exactly as its log would have', () => {
    const log = logWith(7, true);
    const chunks = log.record();
    expect(chunks).toHaveLength(1);
    for (const [cursor, limit] of [
      [0, 500],
      [3, 2],
      [8, 10],
      [20, 5],
    ] as const)
      expect(recordedPage(chunks, cursor, limit)).toEqual(log.page(cursor, limit));
  });

  it('chunks a large log within the page byte budget, and pages across chunks', () => {
    const log = new EventLog(clock());
    const big = 'x'.repeat(400 * 1024);
    for (let i = 0; i < 9; i++) log.push({ type: 'text', step: 1, text: `${i}${big}` });
    log.push(DONE);
    const chunks = log.record();
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.map((c) => c.recordedEvents)).toEqual(chunks.map((_, i) => i));
    expect(chunks.flatMap((c) => c.events).map((e) => e.seq)).toEqual([...Array(10).keys()]);
    let cursor = 0;
    const seqs: number[] = [];
    for (;;) {
      const page = recordedPage(chunks, cursor, EVENT_PAGE_LIMIT);
      expect(page).toEqual(log.page(cursor, EVENT_PAGE_LIMIT));
      seqs.push(...page.events.map((e) => e.seq));
      cursor = page.next;
      if (page.done) break;
    }
    expect(seqs).toEqual([...Array(10).keys()]);
  });

  it('an execution that continued another points a cursor before its events to the execution that holds it', () => {
    const log = new EventLog(clock(), {
      count: 40,
      runId: 'r2',
      chain: [
        { runId: 'r1', from: 0 },
        { runId: 'r2', from: 20 },
      ],
    });
    log.push(text(40), DONE);
    const chunks = log.record();
    expect(recordedPage(chunks, 5)).toEqual(log.page(5));
    expect(recordedPage(chunks, 25)).toEqual(log.page(25));
    expect(recordedPage(chunks, 5).earlier).toEqual({ runId: 'r1', before: 20 });
    expect(recordedPage(chunks, 40)).toEqual(log.page(40));
  });
});
