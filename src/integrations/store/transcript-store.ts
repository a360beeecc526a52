import type { BlobRef, Message, ToolOutput, ToolResultBlock } from '../../core/messages/messages';
import { LRUCache } from 'lru-cache';
import type { BlobStore } from './blob-store';
import { AgentStore, blobRef } from './blob-store';
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
 * A transcript held in memory: its messages are `messages[0..length)`. Transcripts of one chain share
 * one array (a longer transcript extends it in place), so caching every head of a growing conversation
 * costs one array, not one copy per head.
 */
interface CachedTranscript {
  messages: Message[];
  length: number;
  /** The tool-call index of `messages`, shared like the array. */
  calls: CallIndex;
}

/**
 * The first message (index) of each tool-call id in an array of messages, indexed lazily: messages
 * `[0..indexed)` are in `first`.
 */
interface CallIndex {
  first: Map<string, number>;
  indexed: number;
}

const emptyTranscript = (): CachedTranscript => ({ messages: [], length: 0, calls: { first: new Map(), indexed: 0 } });

/** Default number of transcript heads kept in memory. */
export const TRANSCRIPT_CACHE_HEADS = 128;
/** Default bytes of stored tool outputs kept in memory (most recently used first). */
export const OUTPUT_CACHE_BYTES = 32 * 1024 * 1024;
/** Default characters of JSON blobs (prompts, messages, transcript links) this store wrote or read, kept in memory. */
export const JSON_CACHE_BYTES = 8 * 1024 * 1024;

/**
 * Conversations as hash chains over a {@link BlobStore}: each message is stored once, and a transcript
 * is named by the address of its last link. Activities pass heads around instead of message lists, so
 * workflow history per step does not grow with the conversation.
 *
 * The store keeps recent transcripts and recently read tool outputs in memory, so a step of a long run
 * reads only what is new: appending to a known head and loading it do no blob reads, and
 * {@link TranscriptStore.resolve} reads each stored output once while it stays in the output cache.
 * Blobs are immutable (content-addressed), so the caches are never stale.
 */
export class TranscriptStore {
  /** Recent transcript heads (least recently used dropped first). */
  private readonly cache: LRUCache<BlobRef, CachedTranscript>;
  /** Stored tool outputs read lately, bounded by characters (undefined: none kept). */
  private readonly outputs: LRUCache<BlobRef, string> | undefined;
  /** JSON blobs this store wrote or read, by their ref, bounded by characters (undefined: none kept). */
  private readonly json: LRUCache<BlobRef, string> | undefined;
  /** The ref the blob store gave each JSON text {@link json} holds, by the text's own content address. */
  private readonly written = new Map<string, BlobRef>();

  /**
   * @param blobs where messages and transcript links are stored.
   * @param cacheSize transcript heads kept in memory.
   * @param outputCacheBytes characters of stored tool outputs kept in memory (0: none).
   * @param jsonCacheBytes characters of JSON blobs this store wrote or read kept in memory (0: none).
   */
  constructor(
    readonly blobs: BlobStore,
    private readonly cacheSize = TRANSCRIPT_CACHE_HEADS,
    private readonly outputCacheBytes = OUTPUT_CACHE_BYTES,
    private readonly jsonCacheBytes = JSON_CACHE_BYTES,
  ) {
    this.cache = new LRUCache({ max: Math.max(1, cacheSize) });
    const bySize = (text: string) => Math.max(1, text.length);
    this.outputs = outputCacheBytes > 0 ? new LRUCache({ maxSize: outputCacheBytes, sizeCalculation: bySize }) : undefined;
    this.json =
      jsonCacheBytes > 0
        ? new LRUCache({
            maxSize: jsonCacheBytes,
            sizeCalculation: bySize,
            // A text no longer held is no longer known to be written.
            dispose: (text) => this.written.delete(blobRef(text)),
          })
        : undefined;
  }

