/** Tool hooks as the runTool activity applies them (agents/hooks.ts), and their events (core/tool-hooks.ts). */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ToolHookContext, ToolHooks } from '../../src/agents/hooks';
import { afterToolCall, beforeToolCall } from '../../src/agents/hooks';
import { toolHookEvents } from '../../src/core/tool-calls/tool-hooks';
import { applyToolOutcomes, applyModelStep } from '../../src/core/loop/transitions';
import { startLoop } from '../../src/core/loop/state';
import { agentSpec, modelStep, ok, use } from './core-fixtures';

const schema = z.object({ path: z.string(), mode: z.enum(['r', 'w']).default('r') });
const call: ToolHookContext = {
  tool: 'open',
  args: { path: '/etc/passwd' },
  callId: 'c1',
  agent: 'a',
  workflowId: 'w',
  runId: 'r',
  step: 1,
  attempt: 1,
  signal: new AbortController().signal,
};

describe('beforeToolCall', () => {
  it('no hook or nothing returned: the call runs as asked', async () => {
    expect(await beforeToolCall(undefined, schema, call)).toEqual({ run: true, notes: [] });
    expect(await beforeToolCall({ beforeToolCall: () => undefined }, schema, call)).toEqual({ run: true, notes: [] });
  });

  it('block: the reason is the error result, the tool is not run', async () => {
    const r = await beforeToolCall({ beforeToolCall: () => ({ block: 'system files are off limits' }) }, schema, call);
    expect(r).toMatchObject({ run: false, notes: [{ hook: 'beforeToolCall', action: 'blocked', reason: 'system files are off limits' }] });
    expect(r.run === false && r.text).toMatch(/^Blocked: .*system files are off limits\. The tool was not run\.$/);
  });

  it('rewrite: validated against the schema, recorded as what ran', async () => {
    const r = await beforeToolCall({ beforeToolCall: ({ args }) => ({ args: { ...args, path: '/tmp/sandbox/passwd' } }) }, schema, call);
    expect(r).toEqual({
      run: true,
      data: { path: '/tmp/sandbox/passwd', mode: 'r' },
      ranArgs: { path: '/tmp/sandbox/passwd' },
      notes: [{ hook: 'beforeToolCall', action: 'rewritten' }],
    });
  });

  it('a rewrite the schema refuses, a throw or a malformed answer: an error result naming the hook', async () => {
    const bad = await beforeToolCall({ beforeToolCall: () => ({ args: { path: 5 } }) }, schema, call);
    expect(bad.run === false && bad.text).toMatch(
      /beforeToolCall hook failed for "open": it rewrote the arguments to ones the tool's schema refuses/,
    );
    const threw = await beforeToolCall({ beforeToolCall: () => Promise.reject(new Error('policy server down')) }, schema, call);
    expect(threw).toMatchObject({ run: false, notes: [{ action: 'failed', reason: 'policy server down' }] });
    const odd = await beforeToolCall({ beforeToolCall: () => 'yes' as never } as ToolHooks, schema, call);
    expect(odd.run === false && odd.text).toMatch(/return nothing, \{ block: reason \} or \{ args \}/);
  });
});

describe('afterToolCall', () => {
  it('transforms the output, or keeps it', async () => {
    const redact: ToolHooks = { afterToolCall: ({ result }) => ({ result: String(result).replace(/sk-\w+/g, '[redacted]') }) };
    expect(await afterToolCall(redact, call, 'key sk-abc123')).toEqual({
      ok: true,
      value: 'key [redacted]',
      notes: [{ hook: 'afterToolCall', action: 'transformed' }],
    });
    expect(await afterToolCall({ afterToolCall: () => undefined }, call, 'x')).toEqual({ ok: true, value: 'x', notes: [] });
  });

  it('a throw withholds the output and says so', async () => {
    const r = await afterToolCall(
      {
        afterToolCall: () => {
          throw new Error('redactor crashed');
        },
      },
      call,
      'secret',
    );
    expect(r.ok === false && r.text).toBe(
      'The tool "open" ran, but the afterToolCall hook failed: redactor crashed. Its output was withheld.',
    );
  });
});

describe('what the transcript and report record', () => {
  it('a rewritten call: the result block and the report carry what ran, the report the original as requestedArgs', () => {
    const spec = agentSpec();
    const t = applyModelStep(startLoop(spec, 'go'), spec, modelStep([use('c1', 'write', { path: '/etc/passwd' })]));
    if (t.next.type !== 'run_tools') throw new Error('expected tools');
    const outcome = ok('c1', 'write', 'done', { ranArgs: { path: '/tmp/x' }, hooks: [{ hook: 'beforeToolCall', action: 'rewritten' }] });
    const after = applyToolOutcomes(t.state, t.next.plan, [outcome]);
    const last = after.state.messages[after.state.messages.length - 1]!;
    expect(last.content[0]).toMatchObject({ type: 'tool_result', toolUseId: 'c1', ranArgs: { path: '/tmp/x' } });
    expect(after.state.toolCalls[0]).toMatchObject({ args: { path: '/tmp/x' }, requestedArgs: { path: '/etc/passwd' } });
    expect(toolHookEvents(1, outcome)).toEqual([
      { type: 'tool_hook', step: 1, callId: 'c1', tool: 'write', hook: 'beforeToolCall', action: 'rewritten', args: { path: '/tmp/x' } },
    ]);
  });

  it('an untouched call has no requestedArgs, no ranArgs and no hook events', () => {
    const spec = agentSpec();
    const t = applyModelStep(startLoop(spec, 'go'), spec, modelStep([use('c1', 'write', { a: 1 })]));
    if (t.next.type !== 'run_tools') throw new Error('expected tools');
    const after = applyToolOutcomes(t.state, t.next.plan, [ok('c1', 'write', 'done')]);
    expect(after.state.toolCalls[0]).not.toHaveProperty('requestedArgs');
    expect(after.state.messages[after.state.messages.length - 1]!.content[0]).not.toHaveProperty('ranArgs');
    expect(toolHookEvents(1, ok('c1', 'write', 'done'))).toEqual([]);
  });
});
