/**
 * The CLI rendering runs live (`run`, `tail`), as a child process against the test dev server, with
 * agents whose scripted answers stream and whose attempts fail after streaming part of an answer.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { StreamEvent } from '../../src/client/live';
import type { AgentRunResult } from '../../src/core/run/result';
import { SCRIPTED_AGENTS_TS, writeModules } from '../helpers/agents-module';
import { runCli, startCli, tempHome } from '../helpers/cli-run';

const repo = join(__dirname, '..', '..');
const q = (path: string) => JSON.stringify(path);

const DRAFT = 'A first draft, streamed by an attempt that then fails: it must not stay in the answer.';
const ANSWER_LINES = ['The answer is forty-two,', 'streamed in pieces and checked twice.'];

/**
 * `teller`: step 1 streams a sentence and calls `pause` (a tool that takes 700 ms, reporting progress); step 2's first
 * attempt streams a draft and fails after it (retryable), its second streams the two-line answer.
 */
const LIVE_AGENTS_TS = `
import { z } from ${q(require.resolve('zod'))};
import { defineAgent, defineTool } from ${q(join(repo, 'src', 'agents', 'define'))};
import { ScriptedProvider } from ${q(join(repo, 'src', 'integrations', 'providers', 'scripted'))};

const pause = defineTool({
  name: 'pause',
  description: 'Wait a while',
  input: z.object({ ms: z.number() }),
  execute: async ({ ms }, ctx) => {
    ctx.progress({ message: 'pausing', fraction: 0.5 });
    await new Promise((r) => setTimeout(r, ms));
    return 'paused ' + ms + ' ms';
  },
});

export const teller = defineAgent({
  name: 'teller',
  model: { provider: 'scripted', model: 'teller' },
  tools: [pause],
  modelRetry: { maximumAttempts: 3, initialInterval: '100ms', maximumInterval: '200ms' },
});

export const providers = {
  scripted: new ScriptedProvider({
    teller: (_request, ctx) =>
      ctx.step === 1
        ? { text: 'Let me take a moment.', toolCalls: [{ name: 'pause', args: { ms: 700 } }], stream: { chunks: 6, intervalMs: 40 } }
        : ctx.attempt === 1
          ? { text: ${JSON.stringify(DRAFT)}, stream: { chunks: 12, intervalMs: 60 }, failures: [{ message: 'connection reset mid-answer', retryable: true, afterStreaming: true }] }
          : { text: ${JSON.stringify(ANSWER_LINES.join('\n'))}, stream: { chunks: 12, intervalMs: 50 } },
  }),
};
`;

const home = tempHome();
const address = inject('temporalAddress');
const dir = writeModules({ 'live.ts': LIVE_AGENTS_TS, 'agents.ts': SCRIPTED_AGENTS_TS });
const live = join(dir, 'live.ts');
/** The answer as the CLI prints text: each line indented by four spaces. */
const RENDERED_ANSWER = ANSWER_LINES.map((l) => `    ${l}`).join('\n');
/** Frames of ora's default spinner. */
const SPINNER_FRAMES = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

const occurrences = (text: string, part: string) => text.split(part).length - 1;

/**
 * The text the CLI printed under `label` (e.g. `[step 2] text (attempt 2)`): the indented lines after
 * `label:` and after each `label, continued:`, the pieces joined as they were streamed.
 */
function streamedText(out: string, label: string): string {
  const lines = out.split('\n');
  const pieces: string[] = [];
  lines.forEach((line, i) => {
    if (line !== `${label}:` && line !== `${label}, continued:`) return;
    const text: string[] = [];
    for (let j = i + 1; j < lines.length && lines[j]!.startsWith('    '); j++) text.push(lines[j]!.slice(4));
    pieces.push(text.join('\n'));
  });
  return pieces.join('');
}
const onServer = (taskQueue: string) => ['--address', address, '--task-queue', taskQueue];

