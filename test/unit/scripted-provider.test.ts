/** The scripted model provider (providers/scripted.ts). */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Message } from '../../src/core/messages/messages';
import type { ModelRequest } from '../../src/core/output/native-output';
import type { Script } from '../../src/integrations/providers/scripted';
import { ScriptedProvider } from '../../src/integrations/providers/scripted';
import type { ModelCallContext } from '../../src/integrations/providers/types';
import { ProviderError } from '../../src/integrations/providers/types';

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string): Message => ({ role: 'assistant', content: [{ type: 'text', text }] });

function request(messages: Message[], model = 'demo'): ModelRequest {
  return { model, messages, maxTokens: 1000, tools: [] };
}

function context(attempt = 1, signal = new AbortController().signal, heartbeat = () => undefined, step = 1): ModelCallContext {
  return { signal, heartbeat, attempt, step };
}

/** The model call of a run whose transcript is `messages`: its step is one more than the answers in it. */
async function generate(p: ScriptedProvider, messages: Message[]) {
  return p.generate(request(messages), context(1, undefined, undefined, messages.filter((m) => m.role === 'assistant').length + 1));
}

async function failure(p: Promise<unknown>): Promise<ProviderError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ProviderError)) throw new Error(`expected a ProviderError, got ${String(err)}`);
  return err;
}

afterEach(() => {
  vi.useRealTimers();
});

const SCRIPT: Script = [
  {
    text: 'first',
    toolCalls: [
      { name: 'read', args: { path: 'a' } },
      { name: 'read', args: { path: 'b' }, id: 'mine' },
    ],
  },
  { text: 'second' },
  { text: 'third', stopReason: 'max_tokens', toolCalls: [{ name: 'write', args: {}, incomplete: true }] },
];

