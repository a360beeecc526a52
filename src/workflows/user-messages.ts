/**
 * A running agent's inbox: messages people send (the `message` signal, the validated `send` update) wait
 * here until the model's next call, and `end` closes a session. Lives in workflow state, rebuilt from
 * history on replay, so no message is lost or read twice.
 */
import { ApplicationFailure, setHandler } from '@temporalio/workflow';
import type { EventLog } from '../core/events/event-log';
import type { MessageReceipt, UserMessageInput } from '../core/messages/user-messages';
import { MAX_QUEUED_MESSAGES, parseUserMessage } from '../core/messages/user-messages';
import { endSignal, messageSignal, sendUpdate } from './definitions';
import { layerProblem } from '../core/prompt/layers';

/** Failure type of a refused `send` update: non-retryable, the reason is the message. */
export const MESSAGE_REFUSED = 'MessageRefused';

/** A message waiting for the model, and how it arrived. */
export interface QueuedMessage {
  message: UserMessageInput;
  via: 'signal' | 'update';
}

/** The inbox of one run. */
export class Inbox {
  private queue: QueuedMessage[] = [];
  private endRequested = false;
  /** Set once the run is ending: later messages are refused. */
  closed = false;
  /** The agent's prompt layers, once its spec is known: a message setting another is refused. */
  layers: ReadonlyArray<{ name: string }> | undefined;

  /**
   * @param log the run's event log
   * @param turn the run's current user turn (for receipts)
   */
  constructor(
    private readonly log: EventLog,
    private readonly turn: () => number,
  ) {}

  /** Register the `message` signal, the `send` update and the `end` signal. */
  install(): void {
    setHandler(messageSignal, (payload: unknown) => {
      const parsed = parseUserMessage(payload);
      const why = parsed.ok ? this.refusal(parsed.value) : parsed.error;
      if (why || !parsed.ok) {
        const by =
          payload && typeof payload === 'object' && typeof (payload as { by?: unknown }).by === 'string'
            ? (payload as { by: string }).by
            : undefined;
        this.log.push({ type: 'message_refused', ...(by ? { by } : {}), reason: why ?? 'malformed message' });
        return;
      }
      this.queue.push({ message: parsed.value, via: 'signal' });
    });
    setHandler(
      sendUpdate,
      (payload: unknown): MessageReceipt => {
        this.queue.push({ message: (parseUserMessage(payload) as { value: UserMessageInput }).value, via: 'update' });
        return { turn: this.turn() + 1, queued: this.queue.length };
      },
      {
        validator: (payload: unknown) => {
          const parsed = parseUserMessage(payload);
          if (!parsed.ok) throw ApplicationFailure.nonRetryable(parsed.error, MESSAGE_REFUSED);
          const why = this.refusal(parsed.value);
          if (why) throw ApplicationFailure.nonRetryable(why, MESSAGE_REFUSED);
        },
      },
    );
    setHandler(endSignal, () => {
      this.endRequested = true;
    });
  }

  /** What the next execution must keep when the run continues as new. */
  carried(): { messages: QueuedMessage[]; ended: boolean } {
    return { messages: [...this.queue], ended: this.endRequested };
  }

  /** Start from what the previous execution handed over (messages that arrive meanwhile come after). */
  restore(state: { messages: readonly QueuedMessage[]; ended: boolean }): void {
    this.queue = [...state.messages, ...this.queue];
    this.endRequested = this.endRequested || state.ended;
  }

  /** Messages waiting for the model. */
  get size(): number {
    return this.queue.length;
  }

  /** True once someone asked the session to end. */
  get ended(): boolean {
    return this.endRequested;
  }

  /** Take every waiting message, oldest first. */
  take(): QueuedMessage[] {
    const taken = this.queue;
    this.queue = [];
    return taken;
  }

  private refusal(message: UserMessageInput): string | undefined {
    if (this.closed) return 'the run is ending: it takes no more messages';
    // Before the spec is known (the run is starting) names are checked when the message is applied.
    const layers = this.layers;
    if (layers && message.context)
      for (const [name, value] of Object.entries(message.context)) {
        const why = layerProblem(layers, name, value);
        if (why) return why;
      }
    if (this.queue.length >= MAX_QUEUED_MESSAGES) return `the inbox is full (${MAX_QUEUED_MESSAGES} messages wait for the model)`;
    return undefined;
  }
}