describe('durable-agent run, rendered live (not a terminal)', () => {
  const workflowId = `cli-live-${randomUUID().slice(0, 8)}`;
  const taskQueue = `cli-live-${randomUUID()}`;

  it('streams the text, shows the tool and the retry, marks the failed attempt void, shows the answer once, closes with a summary', async () => {
    const r = await runCli(['run', 'tell me', '--agents', live, '--workflow-id', workflowId, ...onServer(taskQueue)], { home });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = r.stdout;
    // Plain output for pipes: no ANSI codes, no spinner frames.
    expect(out.includes('\u001b[')).toBe(false);
    expect(out).not.toMatch(SPINNER_FRAMES);
    // The durable events, in order. A step's text is streamed beside them: its deltas are read from the
    // model activity and the durable events from the run's event log, each on its own poll, so its first
    // deltas can show before the step's "calling" line, and the text then goes on under "…, continued:".
    const order = [
      `run ${workflowId} started`,
      '[step 1] calling scripted/teller',
      '[step 1] tool call pause {"ms":700}',
      '[step 1] tool result pause ok',
      '[step 2] calling scripted/teller',
      '[step 2] attempt 1 failed (server: connection reset mid-answer); retrying in',
      "[step 2] attempt 1's text above is void: the attempt failed: connection reset mid-answer; it is not part of the answer",
      '[step 2] calling scripted/teller (attempt 2)',
      '[done] success after 2 steps',
      'Result',
    ].map((s) => out.indexOf(s));
    expect(
      order.every((i) => i >= 0),
      JSON.stringify(order) + '\n' + out,
    ).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    // Each text reads whole, however its pieces were split, and shows where it belongs.
    expect(streamedText(out, '[step 1] text'), out).toBe('Let me take a moment.');
    expect(streamedText(out, '[step 2] text'), out).toMatch(/^A first/);
    expect(streamedText(out, '[step 2] text (attempt 2)'), out).toBe(ANSWER_LINES.join('\n'));
    expect(out.indexOf('[step 1] text:')).toBeLessThan(out.indexOf('[step 1] tool call pause'));
    expect(out.indexOf('[step 2] text:')).toBeLessThan(out.indexOf('[step 2] attempt 1 failed'));
    expect(out.indexOf('[step 2] text (attempt 2):')).toBeGreaterThan(out.indexOf("[step 2] attempt 1's text above is void"));
    expect(out.indexOf('[step 2] text (attempt 2):')).toBeLessThan(out.indexOf('[done] success'));
    // The draft was streamed (its text never reaches the transcript: only deltas can show it) and marked;
    // the answer appears once, the summary does not repeat it.
    expect(occurrences(out, '[step 2] text (attempt 2):')).toBe(1);
    expect(occurrences(out, ANSWER_LINES.at(-1)!)).toBe(1);
    expect(out.slice(out.indexOf('is void')).includes('A first draft')).toBe(false);
    expect(out).toMatch(/status: +success/);
    expect(out).toMatch(/steps: +2/);
    expect(out).toMatch(/usage: +\d+ input \/ \d+ output tokens/);
    expect(out).toMatch(/cost: +/);
    expect(out).toMatch(/duration: +\d/);
    expect(out).toContain('final text: shown above');
    expect(out).toMatch(/step 2 +scripted\/teller +\d+ ms +end_turn, 2 attempts/);
  });

  it("tail --after <seq> goes on from an event: later events only, the late step's text whole", async () => {
    const all = await runCli(['tail', workflowId, '--json', '--agents', live, ...onServer(taskQueue)], { home });
    expect(all.code).toBe(0);
    const events = all.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as StreamEvent | { type: 'result' });
    const toolResult = events.find((e): e is Extract<StreamEvent, { type: 'tool_result' }> => e.type === 'tool_result');
    expect(toolResult).toBeDefined();
    const r = await runCli(['tail', workflowId, '--after', String(toolResult!.seq), '--agents', live, ...onServer(taskQueue)], { home });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('[step 1]');
    expect(r.stdout).toContain(`[step 2] text:\n${RENDERED_ANSWER}\n`);
    expect(r.stdout).not.toContain('A first draft'); // a reader attaching late sees only what survived
    expect(r.stdout).toContain('[done] success after 2 steps');
    expect(r.stdout).toContain('final text: shown above');
    // `watch` is the same command.
    const watched = await runCli(['watch', workflowId, '--after', String(toolResult!.seq), '--agents', live, ...onServer(taskQueue)], {
      home,
    });
    expect(watched.stdout).toBe(r.stdout);
  });

  it('tail --after refuses what is not a seq', async () => {
    const r = await runCli(['tail', workflowId, '--after', '-1', ...onServer(taskQueue)], { home });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/option '--after <seq>' argument '-1' is invalid\. must be a whole number/);
  });
});

