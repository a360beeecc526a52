/**
 * The model activity and the other activities that touch the blob store, run in the SDK's own activity
 * test environment (MockActivityEnvironment) with a real ScriptedProvider and real blob stores: storage
 * failures are StorageError (final), an answer too large for history is ModelOutputTooLarge (final),
 * and every tool call leaves with an id unique in the run.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../src/agents/define';
import { AgentRegistry } from '../../src/agents/registry';
import { createActivities } from '../../src/activities';
import { MODEL_OUTPUT_LIMIT_BYTES, callModelActivity } from '../../src/activities/model';
import { SHARED_STORE_HINT } from '../../src/activities/storage';
import type { CallModelInput, CallModelOutput } from '../../src/core/run/contract';
import { STORAGE_ERROR } from '../../src/core/run/contract';
import type { Message } from '../../src/core/messages/messages';
import { toolCalls } from '../../src/core/messages/messages';
import type { PromptSpec } from '../../src/core/run/spec';
import type { ScriptedTurn } from '../../src/integrations/providers/scripted';
import { ScriptedProvider } from '../../src/integrations/providers/scripted';
import { FileBlobStore, MemoryBlobStore } from '../../src/integrations/store/blob-store';
import { TranscriptStore } from '../../src/integrations/store/transcript-store';
import { testLogs } from '../helpers/test-logs';

const MISSING = `sha256-${'0'.repeat(64)}`;

/** The SDK's activity test environment, logging into the per-test log (printed only for a failing test). */
const mockEnv = () => new MockActivityEnvironment(undefined, { logger: testLogs });
const prompt: PromptSpec = { system: 'test', tools: [] };

/** A provider serving one scripted turn, counting its calls. */
function scripted(turn: ScriptedTurn) {
  const counter = { calls: 0 };
  const provider = new ScriptedProvider({
    m: () => {
      counter.calls++;
      return turn;
    },
  });
  return { provider, counter };
}

function input(promptRef: string, head: string | null, append: Message[], step = 1): CallModelInput {
  return { agent: 'a', model: { provider: 'scripted', model: 'm' }, promptRef, step, attempt: 1, transcript: { head, append } };
}

async function failure(p: Promise<unknown>): Promise<ApplicationFailure> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ApplicationFailure)) throw new Error(`expected an ApplicationFailure, got ${String(err)}`);
  return err;
}

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });

describe('callModel: storage failures are not model failures', () => {
  it('fails with a final StorageError naming the missing prompt and the fix, without calling the model', async () => {
    const { provider, counter } = scripted({ text: 'never' });
    const callModel = callModelActivity(new Map([['scripted', provider]]), new TranscriptStore(new MemoryBlobStore()));
    const err = await failure(mockEnv().run(callModel, input(MISSING, null, [user('hi')])));
    expect(err.type).toBe(STORAGE_ERROR);
    expect(err.nonRetryable).toBe(true);
    expect(err.details).toEqual([{ storage: true, ref: MISSING }]);
    expect(err.message).toBe(`This worker could not read the agent's prompt: blob ${MISSING} not found in memory. ${SHARED_STORE_HINT}`);
    expect(counter.calls).toBe(0);
  });

  it('fails with a StorageError when the transcript head is missing', async () => {
    const { provider, counter } = scripted({ text: 'never' });
    const store = new TranscriptStore(new MemoryBlobStore());
    const promptRef = await store.putJson(prompt);
    const callModel = callModelActivity(new Map([['scripted', provider]]), store);
    const err = await failure(mockEnv().run(callModel, input(promptRef, MISSING, [user('more')])));
    expect(err).toMatchObject({ type: STORAGE_ERROR, nonRetryable: true });
    expect(err.message).toMatch(/^This worker could not add the new messages to the transcript: blob sha256-0+ not found/);
    expect(counter.calls).toBe(0);
  });

  it('fails with a StorageError when the answer cannot be stored', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'durable-agent-test-'));
    const blobs = new FileBlobStore(dir);
    const store = new TranscriptStore(blobs);
    const promptRef = await store.putJson(prompt);
    const head = await store.append(null, [user('hi')]);
    // Every shard directory the answer could go to is a file: writing it fails, reading the rest works.
    const { provider } = scripted({ text: 'an answer' });
    for (let i = 0; i < 256; i++) {
      const shard = i.toString(16).padStart(2, '0');
      try {
        writeFileSync(join(dir, shard), 'not a directory', { flag: 'wx' });
      } catch {
        // a shard holding the prompt or the transcript: keep it
      }
    }
    const callModel = callModelActivity(new Map([['scripted', provider]]), store);
    const err = await failure(mockEnv().run(callModel, input(promptRef, head, [])));
    expect(err).toMatchObject({ type: STORAGE_ERROR, nonRetryable: true });
    expect(err.message).toMatch(/^This worker could not store the model's answer: the blob store failed: /);
  });

  it('commitTranscript and describeAgent fail with a StorageError too', async () => {
    const echo = defineTool({ name: 'echo', description: 'echo', input: z.object({ text: z.string() }), execute: ({ text }) => text });
    const agent = defineAgent({ name: 'a', model: { provider: 'scripted', model: 'm' }, tools: [echo] });
    const file = join(mkdtempSync(join(tmpdir(), 'durable-agent-test-')), 'a-file');
    writeFileSync(file, 'not a directory');
    const broken = createActivities({
      registry: new AgentRegistry([agent]),
      providers: new Map(),
      store: new TranscriptStore(new FileBlobStore(file)),
    });
    const env = mockEnv();
    const described = await failure(env.run(broken.describeAgent, { agent: 'a' }));
    expect(described).toMatchObject({ type: STORAGE_ERROR, nonRetryable: true });
    expect(described.message).toMatch(/^This worker could not store the agent's prompt: the blob store failed: /);

    const empty = createActivities({
      registry: new AgentRegistry([agent]),
      providers: new Map(),
      store: new TranscriptStore(new MemoryBlobStore()),
    });
    const committed = await failure(env.run(empty.commitTranscript, { head: MISSING, append: [user('bye')] }));
    expect(committed).toMatchObject({ type: STORAGE_ERROR, nonRetryable: true, details: [{ storage: true, ref: MISSING }] });
    expect(committed.message).toContain('could not store the last messages of the transcript');
  });
});

