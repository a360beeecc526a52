/**
 * A chat turn streamed from its run: the run's stream (durable events and live deltas) through a
 * {@link TurnTranslator}, until the turn is answered, the run ends, or the turn waits for a person.
 */
import type { AgentEvent } from '../../core/events/events';
import type { ChatCursor } from '../../core/chat/cursor';
import type { CursoredChunk } from '../../core/chat/ui-message-chunks';
import type { ChatStreamEvent } from '../../core/chat/turn-translator';
import { TurnTranslator } from '../../core/chat/turn-translator';
import type { AgentRun } from '../run';
import { NoWorkerError } from '../errors';
import { sleep } from '../abortable';

/** How long a turn that waits for a person may stay quiet before its stream ends (`finish`: `tool-calls`). */
export const PAUSE_QUIET_MS = 400;

/** Where a turn's stream starts. */
export type TurnStart =
  /** The turn starting at `seq`, from its beginning or after a cursor. */
  | { turnStart: number; after?: ChatCursor }
  /**
   * The turn holding the user message sent by `by`: the one with id `id` when given (ids are the chat's
   * message ids, unique), else the first with text `text` at or after event `from`.
   */
  | { locate: { text: string; by: string; id?: string; from: number } };

/** The chunks of one turn of chat `chatId`, live. Ends when the turn ends or `signal` aborts. */
export async function* turnChunks(run: AgentRun, chatId: string, start: TurnStart, signal: AbortSignal): AsyncGenerator<CursoredChunk> {
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  const from = 'locate' in start ? start.locate.from : start.turnStart;
  const iterator = run.stream({ after: from, signal: stop.signal })[Symbol.asyncIterator]();
  let translator =
    'locate' in start
      ? undefined
      : new TurnTranslator({ chatId, turnStart: start.turnStart, ...(start.after ? { after: start.after } : {}) });
  /** While locating: events of the latest turn seen, and deltas. */
  let held: ChatStreamEvent[] = [];
  let firstOfTurn: { seq: number; turn: number } | undefined;
  try {
    let next = iterator.next();
    for (;;) {
      let r: IteratorResult<ChatStreamEvent> | 'quiet';
      if (translator?.paused) r = await Promise.race([next, sleep(PAUSE_QUIET_MS, stop.signal).then(() => 'quiet' as const)]);
      else r = await next;
      if (r === 'quiet') {
        if (stop.signal.aborted) return;
        yield* translator!.finishPaused();
        return;
      }
      if (r.done) break;
      next = iterator.next();
      const e = r.value;
      if (!translator) {
        // The message never joined the conversation: say why, and end.
        const refused = 'locate' in start && e.type === 'message_refused' && e.by === start.locate.by;
        if (refused || e.type === 'done') {
          const why = refused ? `the message was refused: ${e.reason}` : 'the session ended before it took the message';
          yield { chunk: { type: 'error', errorText: why }, cursor: '' };
          yield { chunk: { type: 'finish', finishReason: 'error' }, cursor: '' };
          return;
        }
        if (e.type === 'user_message' && (!firstOfTurn || firstOfTurn.turn !== e.turn)) {
          firstOfTurn = { seq: e.seq, turn: e.turn };
          held = held.filter((h) => !('seq' in h));
        }
        if (held.length < 10_000) held.push(e);
        if ('locate' in start && e.type === 'user_message' && isTheMessage(e, start.locate)) {
          translator = new TurnTranslator({ chatId, turnStart: firstOfTurn!.seq });
          const pending: ChatStreamEvent[] = [...held.filter((h) => 'seq' in h), ...held.filter((h) => !('seq' in h))];
          held = [];
          for (const h of pending) yield* translator.push(h);
        }
        continue;
      }
      yield* translator.push(e);
      if (translator.ended) return;
    }
    if (translator && !translator.ended && !stop.signal.aborted)
      yield { chunk: { type: 'finish', finishReason: 'other' }, cursor: translator.cursor };
  } finally {
    stop.abort();
    signal.removeEventListener('abort', onAbort);
    void iterator.return?.(undefined)?.catch(() => undefined);
  }
}

/** How long a read of a chat's events waits for a worker to answer (a running run's events are a query). */
export const WORKER_WAIT_MS = 20_000;

/**
 * Every durable event of the run so far (a running run's need a worker: waits for one for up to
 * {@link WORKER_WAIT_MS}, then throws `NoWorkerError`).
 */
export async function allEvents(run: AgentRun, signal?: AbortSignal): Promise<AgentEvent[]> {
  const deadline = Date.now() + WORKER_WAIT_MS;
  const events: AgentEvent[] = [];
  let cursor = 0;
  for (;;) {
    let page;
    try {
      page = await run.readEvents(cursor);
    } catch (err) {
      if (err instanceof NoWorkerError && Date.now() < deadline && !signal?.aborted) {
        await sleep(500, signal);
        continue;
      }
      throw err;
    }
    events.push(...(page.events as AgentEvent[]));
    if (page.events.length === 0 || page.done) return events;
    cursor = page.next;
  }
}

/** Whether `e` is the located message: by its id when the sender gave one, else by its text and sender. */
function isTheMessage(e: { text: string; by?: string; id?: string }, m: { text: string; by: string; id?: string }): boolean {
  if (e.by !== m.by) return false;
  return m.id !== undefined ? e.id === m.id : e.text === m.text;
}
