/** Tool calls whose input is not a JSON object (core/call-input.ts) and how the loop answers them (core/transitions.ts). */
import { describe, expect, it } from 'vitest';
import {
  deeperThan,
  invalidCallInput,
  isJsonObject,
  MAX_ARGUMENT_DEPTH,
  QUOTED_ARGUMENTS_CHARS,
  refuseDeepArguments,
  tooDeepError,
} from '../../src/core/tool-calls/call-input';
import { parseArguments } from '../../src/integrations/providers/tool-arguments';
import type { JsonValue } from '../../src/core/messages/json';
import type { ModelStep } from '../../src/core/loop/state';
import { startLoop } from '../../src/core/loop/state';
import { applyModelStep, applyToolOutcomes } from '../../src/core/loop/transitions';
import type { AssistantContent, ToolUseBlock } from '../../src/core/messages/messages';
import type { AgentSpec, ToolSpec } from '../../src/core/run/spec';

const RETRY = { maximumAttempts: 3, initialIntervalMs: 1000, backoffCoefficient: 2, maximumIntervalMs: 30_000 };
const tool = (name: string, readOnly: boolean): ToolSpec => ({
  name,
  description: name,
  inputSchema: { type: 'object', properties: {} },
  readOnly,
  timeoutMs: 60_000,
  heartbeatTimeoutMs: 10_000,
  retry: RETRY,
  onError: 'report',
});
const SPEC: AgentSpec = {
  name: 'tester',
  models: [{ provider: 'scripted', model: 'm' }],
  tools: [tool('purge', false), tool('read', true)],
  limits: { maxSteps: 5, toolResultInlineBytes: 1024 },
  modelRetry: RETRY,
  modelTimeoutMs: 60_000,
  modelHeartbeatTimeoutMs: 10_000,
  promptRef: 'sha256-prompt',
};