describe('callModel: the answer', () => {
  it('refuses an answer too large for workflow history with a final ModelOutputTooLarge saying what was too large', async () => {
    const { provider, counter } = scripted({ text: 'z'.repeat(3 * 1024 * 1024), toolCalls: [{ name: 'echo', args: { text: 'x' } }] });
    const store = new TranscriptStore(new MemoryBlobStore());
    const promptRef = await store.putJson(prompt);
    const callModel = callModelActivity(new Map([['scripted', provider]]), store);
    const err = await failure(mockEnv().run(callModel, input(promptRef, null, [user('write a lot')])));
    expect(err).toMatchObject({ type: 'ModelOutputTooLarge', nonRetryable: true, details: [{ retryable: false }] });
    expect(err.message).toMatch(
      new RegExp(
        `^The model's answer is too large to record in workflow history: \\d{7} bytes of JSON \\(3145728 characters of text, 1 tool call\\), over the limit of ${MODEL_OUTPUT_LIMIT_BYTES} bytes\\.`,
      ),
    );
    expect(MODEL_OUTPUT_LIMIT_BYTES).toBe(1.5 * 1024 * 1024);
    expect(counter.calls).toBe(1);
  });

  it('gives every tool call an id unique in the run: reused, repeated and missing ids are replaced', async () => {
    const { provider } = scripted({
      toolCalls: [
        { name: 'echo', args: { text: 'a' }, id: 'call_0' },
        { name: 'echo', args: { text: 'b' }, id: 'call_1' },
        { name: 'echo', args: { text: 'c' }, id: 'call_1' },
        { name: 'echo', args: { text: 'd' }, id: '' },
      ],
    });
    const store = new TranscriptStore(new MemoryBlobStore());
    const promptRef = await store.putJson(prompt);
    const earlier: Message[] = [
      user('go'),
      { role: 'assistant', content: [{ type: 'tool_use', id: 'call_0', name: 'echo', input: { text: 'first' } }] },
      { role: 'user', content: [{ type: 'tool_result', toolUseId: 'call_0', output: { type: 'text', text: 'first' }, isError: false }] },
    ];
    const head = await store.append(null, earlier);
    const callModel = callModelActivity(new Map([['scripted', provider]]), store);
    const out: CallModelOutput = await mockEnv().run(callModel, input(promptRef, head, [], 2));
    expect(toolCalls(out.message).map((c) => [c.id, c.input])).toEqual([
      ['da_2_0', { text: 'a' }],
      ['call_1', { text: 'b' }],
      ['da_2_2', { text: 'c' }],
      ['da_2_3', { text: 'd' }],
    ]);
    // The stored transcript holds the same ids.
    expect((await store.load(out.head)).at(-1)).toEqual(out.message);
  });
});