  /**
   * Store `value` as JSON; returns its address. A blob this store wrote or read lately is not written
   * again (blobs are immutable and never deleted, so it is still there): an agent's prompt, stored at
   * the start of every run, is written once per worker.
   */
  putJson(value: unknown): Promise<BlobRef> {
    return this.putText(stableStringify(value));
  }

  /** Store a JSON text (see {@link putJson}). */
  private async putText(data: string): Promise<BlobRef> {
    const key = blobRef(data);
    const known = this.written.get(key);
    if (known !== undefined && this.json?.get(known) !== undefined) return known;
    const ref = await this.blobs.put(data);
    this.rememberJson(ref, data, key);
    return ref;
  }

  /**
   * Read a JSON blob: from memory when this store wrote or read it lately (the prompt every model call
   * reads), else from the blob store — so a blob another worker wrote is always read where it is.
   */
  async getJson<T>(ref: BlobRef): Promise<T> {
    const cached = this.json?.get(ref);
    if (cached !== undefined) return JSON.parse(cached) as T;
    const data = await this.blobs.get(ref);
    this.rememberJson(ref, data);
    return JSON.parse(data) as T;
  }

  /** Keep a JSON blob in memory, the least recently used going first past {@link jsonCacheBytes}. */
  private rememberJson(ref: BlobRef, data: string, key = blobRef(data)): void {
    if (!this.json || data.length > this.jsonCacheBytes || this.json.has(ref)) return;
    this.json.set(ref, data);
    this.written.set(key, ref);
  }

  /** Append messages to the transcript at `head` (null: empty); returns the new head. */
  async append(head: BlobRef | null, messages: readonly Message[]): Promise<BlobRef | null> {
    if (messages.length === 0) return head;
    let current = head;
    let known: CachedTranscript | undefined = head ? this.cache.get(head) : emptyTranscript();
    let n = known ? known.length : (await this.getJson<TranscriptNode>(head as BlobRef)).n;
    // A store that names blobs by the SHA-256 of their content (every built-in one): the refs are known
    // before the writes, so every message and link of the append is written at once; the head is
    // returned (and so recorded, or linked to) only once all of them are stored.
    const addressed = this.blobs instanceof AgentStore;
    const writes: Array<Promise<BlobRef>> = [];
    const heads: Array<[BlobRef, CachedTranscript]> = [];
    const put = async (value: unknown): Promise<BlobRef> => {
      const data = stableStringify(value);
      if (!addressed) return this.putText(data);
      writes.push(this.putText(data));
      return blobRef(data);
    };
    for (const message of messages) {
      const node: TranscriptNode = { v: 1, prev: current, message: await put(message), n: ++n };
      current = await put(node);
      if (known) {
        // Equal heads name equal transcripts: one already cached (a retried append) is reused.
        known = this.cache.get(current) ?? extended(known, message);
        heads.push([current, known]);
      }
    }
    await Promise.all(writes);
    // Cached once stored: a head in memory always names content the store has.
    for (const [h, t] of heads) this.remember(h, t);
    return current;
  }

  /** Every message of the transcript at `head`, oldest first (a new array the caller may change). */
  async load(head: BlobRef | null): Promise<Message[]> {
    if (!head) return [];
    const hit = this.cache.get(head);
    if (hit) {
      this.remember(head, hit);
      return hit.messages.slice(0, hit.length);
    }
    return (await this.cached(head)).messages.slice();
  }

  /**
   * Whether a tool-call id is used in the transcript at `head`: a test in constant time, from an index
   * the store keeps up to date as the conversation grows (for giving new calls ids unique in the run
   * without walking the whole transcript every step).
   */
  async callIdUsed(head: BlobRef | null): Promise<(id: string) => boolean> {
    if (!head) return () => false;
    const t = this.cache.get(head) ?? (await this.cached(head));
    const { first } = t.calls;
    for (; t.calls.indexed < t.length; t.calls.indexed++) {
      const m = t.messages[t.calls.indexed]!;
      if (m.role !== 'assistant') continue;
      for (const b of m.content) if (b.type === 'tool_use' && !first.has(b.id)) first.set(b.id, t.calls.indexed);
    }
    const length = t.length;
    return (id) => (first.get(id) ?? Infinity) < length;
  }

