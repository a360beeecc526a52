/** Structured final output: the pure rules (core/output.ts), the worker's validation and the definition checks. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { judgeAnswer, outputRequest } from '../../src/activities/output';
import { defineAgent, defineTool } from '../../src/agents/define';
import { outputSpec } from '../../src/agents/output';
import { DefinitionError } from '../../src/core/run/errors';
import {
  applyOutputAnswer,
  FINAL_ANSWER_ACCEPTED,
  FINAL_ANSWER_TOOL,
  formatIssues,
  NOT_RUN_WITH_FINAL_ANSWER,
  parseJsonAnswer,
} from '../../src/core/output/output';
import { finishRun } from '../../src/core/run/report';
import type { AgentSpec, OutputSpec } from '../../src/core/run/spec';
import type { LoopState, ModelStep } from '../../src/core/loop/state';
import { startLoop } from '../../src/core/loop/state';
import { applyModelStep } from '../../src/core/loop/transitions';
import { responseFormat, strictCompatible } from '../../src/integrations/providers/openai-request';
import { agentSpec, modelStep, use } from './core-fixtures';

const schema = z.object({ city: z.string(), temperature: z.number() });
const TOOL_MODE: OutputSpec = { schema: z.toJSONSchema(schema) as OutputSpec['schema'], mode: 'tool', maxRetries: 2 };
const NATIVE: OutputSpec = { ...TOOL_MODE, mode: 'native' };

function specWith(output: OutputSpec, maxSteps = 5): AgentSpec {
  return { ...agentSpec(undefined, maxSteps), output };
}

/** One model step through applyModelStep then applyOutputAnswer, the way the workflow drives them. */
function step(state: LoopState, spec: AgentSpec, out: ModelStep) {
  return applyOutputAnswer(applyModelStep(state, spec, out), spec, out);
}

function judged(out: ModelStep, output: OutputSpec): ModelStep {
  return { ...out, ...judgeAnswer(schema, out.message, out.stopReason, output) };
}

const META = { workflowId: 'wf', runId: 'r', startedAt: 'a', endedAt: 'b' };

describe('judgeAnswer (the worker’s zod validation of a final answer)', () => {
  it('a valid final_answer call gives the parsed output', () => {
    const out = modelStep([use('c1', FINAL_ANSWER_TOOL, { city: 'Paris', temperature: 21 })]);
    expect(judgeAnswer(schema, out.message, out.stopReason, TOOL_MODE)).toEqual({ output: { city: 'Paris', temperature: 21 } });
  });

  it('an invalid call lists zod’s issues, one a line with its path', () => {
    const out = modelStep([use('c1', FINAL_ANSWER_TOOL, { city: 'Paris', temperature: 'warm' })]);
    const v = judgeAnswer(schema, out.message, out.stopReason, TOOL_MODE);
    expect(v).toEqual({ outputErrors: expect.stringMatching(/^- temperature: .*expected number/) });
  });

  it('native: the text is parsed as JSON (fenced too); not JSON is an error', () => {
    expect(
      judgeAnswer(schema, modelStep([{ type: 'text', text: '```json\n{"city":"Oslo","temperature":3}\n```' }]).message, 'end_turn', NATIVE),
    ).toEqual({
      output: { city: 'Oslo', temperature: 3 },
    });
    expect(judgeAnswer(schema, modelStep([{ type: 'text', text: 'It is sunny.' }]).message, 'end_turn', NATIVE)).toEqual({
      outputErrors: expect.stringContaining('not valid JSON'),
    });
  });

  it('an answer asking for other tools, or cut off, is not final: no verdict', () => {
    expect(judgeAnswer(schema, modelStep([use('c1', 'read')]).message, 'tool_use', TOOL_MODE)).toEqual({});
    expect(judgeAnswer(schema, modelStep([{ type: 'text', text: '{"city":' }]).message, 'max_tokens', NATIVE)).toEqual({});
  });

  it('tool mode: a text answer is accepted when it is valid JSON, else the model is told to call final_answer', () => {
    expect(
      judgeAnswer(schema, modelStep([{ type: 'text', text: '{"city":"Rome","temperature":30}' }]).message, 'end_turn', TOOL_MODE),
    ).toEqual({ output: { city: 'Rome', temperature: 30 } });
    expect(judgeAnswer(schema, modelStep([{ type: 'text', text: 'Rome, 30 degrees' }]).message, 'end_turn', TOOL_MODE)).toHaveProperty(
      'outputErrors',
    );
  });
});

