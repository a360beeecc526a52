/**
 * The chaos campaign's short version (bench/chaos.ts is the long one): 10 runs of the chaos agent on 3
 * worker processes (separate working directories, one shared store), each run hit by 2 `kill -9`s of its
 * worker (mid-model-call, mid-tool, awaiting approval; a replacement started after each), one restart of
 * the Temporal server on its persistent database, and an uninterrupted baseline of the same scripts.
 * Every run completes, with the baseline's transcript (an at-most-once call a kill cut may read "outcome
 * unknown" instead of its result), no at-most-once call executed twice, no approval lost.
 * Resume times are printed, not asserted (beyond "resumed at all").
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { formatCampaign, runCampaign } from '../../bench/chaos/campaign';
import { killAllWorkers } from '../../bench/chaos/fleet';
import type { RestartableServer } from '../helpers/restartable-server';
import { restartableServer } from '../helpers/restartable-server';

const RUNS = 10;
const KILLS = 2;

let server: RestartableServer;
const workDir = mkdtempSync(join(tmpdir(), 'durable-agent-chaos-test-'));

beforeAll(async () => {
  server = await restartableServer();
});
afterAll(async () => {
  killAllWorkers();
  await server?.close();
  rmSync(workDir, { recursive: true, force: true });
});

describe('chaos campaign', () => {
  it(`${RUNS} runs × ${KILLS} kills of their worker + 1 server restart: all complete, baseline transcripts, no double execution, no approval lost`, { timeout: 240_000 }, async () => {
    const result = await runCampaign({
      server,
      bundlePath: inject('workflowBundlePath'),
      runs: RUNS,
      kills: KILLS,
      serverRestarts: 1,
      workers: 3,
      concurrency: RUNS,
      workDir,
      runTimeoutMs: 150_000,
    });
    const figures = formatCampaign(result);
    console.log(figures);

    expect(result.stuck, figures).toEqual([]);
    expect(result.completed, figures).toBe(RUNS);
    expect(result.statusCounts, figures).toEqual({ success: RUNS });
    expect(result.baselineStatusCounts, figures).toEqual({ success: RUNS });
    // The chaos happened: workers were killed under runs, the server restarted, workers were lost mid-call.
    expect(result.serverRestartsDone).toHaveLength(1);
    expect(result.killsDone.length, figures).toBeGreaterThanOrEqual(1);
    expect(result.hitsPerRun.reduce((a, b) => a + b, 0), figures).toBeGreaterThanOrEqual(RUNS);
    expect(result.workerLosses.tools + result.workerLosses.models, figures).toBeGreaterThan(0);
    // Transcripts: the baseline's, but for at-most-once calls a kill cut (the model read "outcome unknown").
    expect(result.transcripts.different, figures).toEqual([]);
    expect(result.transcripts.equal + result.transcripts.outcomeUnknownOnly).toBe(RUNS);
    // The at-most-once tool: never twice.
    expect(result.atMostOnce.calls).toBe(2 * RUNS);
    expect(result.atMostOnce.executedMoreThanOnce, figures).toEqual([]);
    expect(result.atMostOnce.maxExecutions).toBe(1);
    // Every decision the person sent was applied; both channels were used.
    expect(result.approvals.lost, figures).toEqual([]);
    expect(result.approvals.decided).toBe(2 * RUNS);
    expect(result.approvals.bySignal).toBeGreaterThan(0);
    expect(result.approvals.byUpdate).toBeGreaterThan(0);
    // Every interrupted step ran again (how fast is printed above, not asserted: no timed tests).
    expect(result.resume.neverResumed, figures).toEqual([]);
    expect(result.resume.afterKill.length, figures).toBeGreaterThan(0);
  });
});
