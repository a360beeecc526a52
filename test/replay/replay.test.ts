/**
 * Determinism guard: every committed history in ./histories must replay against the current workflow
 * bundle. A change to workflow code that would break runs in flight fails here. See ./README.md.
 */
import { readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { ReplayResult, ReplayWorkerOptions } from '@temporalio/worker';
import { DefaultLogger, Runtime, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { HISTORIES_DIR, historyFiles, isHistoryOf, leaks, loadHistory, missingCoverage } from './histories';
import { SCENARIOS } from './scenarios';

const files = historyFiles();

async function replay(workflowBundle: ReplayWorkerOptions['workflowBundle']): Promise<ReplayResult[]> {
  const results: ReplayResult[] = [];
  for await (const r of Worker.runReplayHistories(
    { workflowBundle },
    files.map((f) => loadHistory(f)),
  ))
    results.push(r);
  return results;
}

beforeAll(() => {
  try {
    // Replays that are meant to fail log their failure; keep the output to real errors.
    Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } } });
  } catch {
    // Already installed in this process.
  }
});

describe('recorded histories', () => {
  it('cover every scenario', () => {
    for (const s of SCENARIOS)
      expect(
        files.filter((f) => isHistoryOf(f, s.name)),
        `history of ${s.name}`,
      ).not.toHaveLength(0);
  });

  it('hold what each scenario must cover (search attribute upserts, updates, signals, timers, patch markers)', () => {
    const withCovers = SCENARIOS.filter((s) => s.covers?.length);
    expect(withCovers.length).toBeGreaterThan(0);
    for (const s of withCovers) {
      for (const f of files.filter((file) => isHistoryOf(file, s.name))) {
        expect(missingCoverage(JSON.parse(readFileSync(join(HISTORIES_DIR, f), 'utf8')), s.covers ?? []), f).toEqual([]);
      }
    }
  });

  it('name no machine (paths, home, temp dir, host)', () => {
    const root = resolve(__dirname, '..', '..');
    for (const f of files) expect(leaks(JSON.parse(readFileSync(join(HISTORIES_DIR, f), 'utf8')), root), f).toEqual([]);
  });

  it('replay against the current workflow bundle without error', async () => {
    const results = await replay({ codePath: inject('workflowBundlePath') });
    expect(results.map((r) => ({ workflowId: r.workflowId, error: r.error?.message }))).toEqual(
      files.map((f) => ({ workflowId: basename(f, '.json'), error: undefined })),
    );
  });
});

describe('the replay check', () => {
  const bundle = (name: string) =>
    bundleWorkflowCode({ workflowsPath: join(__dirname, 'changed', `${name}.ts`), logger: new DefaultLogger('ERROR') });

  it('fails every history on an unversioned workflow change, with a DeterminismViolationError', async () => {
    const results = await replay({ code: (await bundle('unpatched')).code });
    expect(results).toHaveLength(files.length);
    for (const r of results) {
      expect(r.error, r.workflowId).toBeInstanceOf(DeterminismViolationError);
      expect(r.error?.message).toMatch(/[Nn]ondetermin/);
    }
  });

  it('passes when the same change is versioned with patched()', async () => {
    const results = await replay({ code: (await bundle('patched')).code });
    expect(results.map((r) => r.error?.message)).toEqual(files.map(() => undefined));
  });
});

describe('histories of a user workflow that runs an agent (./composed)', () => {
  const dir = join(__dirname, 'composed');
  const composed = historyFiles(dir);

  it('are there (the user workflow and its agent) and name no machine', () => {
    expect(composed).toEqual(['order_with_agent--guarded.json', 'order_with_agent.json']);
    for (const f of composed) expect(leaks(JSON.parse(readFileSync(join(dir, f), 'utf8')), resolve(__dirname, '..', '..')), f).toEqual([]);
  });

  it('replay against a bundle of the user workflows that exports the agent workflows beside them', async () => {
    const { code } = await bundleWorkflowCode({
      workflowsPath: join(__dirname, 'composed-workflows.ts'),
      logger: new DefaultLogger('ERROR'),
    });
    const results: ReplayResult[] = [];
    for await (const r of Worker.runReplayHistories(
      { workflowBundle: { code } },
      composed.map((f) => loadHistory(f, dir)),
    ))
      results.push(r);
    expect(results.map((r) => ({ workflowId: r.workflowId, error: r.error?.message }))).toEqual(
      composed.map((f) => ({ workflowId: basename(f, '.json'), error: undefined })),
    );
  });
});