describe('ScriptedProvider', () => {
  it('picks the reply by the step (the number of answers so far, plus one)', async () => {
    const p = new ScriptedProvider({ demo: SCRIPT });
    expect((await generate(p, [user('hi')])).message.content[0]).toEqual({ type: 'text', text: 'first' });
    const two = [user('a'), assistant('x'), user('b'), user('c'), assistant('y'), user('d')];
    expect((await generate(p, two)).message.content[0]).toEqual({ type: 'text', text: 'third' });
    expect((await generate(p, [user('a'), assistant('x'), user('b')])).message.content[0]).toEqual({
      type: 'text',
      text: 'second',
    });
  });

  it('gives calls default ids call_<step>_<index> and keeps explicit ones', async () => {
    const p = new ScriptedProvider({ demo: SCRIPT });
    const first = await generate(p, [user('hi')]);
    expect(first.message.content.slice(1)).toEqual([
      { type: 'tool_use', id: 'call_1_0', name: 'read', input: { path: 'a' } },
      { type: 'tool_use', id: 'mine', name: 'read', input: { path: 'b' } },
    ]);
    const third = await generate(p, [user('a'), assistant('x'), user('b'), assistant('y'), user('c')]);
    expect(third.message.content[1]).toEqual({ type: 'tool_use', id: 'call_3_0', name: 'write', input: {}, incomplete: true });
  });

  it('makes calls with raw argument text (kept with its parse error) or a non-object value, as a real provider would', async () => {
    const p = new ScriptedProvider({
      demo: [
        {
          toolCalls: [
            { name: 'refund', args: {}, rawArgs: '{"orderId":"A1","amount": 5' },
            { name: 'refund', args: ['A1'] },
            { name: 'refund', args: {}, rawArgs: '{"orderId":"A1"}' },
          ],
        },
      ],
    });
    const { message } = await generate(p, [user('hi')]);
    expect(message.content).toEqual([
      { type: 'tool_use', id: 'call_1_0', name: 'refund', input: '{"orderId":"A1","amount": 5', inputError: expect.stringMatching(/JSON/) },
      { type: 'tool_use', id: 'call_1_1', name: 'refund', input: ['A1'] },
      { type: 'tool_use', id: 'call_1_2', name: 'refund', input: { orderId: 'A1' } },
    ]);
  });

  it('defaults the stop reason to tool_use with calls and end_turn without', async () => {
    const p = new ScriptedProvider({ demo: SCRIPT });
    expect((await generate(p, [user('a')])).stopReason).toBe('tool_use');
    expect((await generate(p, [user('a'), assistant('x'), user('b')])).stopReason).toBe('end_turn');
    expect((await generate(p, [user('a'), assistant('x'), user('b'), assistant('y'), user('c')])).stopReason).toBe('max_tokens');
  });

  it('estimates usage unless the script sets it, and answers as the requested model', async () => {
    const p = new ScriptedProvider({ demo: [{ text: 'hello' }], fixed: [{ text: 'hi', usage: { inputTokens: 7, cacheReadTokens: 3 } }] });
    const estimated = await generate(p, [user('x'.repeat(400))]);
    expect(estimated.model).toBe('demo');
    expect(estimated.usage.inputTokens).toBeGreaterThanOrEqual(100);
    expect(estimated.usage.outputTokens).toBeGreaterThan(0);
    const fixed = await p.generate(request([user('x')], 'fixed'), context());
    expect(fixed.usage).toEqual({ inputTokens: 7, outputTokens: fixed.usage.outputTokens, cacheReadTokens: 3, cacheWriteTokens: 0 });
  });

  it('fails attempt k with failures[k-1], then succeeds', async () => {
    const p = new ScriptedProvider({
      demo: [
        {
          text: 'finally',
          failures: [
            { message: 'slow down', kind: 'rate_limit', status: 429, type: 'rate_limit_error', retryAfterMs: 1500 },
            { message: 'oops' },
            { message: 'bad', kind: 'invalid_request', retryable: false, status: 400 },
          ],
        },
      ],
    });
    const first = await failure(p.generate(request([user('a')]), context(1)));
    expect(first).toMatchObject({
      message: 'slow down',
      kind: 'rate_limit',
      retryable: true,
      status: 429,
      type: 'rate_limit_error',
      retryAfterMs: 1500,
    });

    const second = await failure(p.generate(request([user('a')]), context(2)));
    expect(second).toMatchObject({ message: 'oops', kind: 'server', retryable: true });
    expect(second.status).toBeUndefined();
    expect(second.retryAfterMs).toBeUndefined();

    const third = await failure(p.generate(request([user('a')]), context(3)));
    expect(third).toMatchObject({ kind: 'invalid_request', retryable: false, status: 400 });

    expect((await p.generate(request([user('a')]), context(4))).message.content).toEqual([{ type: 'text', text: 'finally' }]);
  });

  it('fails without retry once the script is exhausted', async () => {
    const p = new ScriptedProvider({ demo: [{ text: 'only' }] });
    const err = await failure(generate(p, [user('a'), assistant('only'), user('b')]));
    expect(err).toMatchObject({ kind: 'invalid_request', retryable: false, type: 'script_exhausted' });
    expect(err.message).toMatch(/no reply for step 2 \(script has 1\)/);
  });

  it('fails without retry for a model it has no script for', async () => {
    const err = await failure(new ScriptedProvider({ demo: [] }).generate(request([user('a')], 'other'), context()));
    expect(err).toMatchObject({ kind: 'not_found', retryable: false, status: 404 });
    expect(err.message).toContain('"other"');
  });

  it('passes the request and context to a function script; set() replaces scripts', async () => {
    const p = new ScriptedProvider().set('fn', (req, ctx) => ({ text: `${req.messages.length} messages, attempt ${ctx.attempt}` }));
    const out = await p.generate(request([user('a'), assistant('b'), user('c')], 'fn'), context(2));
    expect(out.message.content).toEqual([{ type: 'text', text: '3 messages, attempt 2' }]);
    p.set('fn', [{ text: 'replaced' }]);
    expect((await p.generate(request([user('a')], 'fn'), context())).message.content).toEqual([{ type: 'text', text: 'replaced' }]);
  });

  it('heartbeats during a delay', async () => {
    vi.useFakeTimers();
    const heartbeat = vi.fn();
    const p = new ScriptedProvider({ demo: [{ text: 'late', delayMs: 3500 }] });
    const pending = p.generate(request([user('a')]), context(1, new AbortController().signal, heartbeat));
    await vi.advanceTimersByTimeAsync(3500);
    expect((await pending).message.content).toEqual([{ type: 'text', text: 'late' }]);
    expect(heartbeat).toHaveBeenCalledTimes(3);
  });

  it('rejects when aborted during the delay, with the abort reason', async () => {
    const p = new ScriptedProvider({ demo: [{ text: 'never', delayMs: 60_000 }] });
    const controller = new AbortController();
    const pending = p.generate(request([user('a')]), context(1, controller.signal));
    const reason = new Error('run cancelled');
    setTimeout(() => controller.abort(reason), 10);
    await expect(pending).rejects.toBe(reason);

    const already = new AbortController();
    already.abort();
    await expect(p.generate(request([user('a')]), context(1, already.signal))).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('ScriptedProvider windows and summaries', () => {
  it('refuses a request over its window as an API does (400, prompt is too long), and remembers the largest request', async () => {
    const p = new ScriptedProvider({ demo: [{ text: 'ok' }, { text: 'ok' }] }, { windows: { demo: 100 } });
    expect((await generate(p, [user('short')])).message.content).toEqual([{ type: 'text', text: 'ok' }]);
    const err = await failure(generate(p, [user('x'.repeat(1000))]));
    expect(err).toMatchObject({ kind: 'context_overflow', retryable: false, status: 400 });
    expect(err.message).toMatch(/^prompt is too long: \d+ tokens > 100 maximum$/);
    expect(p.largestRequest.get('demo')).toBeGreaterThan(250);
  });

  it('answers summary requests from a function script, else with an extract, without using up list replies', async () => {
    const summary = (p: ScriptedProvider) =>
      p.generate(request([user('the conversation to summarise')]), { ...context(), step: 7, purpose: 'summary' });
    const listed = new ScriptedProvider({ demo: [{ text: 'first' }] });
    expect(messageTextOf(await summary(listed))).toMatch(/^Scripted summary of \d+ characters: the conversation to summarise/);
    expect((await generate(listed, [user('hi')])).message.content[0]).toEqual({ type: 'text', text: 'first' });
    const fn = new ScriptedProvider({
      demo: (_r, ctx) => (ctx.purpose === 'summary' ? { text: `summary at ${ctx.step}` } : { text: 'step' }),
    });
    expect(messageTextOf(await summary(fn))).toBe('summary at 7');
  });
});

function messageTextOf(r: { message: Message }): string {
  return r.message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
}
