/**
 * An EMULATION of Anthropic's prompt caching for the replay server, from its documented rules (not the
 * real service): the cached prefix runs tools → system → messages; a request's `cache_control` marks end
 * prefixes that are written to the cache; a later request reads the longest of its own marked prefixes
 * that an earlier request wrote (byte-identical up to the mark). Tokens are estimated at 4 characters
 * each; the minimum cacheable length, the lookback over earlier blocks and expiry are not emulated.
 */
import type { RecordedRequest } from './replay-server';
import type { StreamUsage } from './sse';

interface Block {
  json: string;
  marked: boolean;
}

/** The request's prefix as blocks in cache order (tools, system, message content), each noting a breakpoint. */
function blocksOf(body: RecordedRequest['body']): Block[] {
  const out: Block[] = [];
  const marked = (b: unknown) => typeof b === 'object' && b !== null && 'cache_control' in b;
  for (const t of (body.tools as unknown[] | undefined) ?? []) out.push({ json: JSON.stringify(t), marked: marked(t) });
  const system = body.system;
  if (typeof system === 'string') out.push({ json: JSON.stringify(system), marked: false });
  else for (const s of (system as unknown[] | undefined) ?? []) out.push({ json: JSON.stringify(s), marked: marked(s) });
  for (const m of (body.messages as Array<{ role: string; content: unknown }> | undefined) ?? []) {
    const content = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content as unknown[]);
    content.forEach((b, i) => out.push({ json: `${i === 0 ? m.role : ''}${JSON.stringify(b)}`, marked: marked(b) }));
  }
  return out;
}

/** Estimated tokens of a text: 4 characters a token. */
const tokens = (chars: number) => Math.ceil(chars / 4);

/** The emulated cache of one test: the prefixes written so far, by their text (the cache marks removed). */
export class AnthropicCacheEmulator {
  private readonly written = new Map<string, number>();

  /** The usage Anthropic would report for `req` (input, cache read, cache write), and the prefixes it writes. */
  usage(req: RecordedRequest, output = 10): StreamUsage {
    const blocks = blocksOf(req.body);
    // Prefix texts are compared without the marks themselves (a block reads the same marked or not).
    const plain = blocks.map((b) => b.json.replace(/,"cache_control":\{"type":"ephemeral"\}/g, ''));
    let text = '';
    let read = 0;
    const marks: Array<{ key: string; size: number }> = [];
    plain.forEach((p, i) => {
      text += p;
      if (!blocks[i]!.marked) return;
      const size = tokens(text.length);
      marks.push({ key: text, size });
      if (this.written.has(text)) read = Math.max(read, size);
    });
    const total = tokens(text.length);
    const lastMark = marks.at(-1)?.size ?? 0;
    const write = Math.max(0, lastMark - read);
    for (const m of marks) this.written.set(m.key, m.size);
    return { input: total - read - write, output, cacheRead: read, cacheWrite: write };
  }
}
