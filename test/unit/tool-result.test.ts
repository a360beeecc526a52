/**
 * What the tool activity returns once a tool has returned (activities/tool.ts toolResult): never a
 * failed attempt for a value it cannot record, never more than fits in a Temporal payload.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { fitted, recordToolValue, toolResult } from '../../src/activities/tool';
import { MAX_TOOL_ACTIVITY_RESULT_BYTES, MAX_TOOL_RESULT_INLINE_BYTES } from '../../src/agents/limits';
import { STORAGE_ERROR } from '../../src/core/run/contract';
import { jsonBytes } from '../../src/core/messages/json';
import { outputText } from '../../src/core/messages/messages';
import { FileBlobStore, MemoryBlobStore } from '../../src/integrations/store/blob-store';
import { TranscriptStore } from '../../src/integrations/store/transcript-store';

/** Temporal's default payload size limit. */
const TEMPORAL_PAYLOAD_LIMIT = 2 * 1024 * 1024;

const circular = () => {
  const node: Record<string, unknown> = { name: 'loop' };
  node.self = node;
  return node;
};

describe('recordToolValue', () => {
  it('renders what JSON can encode', () => {
    expect(recordToolValue({ a: 1 })).toEqual({ ok: true, text: '{\n  "a": 1\n}' });
    expect(recordToolValue('plain')).toEqual({ ok: true, text: 'plain' });
  });

  it('says why a value cannot be recorded instead of throwing', () => {
    expect(recordToolValue({ n: 1n })).toEqual({ ok: false, reason: 'it contains a BigInt, which JSON cannot encode' });
    expect(recordToolValue(circular())).toEqual({ ok: false, reason: 'it contains a circular reference, which JSON cannot encode' });
    const throwing = {
      toJSON: () => {
        throw new Error('no JSON for you.');
      },
    };
    expect(recordToolValue(throwing)).toEqual({ ok: false, reason: 'rendering it as JSON failed (no JSON for you)' });
  });
});

describe('toolResult', () => {
  const store = () => new TranscriptStore(new MemoryBlobStore());

  it('turns a value it cannot record into an error result the model reads', async () => {
    const r = await toolResult(store(), { total: 10n }, 16 * 1024, 12, 1);
    expect(r).toMatchObject({ isError: true, latencyMs: 12, attempt: 1 });
    expect(outputText(r.output)).toBe(
      'The tool ran, but its output could not be recorded: it contains a BigInt, which JSON cannot encode. It was not run again.',
    );
    expect(r.error).toBe(outputText(r.output));
  });

  it('keeps small outputs inline and stores larger ones by reference', async () => {
    const s = store();
    expect((await toolResult(s, 'small', 16, 0, 1)).output).toEqual({ type: 'text', text: 'small' });
    const r = await toolResult(s, 'x'.repeat(17), 16, 0, 1);
    expect(r.output).toMatchObject({ type: 'stored', bytes: 17 });
    if (r.output.type === 'stored') expect(await s.blobs.get(r.output.ref)).toBe('x'.repeat(17));
  });

  it('stores an output over the payload-safe maximum even when the inline limit is higher', async () => {
    const huge = 'h'.repeat(3 * 1024 * 1024);
    const s = store();
    const r = await toolResult(s, huge, 4 * 1024 * 1024, 0, 1);
    expect(r.output).toMatchObject({ type: 'stored', bytes: huge.length });
    expect(jsonBytes(r)).toBeLessThan(MAX_TOOL_ACTIVITY_RESULT_BYTES);
    // The largest output kept inline still fits well within a payload.
    const largest = await toolResult(s, 'i'.repeat(MAX_TOOL_RESULT_INLINE_BYTES), 4 * 1024 * 1024, 0, 1);
    expect(largest.output.type).toBe('text');
    expect(jsonBytes(largest)).toBeLessThan(MAX_TOOL_ACTIVITY_RESULT_BYTES);
    expect(MAX_TOOL_ACTIVITY_RESULT_BYTES).toBeLessThan(TEMPORAL_PAYLOAD_LIMIT / 4);
  });

  it('fails with a non-retryable StorageError when the blob store cannot store the output', async () => {
    // A real FileBlobStore whose directory is a plain file: every put fails.
    const file = join(mkdtempSync(join(tmpdir(), 'durable-agent-tool-result-')), 'not-a-directory');
    writeFileSync(file, '');
    const err = await toolResult(new TranscriptStore(new FileBlobStore(file)), 'y'.repeat(100), 10, 0, 1).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: STORAGE_ERROR, nonRetryable: true });
    expect((err as Error).message).toMatch(/^This worker could not store the tool output: the blob store failed: /);
  });
});

describe('fitted', () => {
  it('passes results that fit and replaces those that do not with an error result', () => {
    const small = { output: { type: 'text' as const, text: 'ok' }, isError: false, latencyMs: 3, attempt: 2 };
    expect(fitted(small)).toBe(small);
    const big = { ...small, isError: true, error: 'e'.repeat(MAX_TOOL_ACTIVITY_RESULT_BYTES) };
    const r = fitted(big);
    expect(r).toMatchObject({ isError: true, latencyMs: 3, attempt: 2 });
    expect(outputText(r.output)).toMatch(
      /^The tool ran, but its output could not be recorded: its result is \d+ bytes, over the \d+-byte limit of a recorded result\. It was not run again\.$/,
    );
    expect(jsonBytes(r)).toBeLessThan(MAX_TOOL_ACTIVITY_RESULT_BYTES);
  });
});