describe('applyOutputAnswer', () => {
  it('a valid final_answer ends the run with its output, the call closed with a result (other calls unrun)', () => {
    const spec = specWith(TOOL_MODE);
    const t = step(
      startLoop(spec, 'weather?'),
      spec,
      judged(modelStep([use('r1', 'read'), use('c1', FINAL_ANSWER_TOOL, { city: 'Paris', temperature: 21 })]), TOOL_MODE),
    );
    expect(t.next).toEqual({ type: 'finish', status: 'success' });
    expect(t.state.output).toEqual({ city: 'Paris', temperature: 21 });
    const results = t.state.messages.at(-1)!;
    expect(results.content).toEqual([
      { type: 'tool_result', toolUseId: 'r1', output: { type: 'text', text: NOT_RUN_WITH_FINAL_ANSWER }, isError: true },
      { type: 'tool_result', toolUseId: 'c1', output: { type: 'text', text: FINAL_ANSWER_ACCEPTED }, isError: false },
    ]);
    const result = finishRun(t.state, 'success', META);
    expect(result.output).toEqual({ city: 'Paris', temperature: 21 });
    expect(result.finalText).toBe('{"city":"Paris","temperature":21}');
  });

  it('an invalid final_answer is fed back as the call’s error result, then a fixed one succeeds', () => {
    const spec = specWith(TOOL_MODE);
    const t1 = step(startLoop(spec, 'weather?'), spec, judged(modelStep([use('c1', FINAL_ANSWER_TOOL, { city: 'Paris' })]), TOOL_MODE));
    expect(t1.next).toEqual({ type: 'call_model' });
    expect(t1.state.outputRetries).toBe(1);
    const fed = t1.state.messages.at(-1)!.content[0]!;
    expect(fed).toMatchObject({
      type: 'tool_result',
      toolUseId: 'c1',
      isError: true,
      output: { text: expect.stringMatching(/does not match the required output schema:\n- temperature: /) },
    });
    expect(t1.events).toContainEqual(expect.objectContaining({ type: 'output_rejected', step: 1, retrying: true }));
    const t2 = step(t1.state, spec, judged(modelStep([use('c2', FINAL_ANSWER_TOOL, { city: 'Paris', temperature: 20 })]), TOOL_MODE));
    expect(t2.next).toEqual({ type: 'finish', status: 'success' });
    expect(t2.state.outputRetries).toBeUndefined();
  });

  it('native: an invalid text answer is fed back as a user turn', () => {
    const spec = specWith(NATIVE);
    const t = step(startLoop(spec, 'weather?'), spec, judged(modelStep([{ type: 'text', text: '{"city": 3}' }]), NATIVE));
    expect(t.next).toEqual({ type: 'call_model' });
    expect(t.state.messages.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'text', text: expect.stringContaining('- city: ') }] });
  });

  it('invalid more than maxRetries times ends output_invalid with the errors and the last answer', () => {
    const spec = specWith({ ...TOOL_MODE, maxRetries: 1 });
    const bad = () => judged(modelStep([use(`c${Math.random()}`, FINAL_ANSWER_TOOL, { city: 7, temperature: 1 })]), TOOL_MODE);
    const t1 = step(startLoop(spec, 'weather?'), spec, bad());
    expect(t1.next.type).toBe('call_model');
    const t2 = step(t1.state, spec, bad());
    expect(t2.next).toEqual({
      type: 'finish',
      status: 'output_invalid',
      error: { message: expect.stringMatching(/after 1 correction:\n- city: /), type: 'OutputInvalid' },
    });
    // The transcript stays well formed: the last call has its result.
    expect(t2.state.messages.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'tool_result', isError: true }] });
    const result = finishRun(t2.state, 'output_invalid', META, t2.next.type === 'finish' ? t2.next.error : undefined);
    expect(result.finalText).toBe('{"city":7,"temperature":1}');
    expect(result.output).toBeUndefined();
  });

  it('no retry past the step cap: output_invalid says the step limit was reached', () => {
    const spec = specWith(NATIVE, 1);
    const t = step(startLoop(spec, 'q'), spec, judged(modelStep([{ type: 'text', text: 'nope' }]), NATIVE));
    expect(t.next).toMatchObject({ status: 'output_invalid', error: { message: expect.stringContaining('step limit of 1') } });
  });

  it('a step without a verdict (tools to run) or an agent without output passes through unchanged', () => {
    const spec = specWith(TOOL_MODE);
    const out = modelStep([use('r1', 'read')]);
    const base = applyModelStep(startLoop(spec, 'q'), spec, out);
    expect(applyOutputAnswer(base, spec, out)).toBe(base);
    const plain = agentSpec();
    const t = applyModelStep(startLoop(plain, 'q'), plain, { ...out, outputErrors: 'x' });
    expect(applyOutputAnswer(t, plain, out)).toBe(t);
  });
});

