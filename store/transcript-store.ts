import type { BlobRef, Message, ToolOutput } from '../core/messages';
import type { BlobStore } from './blob-store';
import { stableStringify } from './stable-json';

/** One link of a transcript chain; its content address is the transcript's head. */
interface TranscriptNode {
  v: 1;
  prev: BlobRef | null;
  message: BlobRef;
  /** Number of messages up to and including this one. */
  n: number;
}

/**
 * Conversations as hash chains over a {@link BlobStore}: each message is stored once, and a transcript
 * is named by the address of its last link. Activities pass heads around instead of message lists, so
 * workflow history per step does not grow with the conversation.
 */
export class TranscriptStore {
  private readonly cache = new Map<BlobRef, Message[]>();

  constructor(
    readonly blobs: BlobStore,
    private readonly cacheSize = 128,
  ) {}

  /** Store `value` as JSON; returns its address. */
  putJson(value: unknown): Promise<BlobRef> {
    return this.blobs.put(stableStringify(value));
  }

  /** Read a JSON blob. */
  async getJson<T>(ref: BlobRef): Promise<T> {
    return JSON.parse(await this.blobs.get(ref)) as T;
  }

  /** Append messages to the transcript at `head` (null: empty); returns the new head. */
  async append(head: BlobRef | null, messages: readonly Message[]): Promise<BlobRef | null> {
    let current = head;
    let known = head ? this.cache.get(head) : [];
    let n = head ? (await this.getJson<TranscriptNode>(head)).n : 0;
    for (const message of messages) {
      const node: TranscriptNode = { v: 1, prev: current, message: await this.putJson(message), n: ++n };
      current = await this.putJson(node);
      if (known) {
        known = [...known, message];
        this.remember(current, known);
      }
    }
    return current;
  }

  /** Every message of the transcript at `head`, oldest first. */
  async load(head: BlobRef | null): Promise<Message[]> {
    if (!head) return [];
    const hit = this.cache.get(head);
    if (hit) return hit;
    const tail: Message[] = [];
    let cursor: BlobRef | null = head;
    let base: Message[] = [];
    while (cursor) {
      const cached = this.cache.get(cursor);
      if (cached) {
        base = cached;
        break;
      }
      const node: TranscriptNode = await this.getJson<TranscriptNode>(cursor);
      tail.push(await this.getJson<Message>(node.message));
      cursor = node.prev;
    }
    const messages = [...base, ...tail.reverse()];
    this.remember(head, messages);
    return messages;
  }

  /** The full text of a tool output, reading stored outputs from the blob store. */
  async outputText(output: ToolOutput): Promise<string> {
    return output.type === 'text' ? output.text : this.blobs.get(output.ref);
  }

  /** Messages with every stored tool output replaced by its full text, ready for a provider. */
  async resolve(messages: readonly Message[]): Promise<Message[]> {
    return Promise.all(
      messages.map(async (m): Promise<Message> => {
        if (m.role !== 'user' || !m.content.some((b) => b.type === 'tool_result' && b.output.type === 'stored')) return m;
        const content = await Promise.all(
          m.content.map(async (b) =>
            b.type === 'tool_result' && b.output.type === 'stored'
              ? { ...b, output: { type: 'text' as const, text: await this.outputText(b.output) } }
              : b,
          ),
        );
        return { role: 'user', content };
      }),
    );
  }

  private remember(head: BlobRef, messages: Message[]): void {
    this.cache.delete(head);
    this.cache.set(head, messages);
    while (this.cache.size > this.cacheSize) {
      const oldest = this.cache.keys().next().value;
      if (oldest === undefined) break;
      this.cache.delete(oldest);
    }
  }
}
