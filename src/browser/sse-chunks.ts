/** Server-sent events to UI message chunks: `data:` JSON (until `data: [DONE]`), with the `id:` cursor of each. */
import type { CursoredChunk, ChatChunk } from '../core/chat/ui-message-chunks';

/** Parses an SSE byte stream incrementally. */
export class SseChunkParser {
  private buffer = '';
  private readonly decoder = new TextDecoder();
  /** True once `data: [DONE]` came. */
  done = false;

  /** The chunks completed by `bytes`. */
  push(bytes: Uint8Array): CursoredChunk[] {
    this.buffer += this.decoder.decode(bytes, { stream: true });
    const out: CursoredChunk[] = [];
    for (;;) {
      const m = /\r?\n\r?\n/.exec(this.buffer);
      if (!m) break;
      const block = this.buffer.slice(0, m.index);
      this.buffer = this.buffer.slice(m.index + m[0].length);
      let data: string | undefined;
      let id = '';
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') data = data === undefined ? value : `${data}\n${value}`;
        else if (field === 'id') id = value;
      }
      if (data === undefined) continue;
      if (data === '[DONE]') {
        this.done = true;
        continue;
      }
      out.push({ chunk: JSON.parse(data) as ChatChunk, cursor: id });
    }
    return out;
  }
}
