/** Transcripts as hash chains over a blob store (store/transcript-store.ts). */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message, ToolResultBlock } from '../../src/core/messages/messages';
import { BlobNotFoundError, FileBlobStore, MemoryBlobStore } from '../../src/integrations/store/blob-store';
import { TranscriptStore } from '../../src/integrations/store/transcript-store';

let root: string;
let n = 0;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'durable-agent-transcripts-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A blob store that counts its reads and writes. */
class CountingStore extends MemoryBlobStore {
  gets = 0;
  puts = 0;
  override async get(ref: string): Promise<string> {
    this.gets++;
    return super.get(ref);
  }
  override async put(data: string): Promise<string> {
    this.puts++;
    return super.put(data);
  }
}

/** A tool-result message whose output (`text`) is stored in `store`. */
async function storedResult(store: TranscriptStore, id: string, text: string): Promise<Message> {
  const ref = await store.blobs.put(text);
  return {
    role: 'user',
    content: [
      {
        type: 'tool_result',
        toolUseId: id,
        output: { type: 'stored', ref, bytes: text.length, preview: text.slice(0, 10) },
        isError: false,
      },
    ],
  };
}

function freshDir(): string {
  return join(root, `t-${++n}`);
}

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const CONVERSATION: Message[] = [
  user('What is in a.txt?'),
  {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'read it', signature: 'sig-1' },
      { type: 'text', text: 'Reading.' },
      { type: 'tool_use', id: 'c1', name: 'read', input: { path: 'a.txt', opts: { lines: [1, 2] } } },
    ],
  },
  { role: 'user', content: [{ type: 'tool_result', toolUseId: 'c1', output: { type: 'text', text: 'hello 😀' }, isError: false }] },
  { role: 'assistant', content: [{ type: 'text', text: 'It says hello.' }] },
];

/** A deep copy with every object's keys in reverse order. */
function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([k, v]) => [k, reverseKeys(v)]),
    );
  }
  return value;
}

