/**
 * Determinism guard of the rules entity: its recorded histories (./rules-entity, recorded by
 * ./record-rules-entity.ts) must replay against the current workflow bundle.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { leaks, loadHistory, missingCoverage } from './histories';
import { RULES_ENTITY_COVERS, RULES_ENTITY_DIR } from './rules-entity-covers';

const files = readdirSync(RULES_ENTITY_DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();

beforeAll(() => {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } } });
  } catch {
    // Already installed in this process.
  }
});

describe('recorded histories of the rules entity', () => {
  it('exist, hold updates, the push activity, the expiry timer, memo upserts and the editors signal, and name no machine', () => {
    expect(files).not.toHaveLength(0);
    for (const f of files) {
      const json: unknown = JSON.parse(readFileSync(join(RULES_ENTITY_DIR, f), 'utf8'));
      expect(missingCoverage(json, RULES_ENTITY_COVERS), f).toEqual([]);
      expect(leaks(json, resolve(__dirname, '..', '..')), f).toEqual([]);
    }
  });

  it('replay against the current workflow bundle without error', async () => {
    const results: Array<{ workflowId: string; error: string | undefined }> = [];
    for await (const r of Worker.runReplayHistories(
      { workflowBundle: { codePath: inject('workflowBundlePath') } },
      files.map((f) => loadHistory(f, RULES_ENTITY_DIR)),
    )) {
      results.push({ workflowId: r.workflowId, error: r.error?.message });
    }
    expect(results).toEqual(files.map((f) => ({ workflowId: basename(f, '.json'), error: undefined })));
  });
});
