/**
 * The driver every streaming provider runs its calls through (providers/stream-call.ts): parts in order with
 * a heartbeat each, the stop at an error part, a cut stream, aborts, classification, and the SDK client's
 * retries off. Each provider's own files test its pieces on the wire (anthropic/openai/ai-sdk tests).
 */
import { describe, expect, it } from 'vitest';
import type { ModelResponse } from '../../src/core/output/native-output';
import { sdkConnectionFailure } from '../../src/integrations/providers/errors';
import type { StreamAssembler, StreamCall } from '../../src/integrations/providers/stream-call';
import { sdkClientOptions, sdkEventStream, streamCall } from '../../src/integrations/providers/stream-call';
import { ProviderError } from '../../src/integrations/providers/types';
import { callContext, rejection } from './context';

type Part = { text: string } | { end: true; model?: string } | { error: unknown };

/** Text parts joined; `end` completes the answer; `error` is an in-band failure. */
class TextAssembler implements StreamAssembler<Part> {
  text = '';
  model = '';
  complete = false;
  error: { error: unknown } | undefined;
  push(part: Part): void {
    if ('text' in part) this.text += part.text;
    else if ('end' in part) {
      this.complete = true;
      this.model = part.model ?? '';
    } else this.error ??= { error: part.error };
  }
  result(): ModelResponse {
    return {
      message: { role: 'assistant', content: [{ type: 'text', text: this.text }] },
      stopReason: 'end_turn',
      usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
      model: this.model,
    };
  }
}

/** A stream of `parts` that records how many of them were read. */
function partsOf(parts: Part[]): { read: number; stream: AsyncIterable<Part> } {
  const state = { read: 0, stream: emit() };
  async function* emit(): AsyncGenerator<Part> {
    for (const part of parts) {
      state.read++;
      yield await Promise.resolve(part);
    }
  }
  return state;
}

function classify(err: unknown): ProviderError {
  if (err instanceof ProviderError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new ProviderError(`Test failed: ${message}`, { kind: 'unknown', retryable: true, cause: err });
}

function call(open: StreamCall<Part>['open'], assembler = new TextAssembler()): StreamCall<Part> {
  return { label: 'Test', end: 'the end part', open, assembler, classify, model: 'asked-model' };
}

describe('streamCall', () => {
  it('feeds every part to the assembler with a heartbeat each, and reports the model the stream named', async () => {
    const ctx = callContext();
    const source = partsOf([{ text: 'Hel' }, { text: 'lo' }, { end: true, model: 'answering-model' }]);
    const response = await streamCall(
      call(() => Promise.resolve(source.stream)),
      ctx,
    );
    expect(response.message.content).toEqual([{ type: 'text', text: 'Hello' }]);
    expect(response.model).toBe('answering-model');
    expect(ctx.beats).toBe(3);
  });

  it('reports the requested model when the stream named none', async () => {
    const response = await streamCall(
      call(() => Promise.resolve(partsOf([{ end: true }]).stream)),
      callContext(),
    );
    expect(response.model).toBe('asked-model');
  });

  it('fails a stream cut before its end with a retryable connection error naming the end', async () => {
    const err = await rejection(
      streamCall(
        call(() => Promise.resolve(partsOf([{ text: 'Hel' }]).stream)),
        callContext(),
      ),
    );
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ kind: 'connection', retryable: true });
    expect((err as Error).message).toBe('Test stream ended before the end part: the connection was cut');
  });

  it('stops reading at an error part and fails with it, classified', async () => {
    const source = partsOf([{ text: 'Hel' }, { error: new Error('overloaded') }, { text: 'lo' }, { end: true }]);
    const err = await rejection(
      streamCall(
        call(() => Promise.resolve(source.stream)),
        callContext(),
      ),
    );
    expect(err).toMatchObject({ message: 'Test failed: overloaded', retryable: true });
    expect(source.read).toBe(2);
  });

  it('classifies what opening the call threw', async () => {
    const err = await rejection(
      streamCall(
        call(() => Promise.reject(new Error('HTTP 500'))),
        callContext(),
      ),
    );
    expect(err).toMatchObject({ message: 'Test failed: HTTP 500' });
  });

  it('does not start a call whose signal already aborted, and throws its reason', async () => {
    const ctx = callContext();
    const reason = new Error('activity cancelled');
    ctx.controller.abort(reason);
    let opened = false;
    const err = await rejection(
      streamCall(
        call(() => {
          opened = true;
          return Promise.resolve(partsOf([{ end: true }]).stream);
        }),
        ctx,
      ),
    );
    expect(err).toBe(reason);
    expect(opened).toBe(false);
  });

  it('throws the signal’s reason, not a classified error, when the call failed or ended because it aborted', async () => {
    const failing = callContext();
    const failed = await rejection(
      streamCall(
        call(() => {
          failing.controller.abort('cancelled');
          return Promise.reject(new Error('request aborted'));
        }),
        failing,
      ),
    );
    expect(failed).toBe('cancelled');

    // An SDK ends the iteration quietly when its request is aborted: no "cut stream" error either.
    const quiet = callContext();
    const ended = await rejection(
      streamCall(
        call(() => {
          quiet.controller.abort('cancelled');
          return Promise.resolve(partsOf([{ text: 'Hel' }]).stream);
        }),
        quiet,
      ),
    );
    expect(ended).toBe('cancelled');
  });
});

describe('the SDK pieces', () => {
  it('turns the SDK retries off, and sends only the settings given', () => {
    expect(sdkClientOptions({ apiKey: 'k' })).toEqual({ apiKey: 'k', maxRetries: 0 });
    expect(sdkClientOptions({ apiKey: 'k', baseURL: 'http://127.0.0.1:1/v1', timeoutMs: 0 })).toEqual({
      apiKey: 'k',
      maxRetries: 0,
      baseURL: 'http://127.0.0.1:1/v1',
      timeout: 0,
    });
  });

  it('refuses an answer that is not an event stream, quoting it', async () => {
    const response = new Response('{"ok":true}', { status: 200, headers: { 'content-type': 'application/json' } });
    const err = await rejection(sdkEventStream('Test', { withResponse: () => Promise.resolve({ data: 'stream', response }) }));
    expect(err).toMatchObject({ kind: 'invalid_response', retryable: false, type: 'not_event_stream' });
    expect((err as Error).message).toContain('{"ok":true}');
    const sse = new Response('', { status: 200, headers: { 'content-type': 'text/event-stream' } });
    const streamed = sdkEventStream('Test', { withResponse: () => Promise.resolve({ data: 'stream', response: sse }) });
    await expect(streamed).resolves.toBe('stream');
  });

  it('classifies the SDK connection errors as retryable, timeouts first, and leaves other errors alone', () => {
    class APIConnectionError extends Error {}
    class APIConnectionTimeoutError extends APIConnectionError {}
    const sdk = { APIConnectionError, APIConnectionTimeoutError };
    expect(sdkConnectionFailure('Test', new APIConnectionTimeoutError('30 s'), sdk)).toMatchObject({
      kind: 'timeout',
      retryable: true,
      message: 'Test request timed out: 30 s',
    });
    expect(sdkConnectionFailure('Test', new APIConnectionError('ECONNREFUSED'), sdk)).toMatchObject({
      kind: 'connection',
      retryable: true,
      message: 'Test connection failed: ECONNREFUSED',
    });
    expect(sdkConnectionFailure('Test', new Error('400'), sdk)).toBeUndefined();
  });
});