describe('durable-agent run --json', () => {
  it('prints one stream event a line, deltas and the voided attempt included, then the result', async () => {
    const r = await runCli(['run', 'tell me', '--json', '--agents', live, ...onServer(`cli-live-json-${randomUUID()}`)], { home });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    const records = lines.map((l) => JSON.parse(l) as StreamEvent | { type: 'result'; result: AgentRunResult });
    const last = records.at(-1);
    expect(last?.type).toBe('result');
    if (last?.type === 'result' && 'result' in last) {
      expect(last.result.status).toBe('success');
      expect(last.result.finalText).toBe(ANSWER_LINES.join('\n'));
    }
    const events = records.slice(0, -1) as StreamEvent[];
    const deltas = events.filter((e) => e.type === 'delta');
    expect(deltas.some((d) => d.step === 2 && d.attempt === 1 && d.delta.type === 'text')).toBe(true);
    expect(deltas.some((d) => d.step === 2 && d.attempt === 2 && d.delta.type === 'text')).toBe(true);
    expect(events).toContainEqual(expect.objectContaining({ type: 'attempt_voided', step: 2, attempt: 1 }));
    // The running tool's progress, live, before its result (it may come before the call's durable event is read).
    const progress = events.findIndex((e) => e.type === 'tool_progress');
    expect(events[progress]).toMatchObject({
      type: 'tool_progress',
      step: 1,
      tool: 'pause',
      attempt: 1,
      n: 0,
      message: 'pausing',
      fraction: 0.5,
    });
    expect(progress).toBeLessThan(events.findIndex((e) => e.type === 'tool_result'));
    const durable = events.filter((e) => 'seq' in e);
    expect(durable.map((e) => ('seq' in e ? e.seq : -1))).toEqual(durable.map((_, i) => i));
    expect(durable.at(-1)).toMatchObject({ type: 'done', status: 'success' });
  });
});

describe('an approval while following live', () => {
  it('shows the exact command that decides it, and the run goes on once it is typed', { timeout: 120_000 }, async () => {
    const workflowId = `cli-live-approve-${randomUUID().slice(0, 8)}`;
    const taskQueue = `cli-live-approve-${randomUUID()}`;
    const agents = join(dir, 'agents.ts');
    const running = startCli(
      ['run', 'wipe it', '--agents', agents, '--agent', 'wiper', '--workflow-id', workflowId, ...onServer(taskQueue)],
      { home, timeoutMs: 110_000 },
    );
    const command = `durable-agent approve ${workflowId} call_wipe`;
    await running.waitFor(command);
    const decided = await runCli(['approve', workflowId, 'call_wipe', '--by', 'ops:alice', '--address', address], { home });
    expect(decided.code).toBe(0);
    const r = await running.done;
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('[step 1] waiting for a person to approve wipe');
    expect(r.stdout).toContain('[step 1] approve wipe (call_wipe) by ops:alice');
    expect(r.stdout).toContain('done wiping');
    expect(r.stdout).not.toMatch(SPINNER_FRAMES);
  });
});