const BROKEN = '{"orderId":"A1","amount": 5';
function parseError(text: string): string {
  try {
    JSON.parse(text);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('valid JSON');
}
const call = (id: string, name: string, input: JsonValue, inputError?: string): ToolUseBlock => ({
  type: 'tool_use',
  id,
  name,
  input,
  ...(inputError !== undefined ? { inputError } : {}),
});

describe('invalidCallInput', () => {
  it('lets a JSON object through', () => {
    expect(invalidCallInput(call('c', 'purge', {}))).toBeUndefined();
    expect(invalidCallInput(call('c', 'purge', { filter: { older: 3 } }))).toBeUndefined();
  });

  it('answers text that was not valid JSON: says so, quotes it, gives the parse error, says nothing ran', () => {
    const message = invalidCallInput(call('c', 'refund', BROKEN, parseError(BROKEN)));
    expect(message).toBe(
      `The arguments of this call to "refund" were not valid JSON (${parseError(BROKEN)}). You sent: ${BROKEN}\n` +
        'Nothing was run. To call "refund", send its arguments as one JSON object.',
    );
  });

  it.each([
    [['A1', 'A2'], 'an array', '["A1","A2"]'],
    ['A1', 'a string', '"A1"'],
    [5, 'a number', '5'],
    [true, 'a boolean', 'true'],
    [null, 'null', 'null'],
  ] as const)('answers valid JSON that is not an object (%j): names what it was and quotes it', (input, kind, quoted) => {
    const message = invalidCallInput(call('c', 'purge', input as JsonValue));
    expect(message).toBe(
      `The arguments of this call to "purge" were not a JSON object but ${kind}. You sent: ${quoted}\nNothing was run. To call "purge", send its arguments as one JSON object.`,
    );
  });

  it(`clips what it quotes to ${QUOTED_ARGUMENTS_CHARS} characters`, () => {
    const long = `{"text": "${'x'.repeat(5000)}`;
    const message = invalidCallInput(call('c', 'purge', long, parseError(long)))!;
    expect(message).toContain(`You sent: ${long.slice(0, QUOTED_ARGUMENTS_CHARS)}… [${long.length - QUOTED_ARGUMENTS_CHARS} more chars]`);
    expect(message.length).toBeLessThan(QUOTED_ARGUMENTS_CHARS + 400);
  });

  it('isJsonObject: objects only', () => {
    const objects: JsonValue[] = [{}, { a: 1 }];
    const others: JsonValue[] = [[], null, 'x', 1, false];
    expect(objects.every((v) => isJsonObject(v))).toBe(true);
    expect(others.some((v) => isJsonObject(v))).toBe(false);
  });
});

describe('applyModelStep with calls whose input is not an object', () => {
  const step = (content: AssistantContent[]): ModelStep => ({
    head: 'sha256-h1',
    message: { role: 'assistant', content },
    stopReason: 'tool_use',
    usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
    provider: 'scripted',
    model: 'm',
    latencyMs: 1,
    attempts: 1,
  });

  it('answers them at once with the error, never batches them, and keeps the call unaltered in the transcript', () => {
    const content: AssistantContent[] = [
      call('c1', 'purge', BROKEN, parseError(BROKEN)),
      call('c2', 'purge', ['all']),
      call('c3', 'read', { key: 'k' }),
      call('c4', 'nope', 'x'),
    ];
    const t = applyModelStep(startLoop(SPEC, 'go'), SPEC, step(content));
    expect(t.next.type).toBe('run_tools');
    if (t.next.type !== 'run_tools') return;
    const { plan } = t.next;
    expect(plan.batches.map((b) => b.map((c) => c.callId))).toEqual([['c3']]);
    expect(plan.immediate.map((o) => [o.callId, o.isError, o.attempts])).toEqual([
      ['c1', true, 0],
      ['c2', true, 0],
      ['c4', true, 0],
    ]);
    expect(plan.immediate[0]!.error).toBe(invalidCallInput(content[0] as ToolUseBlock));
    expect(plan.immediate[1]!.error).toContain('not a JSON object but an array. You sent: ["all"]');
    // A call of an unknown tool is answered about the tool (nothing would run either way).
    expect(plan.immediate[2]!.error).toContain('Unknown tool "nope"');
    expect(t.state.messages[1]).toEqual({ role: 'assistant', content });
    expect(t.events.filter((e) => e.type === 'tool_call')).toEqual([
      { type: 'tool_call', step: 1, callId: 'c1', tool: 'purge', args: BROKEN, inputError: parseError(BROKEN) },
      { type: 'tool_call', step: 1, callId: 'c2', tool: 'purge', args: ['all'] },
      { type: 'tool_call', step: 1, callId: 'c3', tool: 'read', args: { key: 'k' } },
      { type: 'tool_call', step: 1, callId: 'c4', tool: 'nope', args: 'x' },
    ]);

    // Every call gets its result, in call order, the error ones quoting what was sent.
    const read = { callId: 'c3', tool: 'read', output: { type: 'text' as const, text: 'v' }, isError: false, latencyMs: 1, attempts: 1 };
    const after = applyToolOutcomes(t.state, plan, [...plan.immediate, read]);
    const results = after.state.messages[2]!.content;
    expect(results.map((b) => b.type === 'tool_result' && [b.toolUseId, b.isError])).toEqual([
      ['c1', true],
      ['c2', true],
      ['c3', false],
      ['c4', true],
    ]);
    expect(after.next).toEqual({ type: 'call_model' });
  });
});

describe('arguments nested too deep', () => {
  const nested = (depth: number): JsonValue => {
    let v: JsonValue = 1;
    for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
    return v;
  };

  it('deeperThan counts levels of arrays and objects without recursion, at any depth', () => {
    expect(deeperThan(1, 0)).toBe(false);
    expect(deeperThan({ a: 1 }, 1)).toBe(false);
    expect(deeperThan({ a: { b: 1 } }, 1)).toBe(true);
    expect(deeperThan(nested(64), 64)).toBe(false);
    expect(deeperThan(nested(65), 64)).toBe(true);
    expect(deeperThan(nested(200_000), 64)).toBe(true);
  });

  it('a call past the limit becomes an invalid call naming the depth; others are kept as they are', () => {
    const ok: ToolUseBlock = { type: 'tool_use', id: 'c1', name: 'f', input: nested(MAX_ARGUMENT_DEPTH) as JsonValue };
    const deep: ToolUseBlock = { type: 'tool_use', id: 'c2', name: 'f', input: nested(10_000) as JsonValue };
    const message = { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'hi' }, ok] };
    expect(refuseDeepArguments(message)).toBe(message);
    const refused = refuseDeepArguments({ role: 'assistant', content: [ok, deep] });
    expect(refused.content[0]).toBe(ok);
    const block = refused.content[1] as ToolUseBlock;
    expect(block.input).toBe('(arguments nested more than 64 levels deep, not quoted)');
    expect(block.inputError).toBe(`nested more than ${MAX_ARGUMENT_DEPTH} levels deep, the limit of a call's arguments`);
    const text = invalidCallInput(block)!;
    expect(text).toMatch(
      /^The arguments of this call to "f" were nested more than 64 levels deep, the limit of a call's arguments\. You sent: \(arguments nested/,
    );
    expect(text).toMatch(/Nothing was run\. To call "f", send its arguments as one JSON object at most 64 levels deep\.$/);
  });

  it('providers keep deep argument text as sent, refused with the same error', () => {
    const text = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
    expect(parseArguments(text)).toEqual({ input: text, inputError: tooDeepError() });
    expect(invalidCallInput({ type: 'tool_use', id: 'c', name: 'f', ...parseArguments(text) })).toMatch(
      /^The arguments of this call to "f" were nested more than 64 levels deep.*You sent: \{"a":\{"a":/,
    );
    const limit = '{"a":'.repeat(MAX_ARGUMENT_DEPTH) + '1' + '}'.repeat(MAX_ARGUMENT_DEPTH);
    expect(parseArguments(limit).inputError).toBeUndefined();
  });
});
