/** Reading server-sent events over real HTTP in tests: frames as they came over the wire. */
import { expect } from 'vitest';
import type { StreamEvent } from '../../src/client/live';

/** One server-sent event as it came over the wire. */
export interface Frame {
  id?: string;
  event?: string;
  data: string;
}

/**
 * Read server-sent events from `res` until the response ends or `stop(frame)` says so (the connection is
 * then closed by aborting `controller`).
 */
export async function readFrames(
  res: Response,
  controller?: AbortController,
  stop?: (f: Frame, all: Frame[]) => boolean,
): Promise<Frame[]> {
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const frames: Frame[] = [];
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return frames;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const frame: Frame = { data: '' };
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) continue;
          const i = line.indexOf(':');
          const field = i < 0 ? line : line.slice(0, i);
          const value = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
          if (field === 'data') data.push(value);
          else if (field === 'id') frame.id = value;
          else if (field === 'event') frame.event = value;
        }
        if (!data.length && frame.id === undefined) continue;
        frame.data = data.join('\n');
        frames.push(frame);
        if (stop?.(frame, frames)) {
          controller?.abort();
          await reader.cancel().catch(() => undefined);
          return frames;
        }
      }
    }
  } catch (err) {
    if (controller?.signal.aborted) return frames;
    throw err;
  }
}

/** The stream event a frame carries. */
export const parsed = (f: Frame): StreamEvent => JSON.parse(f.data) as StreamEvent;