describe('TranscriptStore', () => {
  it('treats null as the empty transcript', async () => {
    const store = new TranscriptStore(new MemoryBlobStore());
    expect(await store.append(null, [])).toBeNull();
    expect(await store.load(null)).toEqual([]);
  });

  it('round-trips appended messages', async () => {
    const store = new TranscriptStore(new FileBlobStore(freshDir()));
    const head = await store.append(null, CONVERSATION);
    expect(head).toMatch(/^sha256-[0-9a-f]{64}$/);
    expect(await store.load(head)).toEqual(CONVERSATION);
    expect(await store.append(head, [])).toBe(head);
  });

  it('names equal content by equal heads, across stores, batching and key order', async () => {
    const a = await new TranscriptStore(new FileBlobStore(freshDir())).append(null, CONVERSATION);
    const b = await new TranscriptStore(new MemoryBlobStore()).append(null, CONVERSATION);
    expect(b).toBe(a);

    const split = new TranscriptStore(new MemoryBlobStore());
    const half = await split.append(null, CONVERSATION.slice(0, 2));
    expect(await split.append(half, CONVERSATION.slice(2))).toBe(a);

    const reordered = CONVERSATION.map((m) => reverseKeys(m) as Message);
    expect(JSON.stringify(reordered)).not.toBe(JSON.stringify(CONVERSATION));
    expect(reordered).toEqual(CONVERSATION);
    const c = await new TranscriptStore(new MemoryBlobStore()).append(null, reordered);
    expect(c).toBe(a);

    const different = await new TranscriptStore(new MemoryBlobStore()).append(null, [user('something else'), ...CONVERSATION.slice(1)]);
    expect(different).not.toBe(a);
  });

  it('loads from a cold cache: a new store over the same directory', async () => {
    const dir = freshDir();
    const head = await new TranscriptStore(new FileBlobStore(dir)).append(null, CONVERSATION);
    const cold = new TranscriptStore(new FileBlobStore(dir));
    expect(await cold.load(head)).toEqual(CONVERSATION);
  });

  it('appends to an existing head, warm or cold, and every prefix head stays loadable', async () => {
    const dir = freshDir();
    const warm = new TranscriptStore(new FileBlobStore(dir));
    const h2 = await warm.append(null, CONVERSATION.slice(0, 2));
    const h4 = await warm.append(h2, CONVERSATION.slice(2));
    expect(await warm.load(h4)).toEqual(CONVERSATION);

    const cold = new TranscriptStore(new FileBlobStore(dir));
    const h5 = await cold.append(h4, [user('thanks')]);
    expect(await cold.load(h5)).toEqual([...CONVERSATION, user('thanks')]);
    expect(await cold.load(h2)).toEqual(CONVERSATION.slice(0, 2));
    expect(await new TranscriptStore(new FileBlobStore(dir)).load(h5)).toEqual([...CONVERSATION, user('thanks')]);
    // Branching from a prefix does not disturb the other branch.
    const branch = await cold.append(h2, [user('other way')]);
    expect(await cold.load(branch)).toEqual([...CONVERSATION.slice(0, 2), user('other way')]);
    expect(await cold.load(h4)).toEqual(CONVERSATION);
  });

  it('stays correct with a tiny cache', async () => {
    const blobs = new MemoryBlobStore();
    const store = new TranscriptStore(blobs, 1);
    const heads: Array<string | null> = [null];
    for (const m of CONVERSATION) heads.push(await store.append(heads.at(-1) ?? null, [m]));
    for (let i = 0; i <= CONVERSATION.length; i++) expect(await store.load(heads[i] ?? null)).toEqual(CONVERSATION.slice(0, i));
  });

  it('fails loading a chain with a missing link', async () => {
    const full = new MemoryBlobStore();
    const head = await new TranscriptStore(full).append(null, CONVERSATION);
    // A store holding only the last link: its message and the earlier links are missing.
    const partial = new MemoryBlobStore();
    await partial.put(await full.get(head as string));
    await expect(new TranscriptStore(partial).load(head)).rejects.toBeInstanceOf(BlobNotFoundError);
  });

  it('resolve() replaces stored tool outputs with their full text and leaves the rest alone', async () => {
    const store = new TranscriptStore(new MemoryBlobStore());
    const big = 'line of output\n'.repeat(5000);
    const ref = await store.blobs.put(big);
    const results: Message = {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          toolUseId: 'c1',
          output: { type: 'stored', ref, bytes: big.length, preview: big.slice(0, 20) },
          isError: false,
        },
        { type: 'tool_result', toolUseId: 'c2', output: { type: 'text', text: 'small' }, isError: true },
        { type: 'text', text: 'note' },
      ],
    };
    const messages = [CONVERSATION[0] as Message, CONVERSATION[1] as Message, results];
    const resolved = await store.resolve(messages);

    expect(resolved[0]).toBe(messages[0]);
    expect(resolved[1]).toBe(messages[1]);
    expect(resolved[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', toolUseId: 'c1', output: { type: 'text', text: big }, isError: false },
        { type: 'tool_result', toolUseId: 'c2', output: { type: 'text', text: 'small' }, isError: true },
        { type: 'text', text: 'note' },
      ],
    });
    // The input is not modified.
    expect((results.content[0] as ToolResultBlock).output.type).toBe('stored');
    expect(await store.outputText({ type: 'stored', ref, bytes: big.length, preview: '' })).toBe(big);
    expect(await store.outputText({ type: 'text', text: 'inline' })).toBe('inline');
  });

  it('resolve() fails when a stored output is missing', async () => {
    const store = new TranscriptStore(new MemoryBlobStore());
    const missing: Message = {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          toolUseId: 'c1',
          output: { type: 'stored', ref: `sha256-${'1'.repeat(64)}`, bytes: 1, preview: '' },
          isError: false,
        },
      ],
    };
    await expect(store.resolve([missing])).rejects.toBeInstanceOf(BlobNotFoundError);
  });

  describe('per-step cost of a long conversation', () => {
    it('appends to a cached head and loads it without reading the blob store', async () => {
      const blobs = new CountingStore();
      const store = new TranscriptStore(blobs);
      let head = await store.append(null, CONVERSATION.slice(0, 1));
      for (let i = 0; i < 50; i++) head = await store.append(head, [user(`message ${i}`)]);
      blobs.gets = 0;
      head = await store.append(head, [user('one more')]);
      expect(await store.load(head)).toHaveLength(52);
      expect(blobs.gets).toBe(0);
    });

    it('gives each caller of load() its own array: changing it does not change the stored transcript', async () => {
      const store = new TranscriptStore(new MemoryBlobStore());
      const head = await store.append(null, CONVERSATION);
      const loaded = await store.load(head);
      loaded.push(user('not in the transcript'));
      loaded[0] = user('changed');
      expect(await store.load(head)).toEqual(CONVERSATION);
      const next = await store.append(head, [user('next')]);
      expect(await store.load(next)).toEqual([...CONVERSATION, user('next')]);
    });

    it('keeps every head of a growing conversation and its branches correct (shared storage)', async () => {
      const store = new TranscriptStore(new MemoryBlobStore(), 1000);
      const heads: Array<string | null> = [null];
      const messages = Array.from({ length: 200 }, (_, i) => user(`m${i}`));
      for (const m of messages) heads.push(await store.append(heads.at(-1) ?? null, [m]));
      // A branch from the middle, and a retried append of the same message (same head, reused).
      const branch = await store.append(heads[100] ?? null, [user('branch')]);
      expect(await store.append(heads[100] ?? null, [messages[100] as Message])).toBe(heads[101]);
      const branch2 = await store.append(branch, [user('branch 2')]);
      for (let i = 0; i <= messages.length; i += 7) expect(await store.load(heads[i] ?? null)).toEqual(messages.slice(0, i));
      expect(await store.load(heads[200] ?? null)).toEqual(messages);
      expect(await store.load(branch2)).toEqual([...messages.slice(0, 100), user('branch'), user('branch 2')]);
    });

    it('resolve() reads each stored output once while it is in the output cache', async () => {
      const blobs = new CountingStore();
      const store = new TranscriptStore(blobs);
      const messages: Message[] = [user('read the pages')];
      for (let i = 0; i < 20; i++) messages.push(await storedResult(store, `c${i}`, `page ${i} `.repeat(2000)));
      const first = await store.resolve(messages);
      expect(blobs.gets).toBe(20);
      const again = await store.resolve([...messages, await storedResult(store, 'c20', 'page 20 '.repeat(2000))]);
      expect(blobs.gets).toBe(21);
      expect(again.slice(0, 21)).toEqual(first);
      expect(again[21]).toEqual({
        role: 'user',
        content: [{ type: 'tool_result', toolUseId: 'c20', output: { type: 'text', text: 'page 20 '.repeat(2000) }, isError: false }],
      });
    });

    it('callIdUsed() tells the tool-call ids of exactly the transcript at a head, as it grows and branches', async () => {
      const blobs = new CountingStore();
      const store = new TranscriptStore(blobs);
      const call = (id: string): Message => ({
        role: 'assistant',
        content: [
          { type: 'text', text: 'calling' },
          { type: 'tool_use', id, name: 'read', input: {} },
        ],
      });
      const h0 = await store.append(null, [user('start')]);
      expect((await store.callIdUsed(null))('a')).toBe(false);
      const h1 = await store.append(h0, [call('a')]);
      const used1 = await store.callIdUsed(h1);
      const h2 = await store.append(h1, [user('result'), call('b')]);
      const used2 = await store.callIdUsed(h2);
      expect([used1('a'), used1('b'), used2('a'), used2('b'), used2('c')]).toEqual([true, false, true, true, false]);
      // An older head, asked after the conversation grew past it, and a branch from it.
      expect((await store.callIdUsed(h1))('b')).toBe(false);
      const branch = await store.append(h1, [user('other'), call('c')]);
      const usedBranch = await store.callIdUsed(branch);
      expect([usedBranch('a'), usedBranch('b'), usedBranch('c')]).toEqual([true, false, true]);
      expect((await store.callIdUsed(h2))('c')).toBe(false);
      expect(blobs.gets).toBe(0);
      // A cold store reads the transcript once, then answers the same.
      const cold = new TranscriptStore(blobs);
      const coldUsed = await cold.callIdUsed(h2);
      expect([coldUsed('a'), coldUsed('b'), coldUsed('c')]).toEqual([true, true, false]);
    });

    it('text() reads a stored text (a summary) once while it is cached', async () => {
      const blobs = new CountingStore();
      const store = new TranscriptStore(blobs);
      const ref = await blobs.put('summary of the earlier conversation');
      expect(await store.text(ref)).toBe('summary of the earlier conversation');
      expect(await store.text(ref)).toBe('summary of the earlier conversation');
      expect(blobs.gets).toBe(1);
      await expect(store.text(`sha256-${'2'.repeat(64)}`)).rejects.toBeInstanceOf(BlobNotFoundError);
    });

    it('bounds the output cache by size: the oldest outputs are read again', async () => {
      const blobs = new CountingStore();
      const store = new TranscriptStore(blobs, 128, 25_000);
      const messages: Message[] = [];
      for (let i = 0; i < 5; i++) messages.push(await storedResult(store, `c${i}`, String(i).repeat(10_000)));
      await store.resolve(messages);
      blobs.gets = 0;
      // The cache holds two 10,000-character outputs: the last two.
      const resolved = await store.resolve(messages.slice(3));
      expect(blobs.gets).toBe(0);
      expect(((resolved[1] as Message).content[0] as ToolResultBlock).output).toEqual({ type: 'text', text: '4'.repeat(10_000) });
      await store.resolve(messages.slice(0, 1));
      expect(blobs.gets).toBe(1);
      // An output larger than the whole cache is never kept.
      const huge = await storedResult(store, 'big', 'x'.repeat(30_000));
      await store.resolve([huge]);
      await store.resolve([huge]);
      expect(blobs.gets).toBe(3);
    });
  });

  it('an append whose writes fail is not cached: the same append on a working store stores it whole', async () => {
    const blobs = new CountingStore();
    let writes = 0;
    const flaky = new (class extends MemoryBlobStore {
      override async put(data: string): Promise<string> {
        if (++writes === 3) throw new Error('disk full');
        return blobs.put(data);
      }
      override get(ref: string): Promise<string> {
        return blobs.get(ref);
      }
    })();
    const store = new TranscriptStore(flaky);
    await expect(store.append(null, CONVERSATION)).rejects.toThrow('disk full');
    const head = await store.append(null, CONVERSATION);
    expect(await new TranscriptStore(blobs).load(head)).toEqual(CONVERSATION);
  });

  describe('JSON blob cache', () => {
    const prompt = { system: 'You are terse.', tools: [{ name: 'lookup', inputSchema: { type: 'object' } }] };

    it('reads a JSON blob this store wrote from memory, and writes it only once', async () => {
      const blobs = new CountingStore();
      const store = new TranscriptStore(blobs);
      const ref = await store.putJson(prompt);
      expect(await store.putJson({ tools: prompt.tools, system: prompt.system })).toBe(ref);
      expect(blobs.puts).toBe(1);
      expect(await store.getJson(ref)).toEqual(prompt);
      expect(await store.getJson(ref)).toEqual(prompt);
      expect(blobs.gets).toBe(0);
    });

    it('another worker (a store without it in memory) reads the blob from the shared store, then from memory', async () => {
      const dir = freshDir();
      const writer = new TranscriptStore(new FileBlobStore(dir));
      const ref = await writer.putJson(prompt);
      const shared = new FileBlobStore(dir);
      let gets = 0;
      const reader = new TranscriptStore({ put: (d) => shared.put(d), get: (r) => (gets++, shared.get(r)) });
      expect(await reader.getJson(ref)).toEqual(prompt);
      expect(await reader.getJson(ref)).toEqual(prompt);
      expect(gets).toBe(1);
      await expect(reader.getJson(`sha256-${'3'.repeat(64)}`)).rejects.toBeInstanceOf(BlobNotFoundError);
    });

    it('a write that failed is not remembered: the next one writes', async () => {
      const blobs = new CountingStore();
      let fail = true;
      const store = new TranscriptStore({
        put: (d) => (fail ? Promise.reject(new Error('disk full')) : blobs.put(d)),
        get: (r) => blobs.get(r),
      });
      await expect(store.putJson(prompt)).rejects.toThrow('disk full');
      fail = false;
      const ref = await store.putJson(prompt);
      expect(blobs.puts).toBe(1);
      expect(JSON.parse(await blobs.get(ref))).toEqual(prompt);
    });

    it('is bounded by size: blobs pushed out are read (and written) again', async () => {
      const blobs = new CountingStore();
      const store = new TranscriptStore(blobs, 128, 0, 25_000);
      const refs = [];
      for (let i = 0; i < 3; i++) refs.push(await store.putJson({ text: String(i).repeat(10_000) }));
      blobs.gets = 0;
      await store.getJson(refs[2]!);
      await store.getJson(refs[1]!);
      expect(blobs.gets).toBe(0);
      await store.getJson(refs[0]!);
      expect(blobs.gets).toBe(1);
      // Reading the first back pushed out the least recently used, the third: it is written again, the second is not.
      blobs.puts = 0;
      await store.putJson({ text: '1'.repeat(10_000) });
      expect(blobs.puts).toBe(0);
      await store.putJson({ text: '2'.repeat(10_000) });
      expect(blobs.puts).toBe(1);
    });
  });
});
