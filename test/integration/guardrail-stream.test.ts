/**
 * An output guardrail's tripwire on a streamed answer, on the real dev server: the rejected text is in no
 * durable event, and `run.stream()` / `textStream()` take back what was shown of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineGuardrail } from '../../src/agents/guardrails';
import type { StreamEvent } from '../../src/client/live';
import { TextAccumulator } from '../../src/client/live';
import type { TextChunk } from '../../src/core/events/stream';
import { ScriptedAgents } from '../helpers/agents';
import { allEvents } from '../helpers/events';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { collect, shown } from '../helpers/stream';

const SECRET = 'sk-abcdefghijklmnopqrstuvwxyz012345';

/** README's example. */
const noSecrets = defineGuardrail({
  name: 'no_secrets',
  kind: 'output',
  tripwire: true,
  check: ({ text }) => (/sk-\w{20,}/.test(text) ? { pass: false, reason: 'The answer contained an API key.' } : { pass: true }),
});

const stream = { chunks: 10, intervalMs: 60 };
const S = new ScriptedAgents();
S.add('leaks', [{ text: `Sure, the key is ${SECRET}, use it well.`, stream }], { tools: [], guardrails: { output: [noSecrets] } });
S.add('clean', [{ text: 'Nothing secret here, all good.', stream }], { tools: [], guardrails: { output: [noSecrets] } });

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
});
afterAll(async () => {
  await h?.stop();
});

async function watched(agent: string) {
  const run = await h.client.start(agent, { input: 'go', workflowId: testId(agent) });
  const events = await collect<StreamEvent>(run.stream({ pollMs: 20 }));
  const text = new TextAccumulator();
  const chunks: TextChunk[] = events.flatMap((e) => text.push(e));
  return { run, events, chunks, result: await run.result() };
}

describe('an output guardrail that trips on a streamed answer', () => {
  it('leaves the rejected text in no durable event, and the stream takes back what it showed', async () => {
    const { run, events, chunks, result } = await watched('leaks');
    expect(result.status).toBe('guardrail');
    expect(result.finalText).toBe('The answer contained an API key.');
    // The client saw the secret stream by...
    const streamed = events.map((e) => (e.type === 'delta' && e.delta.type === 'text' ? e.delta.text : '')).join('');
    expect(streamed).toContain('the key is');
    // ...and then saw it withdrawn: the display shows none of it.
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'attempt_voided', step: 1, attempt: 1, reason: expect.stringContaining('no_secrets') }),
    );
    expect(chunks.at(-1)).toEqual({ type: 'reset', step: 1, text: '' });
    expect(shown(chunks)).toBe('');
    // No durable event holds it.
    const durable = await allEvents(run);
    expect(durable.filter((e) => e.type === 'text')).toEqual([]);
    expect(JSON.stringify(durable)).not.toContain(SECRET);
    expect(durable.filter((e) => ['step_finished', 'guardrail', 'done'].includes(e.type)).map((e) => e.type)).toEqual([
      'step_finished',
      'guardrail',
      'done',
    ]);
  });

  it('an answer that passes keeps its text event and the display shows it', async () => {
    const { run, events, chunks, result } = await watched('clean');
    expect(result.status).toBe('success');
    expect(events.some((e) => e.type === 'attempt_voided')).toBe(false);
    expect(shown(chunks)).toBe('Nothing secret here, all good.');
    const durable = await allEvents(run);
    expect(durable.filter((e) => e.type === 'text')).toEqual([
      expect.objectContaining({ step: 1, text: 'Nothing secret here, all good.' }),
    ]);
  });
});
