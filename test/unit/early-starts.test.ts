/**
 * Streaming tool execution, the parts without a server: providers report each tool call as soon as it is
 * complete (`ModelCallContext.onToolCall`), the eligibility rules, the spec fields and the model
 * activity's reporter (final ids, prefix rule).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ToolUseBlock } from '../../src/core/messages/messages';
import type { EarlyToolCall } from '../../src/core/tool-calls/early';
import { earlyStartsInput, reportablePrefix, sameCall } from '../../src/core/tool-calls/early';
import type { ToolSpec } from '../../src/core/run/spec';
import { AnthropicStreamAssembler } from '../../src/integrations/providers/anthropic';
import { OpenAIStreamAssembler } from '../../src/integrations/providers/openai-stream';
import { AiSdkStreamAssembler } from '../../src/integrations/providers/ai-sdk-stream';
import type { AiSdkStreamPart } from '../../src/integrations/providers/ai-sdk-stream';
import { ScriptedProvider } from '../../src/integrations/providers/scripted';
import { EarlyCallReporter } from '../../src/activities/early-calls';
import { NO_SECRETS } from '../../src/activities/redaction';
import { defineAgent, defineTool } from '../../src/agents/define';
import { agentSpec } from '../../src/agents/registry';

type Heard = Array<[number, ToolUseBlock]>;

describe('providers report complete tool calls mid-stream', () => {
  it('Anthropic: at content_block_stop of a tool_use block, before the text after it', () => {
    const heard: Heard = [];
    const seen: string[] = [];
    const a = new AnthropicStreamAssembler(
      (d) => seen.push(d.type),
      (i, c) => {
        heard.push([i, c]);
        seen.push('call');
      },
    );
    a.push({ type: 'message_start', message: { model: 'm', usage: {} } });
    a.push({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'read', input: {} } });
    a.push({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"path":' } });
    expect(heard).toEqual([]);
    a.push({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '"a"}' } });
    a.push({ type: 'content_block_stop', index: 0 });
    a.push({ type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } });
    a.push({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'reading' } });
    // A second call cut off (never stopped): never reported.
    a.push({ type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'toolu_2', name: 'read', input: {} } });
    a.push({ type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"pa' } });
    a.push({ type: 'message_delta', delta: { stop_reason: 'max_tokens' } });
    a.push({ type: 'message_stop' });
    expect(heard).toEqual([[0, { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a' } }]]);
    expect(seen).toEqual(['tool_args', 'tool_args', 'call', 'text', 'tool_args']);
    expect(a.result().message.content[0]).toEqual(heard[0]![1]);
  });

  it('OpenAI-compatible: when the next call starts, the rest at the finish reason', () => {
    const heard: Heard = [];
    const o = new OpenAIStreamAssembler(undefined, (i, c) => heard.push([i, c]));
    const chunk = (delta: object, finish?: string) => ({ choices: [{ index: 0, delta, ...(finish ? { finish_reason: finish } : {}) }] });
    o.push(chunk({ tool_calls: [{ index: 0, id: 'c0', function: { name: 'read', arguments: '{"path":"a"}' } }] }));
    expect(heard).toEqual([]);
    o.push(chunk({ tool_calls: [{ index: 1, id: 'c1', function: { name: 'read', arguments: '{"path":' } }] }));
    expect(heard.map(([i, c]) => [i, c.id])).toEqual([[0, 'c0']]);
    o.push(chunk({ tool_calls: [{ index: 1, function: { arguments: '"b"}' } }] }));
    o.push(chunk({}, 'tool_calls'));
    expect(heard).toEqual([
      [0, { type: 'tool_use', id: 'c0', name: 'read', input: { path: 'a' } }],
      [1, { type: 'tool_use', id: 'c1', name: 'read', input: { path: 'b' } }],
    ]);
  });

  it('OpenAI-compatible: a call cut off at the length limit is not reported', () => {
    const heard: Heard = [];
    const o = new OpenAIStreamAssembler(undefined, (i, c) => heard.push([i, c]));
    o.push({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'c0', function: { name: 'read', arguments: '{"pa' } }] } }] });
    o.push({ choices: [{ index: 0, delta: {}, finish_reason: 'length' }] });
    expect(heard).toEqual([]);
  });

  it('AI SDK: at the tool-call part', () => {
    const heard: Heard = [];
    const s = new AiSdkStreamAssembler('openai', undefined, (i, c) => heard.push([i, c]));
    s.push({ type: 'tool-input-start', id: 'c0', toolName: 'read' } as AiSdkStreamPart);
    s.push({ type: 'tool-input-delta', id: 'c0', delta: '{"path":"a"}' } as AiSdkStreamPart);
    expect(heard).toEqual([]);
    s.push({ type: 'tool-call', toolCallId: 'c0', toolName: 'read', input: '{"path":"a"}' } as AiSdkStreamPart);
    expect(heard).toEqual([[0, { type: 'tool_use', id: 'c0', name: 'read', input: { path: 'a' } }]]);
  });

  it('scripted, callsFirst: the call is reported before the text streams, the text keeps streaming after', async () => {
    const order: string[] = [];
    const p = new ScriptedProvider({
      m: [
        {
          text: 'some text',
          toolCalls: [{ name: 'read', args: { path: 'a' } }],
          stream: { chunks: 3, callsFirst: true, textIntervalMs: 5 },
        },
      ],
    });
    const r = await p.generate(
      { model: 'm', messages: [], maxTokens: 10, tools: [] },
      {
        signal: new AbortController().signal,
        heartbeat: () => undefined,
        attempt: 1,
        step: 1,
        onDelta: (d) => order.push(d.type),
        onToolCall: (i, c) => order.push(`call ${i} ${c.id}`),
      },
    );
    expect(order).toEqual(['tool_args', 'tool_args', 'tool_args', 'call 0 call_1_0', 'text', 'text', 'text']);
    expect(r.message.content.map((b) => b.type)).toEqual(['tool_use', 'text']);
  });
});

const tool = (name: string, extra: Partial<ToolSpec> = {}): ToolSpec => ({
  name,
  description: name,
  inputSchema: { type: 'object' },
  readOnly: true,
  timeoutMs: 1000,
  heartbeatTimeoutMs: 1000,
  retry: { maximumAttempts: 1, initialIntervalMs: 1, backoffCoefficient: 1, maximumIntervalMs: 1 },
  onError: 'report',
  earlyStart: true,
  ...extra,
});
const call = (id: string, name: string, input: ToolUseBlock['input'] = {}): ToolUseBlock => ({ type: 'tool_use', id, name, input });

describe('eligibility', () => {
  it('only opted-in read-only plain tools whose gate runs from data', () => {
    const tools = [
      tool('read'),
      tool('write', { readOnly: false }),
      tool('plain', { earlyStart: undefined }),
      tool('wait', { builtin: { kind: 'wait', maxWaitMs: 1 } }),
      tool('child', { subAgent: { agent: 'x' } }),
      tool('panel', {
        consolidate: { agents: [], aggregate: { kind: 'fn', name: 'merge' }, onChildError: 'include' },
      }),
      tool('asks'),
      tool('checks'),
    ];
    const input = earlyStartsInput(tools, (t) =>
      t.name === 'asks' ? { kind: 'ask' } : t.name === 'checks' ? { kind: 'check' } : { kind: 'run', why: 'no_approval_needed' },
    );
    expect(input?.tools).toEqual(['read']);
    expect(earlyStartsInput([tool('write', { readOnly: false })], () => ({ kind: 'run', why: 'no_approval_needed' }))).toBeUndefined();
  });

  it('the prefix stops at the first call that may not start early (a read after a write waits)', () => {
    const early = { tools: ['read'], max: 2 };
    expect(reportablePrefix([call('a', 'read'), call('b', 'write'), call('c', 'read')], early).map((c) => c.id)).toEqual(['a']);
    expect(reportablePrefix([call('a', 'read', [1]), call('b', 'read')], early)).toEqual([]);
    expect(reportablePrefix([call('a', 'read'), call('b', 'read'), call('c', 'read')], early).map((c) => c.id)).toEqual(['a', 'b']);
  });

  it('sameCall compares id, tool and arguments whatever their key order', () => {
    const e = { callId: 'a', tool: 'read', args: { x: 1, y: [1, { b: 2, a: 1 }] } };
    expect(sameCall(e, { callId: 'a', tool: 'read', args: { y: [1, { a: 1, b: 2 }], x: 1 } })).toBe(true);
    expect(sameCall(e, { callId: 'a', tool: 'read', args: { x: 2, y: [] } })).toBe(false);
    expect(sameCall(e, { callId: 'b', tool: 'read', args: e.args })).toBe(false);
  });

  it('spec: earlyStart from the tool or its agent, read-only tools only; earlyStart without readOnly is refused', () => {
    const input = z.object({});
    const read = defineTool({ name: 'read', description: 'r', input, readOnly: true, execute: () => 'x' });
    const optOut = defineTool({ name: 'quiet', description: 'q', input, readOnly: true, earlyStart: false, execute: () => 'x' });
    const write = defineTool({ name: 'write', description: 'w', input, execute: () => 'x' });
    const own = defineTool({ name: 'own', description: 'o', input, readOnly: true, earlyStart: true, execute: () => 'x' });
    const model = { provider: 'scripted', model: 'm' };
    const byAgent = agentSpec(defineAgent({ name: 'a', model, tools: [read, optOut, write, own], earlyToolStarts: true }), 'ref');
    expect(byAgent.tools.filter((t) => t.earlyStart).map((t) => t.name)).toEqual(['read', 'own']);
    const byTool = agentSpec(defineAgent({ name: 'b', model, tools: [read, own] }), 'ref');
    expect(byTool.tools.filter((t) => t.earlyStart).map((t) => t.name)).toEqual(['own']);
    expect('earlyStart' in byTool.tools[0]!).toBe(false);
    expect(() =>
      defineAgent({ name: 'c', model, tools: [defineTool({ name: 'w2', description: 'w', input, earlyStart: true, execute: () => 'x' })] }),
    ).toThrow(/earlyStart needs readOnly: true/);
  });
});

describe('EarlyCallReporter', () => {
  const reporter = (used: (id: string) => boolean = () => false) => {
    const sent: EarlyToolCall[] = [];
    const r = new EarlyCallReporter({ tools: ['read'], max: 8 }, { step: 3, attempt: 2 }, used, NO_SECRETS, async (c) => {
      sent.push(c);
    });
    return { r, sent };
  };

  it('gives each call the id the final answer gives it and reports in order', async () => {
    const { r, sent } = reporter((id) => id === 'dup');
    r.onToolCall(1, call('dup', 'read', { p: 2 }));
    expect(sent).toEqual([]);
    r.onToolCall(0, call('', 'read', { p: 1 }));
    await r.settle();
    expect(sent).toEqual([
      { step: 3, attempt: 2, index: 0, callId: 'da_3_0', tool: 'read', args: { p: 1 } },
      { step: 3, attempt: 2, index: 1, callId: 'da_3_1', tool: 'read', args: { p: 2 } },
    ]);
  });

  it('stops at the first call that may not start early', async () => {
    const { r, sent } = reporter();
    r.onToolCall(0, call('w', 'write'));
    r.onToolCall(1, call('r', 'read'));
    await r.settle();
    expect(sent).toEqual([]);
  });
});

describe('OpenAI-compatible servers that interleave parallel calls', () => {
  it('report a call once its arguments close, before the finish, never while they are open', () => {
    const heard: Heard = [];
    const o = new OpenAIStreamAssembler(undefined, (i, c) => heard.push([i, c]));
    const args = (index: number, text: string, start?: { id: string; name: string }) => ({
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [
              { index, ...(start ? { id: start.id } : {}), function: { ...(start ? { name: start.name } : {}), arguments: text } },
            ],
          },
        },
      ],
    });
    o.push(args(0, '', { id: 'c0', name: 'time' }));
    o.push(args(1, '', { id: 'c1', name: 'date' }));
    o.push(args(0, '{"tz":'));
    o.push(args(1, '{"fmt"'));
    expect(heard).toEqual([]);
    o.push(args(0, '"UTC"}'));
    expect(heard).toEqual([[0, { type: 'tool_use', id: 'c0', name: 'time', input: { tz: 'UTC' } }]]);
    o.push(args(1, ':"iso"}'));
    o.push({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] });
    expect(heard.map(([i]) => i)).toEqual([0, 1]);
  });
});
