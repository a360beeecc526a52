/** A model call context for calling providers directly, outside an activity. */
import type { Message } from '../../core/messages';
import type { ModelRequest } from '../../core/model';
import type { ModelCallContext } from '../../providers/types';

/** A context whose heartbeats are counted and whose signal the test controls. */
export function callContext(controller = new AbortController()): ModelCallContext & { beats: number; controller: AbortController } {
  const ctx = {
    beats: 0,
    controller,
    signal: controller.signal,
    attempt: 1,
    step: 1,
    heartbeat() {
      ctx.beats++;
    },
  };
  return ctx;
}

/** A request with one user prompt (or the given messages). */
export function request(model: string, messages: Message[] | string = 'hi', extra: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model,
    messages: typeof messages === 'string' ? [{ role: 'user', content: [{ type: 'text', text: messages }] }] : messages,
    maxTokens: 1024,
    tools: [],
    ...extra,
  };
}

/** Await a rejection and return what was thrown (fails the test if it resolves). */
export async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    (v) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(v)}`);
    },
    (err: unknown) => err,
  );
}

/** Poll until `fn` returns something truthy (the test's own timeout bounds the wait). */
export async function waitFor<T>(fn: () => T | undefined | null | false | 0): Promise<T> {
  for (;;) {
    const v = fn();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
}
