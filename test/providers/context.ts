/** A model call context for calling providers directly, outside an activity. */
import type { Message } from '../../core/messages';
import type { ModelRequest } from '../../core/model';
import { expect } from 'vitest';
import type { ModelCallContext, ModelProvider } from '../../providers/types';
import { ProviderError } from '../../providers/types';
import type { RecordedRequest, ReplayServer } from './replay-server';

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

/** One call of `provider` answered by `sse` from the replay server: the response, the request it sent, its context. */
export async function replayCall(server: ReplayServer, provider: ModelProvider, sse: string | string[], req: ModelRequest) {
  server.enqueue({ sse });
  const ctx = callContext();
  const before = server.requests.length;
  const response = await provider.generate(req, ctx);
  return { response, sent: server.requests[before] as RecordedRequest, ctx };
}

/**
 * One call of `provider` answered by `reply`, which must fail with a ProviderError after exactly one
 * request: the SDK's own retries are off, whatever the error.
 */
export async function failedCall(server: ReplayServer, provider: ModelProvider, reply: Parameters<ReplayServer['enqueue']>[0], req: ModelRequest): Promise<ProviderError> {
  server.enqueue(reply);
  const before = server.requests.length;
  const err = await rejection(provider.generate(req, callContext()));
  expect(err).toBeInstanceOf(ProviderError);
  expect(server.requests.length - before).toBe(1);
  return err as ProviderError;
}