  /** The transcript at `head`, cached (read from the blob store as far back as nothing is cached). */
  private async cached(head: BlobRef): Promise<CachedTranscript> {
    const tail: Message[] = [];
    let cursor: BlobRef | null = head;
    let base: CachedTranscript = emptyTranscript();
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
    const messages = base.messages.slice(0, base.length).concat(tail.reverse());
    const transcript: CachedTranscript = { messages, length: messages.length, calls: { first: new Map(), indexed: 0 } };
    this.remember(head, transcript);
    return transcript;
  }

  /** The full text of a tool output, reading stored outputs from the blob store (or the output cache). */
  async outputText(output: ToolOutput): Promise<string> {
    return output.type === 'text' ? output.text : this.text(output.ref);
  }

  /**
   * A stored text blob (a tool output, a compaction summary), through the output cache: read from the
   * blob store only when it is not cached.
   *
   * @throws BlobNotFoundError when the store has no blob `ref`.
   */
  async text(ref: BlobRef): Promise<string> {
    const cached = this.cachedOutput(ref);
    if (cached !== undefined) return cached;
    const text = await this.blobs.get(ref);
    this.rememberOutput(ref, text);
    return text;
  }

  /**
   * Messages with every stored tool output replaced by its full text, ready for a provider. Messages
   * without stored outputs are passed through as they are; outputs in the output cache cost no read.
   */
  async resolve(messages: readonly Message[]): Promise<Message[]> {
    const resolved = messages.slice();
    const reads: Array<Promise<void>> = [];
    messages.forEach((m, i) => {
      if (m.role !== 'user' || !m.content.some(isStoredResult)) return;
      const content = m.content.map((b) => (isStoredResult(b) ? this.resolvedFromCache(b) : b));
      if (content.every((b) => !isStoredResult(b))) {
        resolved[i] = { role: 'user', content };
        return;
      }
      reads.push(
        Promise.all(
          content.map(async (b) =>
            isStoredResult(b) ? { ...b, output: { type: 'text' as const, text: await this.outputText(b.output) } } : b,
          ),
        ).then((full) => {
          resolved[i] = { role: 'user', content: full };
        }),
      );
    });
    await Promise.all(reads);
    return resolved;
  }

  /** The block with its output's text, when the output cache has it; else the block unchanged. */
  private resolvedFromCache(block: ToolResultBlock & { output: { type: 'stored' } }): ToolResultBlock {
    const text = this.cachedOutput(block.output.ref);
    return text === undefined ? block : { ...block, output: { type: 'text', text } };
  }

  private cachedOutput(ref: BlobRef): string | undefined {
    return this.outputs?.get(ref);
  }

  private rememberOutput(ref: BlobRef, text: string): void {
    if (!this.outputs || text.length > this.outputCacheBytes || this.outputs.has(ref)) return;
    this.outputs.set(ref, text);
  }

  private remember(head: BlobRef, transcript: CachedTranscript): void {
    this.cache.set(head, transcript);
  }
}

/** A tool result whose output is in the blob store. */
function isStoredResult(block: Message['content'][number]): block is ToolResultBlock & { output: { type: 'stored' } } {
  return block.type === 'tool_result' && block.output.type === 'stored';
}

/**
 * `transcript` with `message` after it: in place when the transcript is the end of its array (the usual
 * case, a conversation growing), on a copy when a longer transcript already extends that array.
 */
function extended(transcript: CachedTranscript, message: Message): CachedTranscript {
  const tip = transcript.messages.length === transcript.length;
  const messages = tip ? transcript.messages : transcript.messages.slice(0, transcript.length);
  messages.push(message);
  return { messages, length: transcript.length + 1, calls: tip ? transcript.calls : { first: new Map(), indexed: 0 } };
}
