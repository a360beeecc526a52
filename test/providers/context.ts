/** A model call context for calling providers directly, outside an activity. */
import type { AssistantMessage, Message, ToolUseBlock } from '../../src/core/messages/messages';
import { toolCalls } from '../../src/core/messages/messages';
import type { ModelResponse } from '../../src/core/output/native-output';
import type { ModelRequest } from '../../src/core/output/native-output';
import type { ModelDelta } from '../../src/core/events/stream';
import { expect } from 'vitest';
import type { ModelCallContext, ModelProvider } from '../../src/integrations/providers/types';
import { ProviderError } from '../../src/integrations/providers/types';
import type { RecordedRequest, ReplayServer } from './replay-server';

/** A context whose heartbeats are counted and whose signal the test controls. */
export function callContext(
  controller = new AbortController(),
): ModelCallContext & { beats: number; controller: AbortController; deltas: ModelDelta[]; calls: Array<[number, ToolUseBlock]> } {
  const ctx = {
    beats: 0,
    deltas: [] as ModelDelta[],
    onDelta(d: ModelDelta) {
      ctx.deltas.push(d);
    },
    calls: [] as Array<[number, ToolUseBlock]>,
    onToolCall(index: number, call: ToolUseBlock) {
      ctx.calls.push([index, call]);
    },
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
  expectReportedCalls(ctx.calls, response);
  return { response, sent: server.requests[before] as RecordedRequest, ctx };
}

/**
 * Streaming tool execution's promise, checked on every replayed answer: each call a provider reported
 * mid-stream (`onToolCall`) is, once, exactly the call the final answer holds at that position, never a
 * cut-off one; and every call whose arguments parse, of an answer not cut off, was reported.
 */
export function expectReportedCalls(calls: ReadonlyArray<[number, ToolUseBlock]>, response: ModelResponse): void {
  const final = toolCalls(response.message);
  expect(new Set(calls.map(([i]) => i)).size).toBe(calls.length);
  for (const [i, call] of calls) {
    expect(final[i]?.incomplete).toBeUndefined();
    expect(call).toEqual(final[i]);
  }
  // Calls whose arguments parse, of an answer that was not cut off: all of them, early or at the end.
  const whole = final.flatMap((c, i) => (c.inputError === undefined && !c.incomplete ? [i] : []));
  if (response.stopReason !== 'max_tokens') expect(calls.map(([i]) => i).filter((i) => whole.includes(i))).toEqual(whole);
}

/**
 * One call of `provider` answered by `reply`, which must fail with a ProviderError after exactly one
 * request: the SDK's own retries are off, whatever the error.
 */
export async function failedCall(
  server: ReplayServer,
  provider: ModelProvider,
  reply: Parameters<ReplayServer['enqueue']>[0],
  req: ModelRequest,
): Promise<ProviderError> {
  server.enqueue(reply);
  const before = server.requests.length;
  const err = await rejection(provider.generate(req, callContext()));
  expect(err).toBeInstanceOf(ProviderError);
  expect(server.requests.length - before).toBe(1);
  return err as ProviderError;
}

/**
 * Check that the deltas a call streamed add up to its answer: the text deltas to its text, and each
 * call's argument pieces to JSON equal to its input.
 */
export function expectDeltasAddUp(deltas: readonly ModelDelta[], message: AssistantMessage): void {
  const text = message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
  expect(
    deltas
      .filter((d) => d.type === 'text')
      .map((d) => d.text)
      .join(''),
  ).toBe(text);
  const calls = message.content.filter((b) => b.type === 'tool_use');
  calls.forEach((c, i) => {
    const pieces = deltas.filter((d) => d.type === 'tool_args' && d.call === i);
    if (pieces.length === 0) return;
    expect(JSON.parse(pieces.map((d) => (d.type === 'tool_args' ? d.json : '')).join(''))).toEqual(c.input);
    expect(pieces.every((d) => d.type === 'tool_args' && (d.tool === undefined || d.tool === c.name))).toBe(true);
  });
}
