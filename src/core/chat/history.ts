/**
 * A chat's turns from its run's durable events: where each turn starts, whether the last one is in
 * progress, and the conversation as UI messages (ids as in the streams: the assistant message of turn
 * `n` is `<chatId>:<n>`).
 */
import type { AgentEvent, UserMessageEvent } from '../events/events';
import { MessageAssembler } from './apply-chunks';
import { TurnTranslator } from './turn-translator';
import type { ChatMessage } from './ui-message-chunks';

/** One user turn: its user messages and every event until the next turn. */
export interface ChatTurn {
  turn: number;
  /** `seq` of its first user message. */
  start: number;
  userMessages: UserMessageEvent[];
  events: AgentEvent[];
}

/** The run's events split into user turns (events before the first user message are left out). */
export function chatTurns(events: readonly AgentEvent[]): ChatTurn[] {
  const turns: ChatTurn[] = [];
  for (const e of events) {
    const last = turns[turns.length - 1];
    if (e.type === 'user_message' && (!last || e.turn !== last.turn)) {
      turns.push({ turn: e.turn, start: e.seq, userMessages: [e], events: [e] });
      continue;
    }
    if (!last) continue;
    if (e.type === 'user_message') last.userMessages.push(e);
    last.events.push(e);
  }
  return turns;
}

/**
 * Where the chat's last turn stands: `none` (no turn yet), `answered` (the session waits for a message),
 * `ended` (the run is over), `paused` (it waits for an approval; `lastPause` is the cursor there),
 * `running`.
 */
export interface TurnStatus {
  state: 'none' | 'answered' | 'ended' | 'paused' | 'running';
  turn?: ChatTurn;
  lastPause?: string;
}

/** Where the last turn of `events` stands (see {@link TurnStatus}). */
export function lastTurnStatus(chatId: string, events: readonly AgentEvent[]): TurnStatus {
  const turn = chatTurns(events).at(-1);
  if (!turn) return { state: events.some((e) => e.type === 'done') ? 'ended' : 'none' };
  const t = new TurnTranslator({ chatId, turnStart: turn.start });
  let ended = false;
  for (const e of turn.events) {
    t.push(e);
    if (t.ended) ended = true;
  }
  const lastPause = t.lastPause !== undefined ? { lastPause: t.lastPause } : {};
  if (ended) return { state: turn.events.some((e) => e.type === 'done') ? 'ended' : 'answered', turn, ...lastPause };
  return { state: t.paused ? 'paused' : 'running', turn, ...lastPause };
}

/** The conversation so far as UI messages: each turn's user messages, then its assistant message (once it has parts). */
export function chatHistory(chatId: string, events: readonly AgentEvent[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (const turn of chatTurns(events)) {
    turn.userMessages.forEach((u, i) =>
      messages.push({ id: `${chatId}:${turn.turn}:u${i}`, role: 'user', parts: [{ type: 'text', text: u.text }] }),
    );
    const t = new TurnTranslator({ chatId, turnStart: turn.start });
    const assembler = new MessageAssembler();
    for (const e of turn.events) for (const { chunk } of t.push(e)) assembler.apply(chunk);
    if (assembler.message.parts.length > 0) messages.push(assembler.message);
  }
  return messages;
}