describe('helpers', () => {
  it('parseJsonAnswer and formatIssues', () => {
    expect(parseJsonAnswer(' {"a":1} ')).toEqual({ value: { a: 1 } });
    expect(parseJsonAnswer('')).toEqual({ error: expect.stringContaining('empty') });
    const many = Array.from({ length: 12 }, (_, i) => ({ path: ['items', i], message: 'bad' }));
    expect(formatIssues(many).split('\n')).toHaveLength(11);
    expect(formatIssues([{ path: [], message: 'Invalid input' }])).toBe('- (the answer itself): Invalid input');
  });

  it('outputRequest: tool mode adds final_answer and says to call it; native asks the provider for the schema', () => {
    const tool = outputRequest({ system: 'Be brief.', tools: [] }, TOOL_MODE);
    expect(tool.tools.map((t) => t.name)).toEqual([FINAL_ANSWER_TOOL]);
    expect(tool.system).toMatch(/^Be brief\.\n\n.*final_answer/);
    expect(tool.output).toBeUndefined();
    const native = outputRequest({ tools: [] }, NATIVE);
    expect(native.tools).toEqual([]);
    expect(native.output).toEqual({ name: FINAL_ANSWER_TOOL, schema: NATIVE.schema });
  });

  it('responseFormat is strict only for closed objects with every property required', () => {
    const closed = z.toJSONSchema(z.object({ a: z.string(), b: z.object({ c: z.number() }) }), { io: 'output' });
    expect(strictCompatible(closed)).toBe(true);
    expect(strictCompatible(z.toJSONSchema(z.object({ a: z.string().optional() }), { io: 'output' }))).toBe(false);
    expect(responseFormat({ name: 'final_answer', schema: { type: 'object', properties: {} } })).toEqual({
      type: 'json_schema',
      json_schema: { name: 'final_answer', schema: { type: 'object', properties: {} }, strict: false },
    });
  });
});

describe('defineAgent({ output })', () => {
  const model = { provider: 'scripted', model: 'm' };

  it('records the JSON Schema; the spec’s mode follows the providers unless outputMode says', () => {
    const a = defineAgent({ name: 'a', model, output: schema });
    expect(a.outputSchema).toMatchObject({ type: 'object', required: ['city', 'temperature'] });
    expect(outputSpec(a, () => true)).toEqual({ schema: a.outputSchema, mode: 'native', maxRetries: 2 });
    expect(outputSpec(a, () => false)?.mode).toBe('tool');
    expect(
      outputSpec(
        defineAgent({ name: 'b', model, fallbackModels: [{ provider: 'anthropic', model: 'x' }], output: schema }),
        (p) => p === 'scripted',
      )?.mode,
    ).toBe('tool');
    expect(outputSpec(defineAgent({ name: 'c', model, output: schema, outputMode: 'tool', outputRetries: 0 }), () => true)).toMatchObject({
      mode: 'tool',
      maxRetries: 0,
    });
    expect(outputSpec(defineAgent({ name: 'd', model }), () => true)).toBeUndefined();
  });

  it('refuses a schema that is not an object, bad options, and a tool named final_answer', () => {
    expect(() => defineAgent({ name: 'a', model, output: z.string() as never })).toThrow(DefinitionError);
    expect(() => defineAgent({ name: 'a', model, output: z.string() as never })).toThrow(/output must be a zod object schema/);
    expect(() => defineAgent({ name: 'a', model, output: schema, outputRetries: -1 })).toThrow(/outputRetries must be a whole number/);
    expect(() => defineAgent({ name: 'a', model, output: schema, outputMode: 'json' as never })).toThrow(
      /outputMode must be "native" or "tool"/,
    );
    expect(() => defineAgent({ name: 'a', model, outputRetries: 1 })).toThrow(/set output to a z.object/);
    const fa = defineTool({ name: FINAL_ANSWER_TOOL, description: 'x', input: z.object({}), execute: () => 'x' });
    expect(() => defineAgent({ name: 'a', model, tools: [fa], output: schema })).toThrow(/rename it/);
  });
});
