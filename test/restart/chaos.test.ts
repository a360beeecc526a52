/**
 * The chaos campaign's short version (bench/chaos.ts is the long one): 10 runs of the chaos agent on 3
 * worker processes (separate working directories, one shared store), each run aimed at until 2 `kill -9`s of its
 * worker hit it (mid-model-call, mid-tool, awaiting approval; a replacement started after each), one restart of
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
import { HOLD_MS } from '../../bench/chaos/person';
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
  it(
    `${RUNS} runs × ${KILLS} kills of their worker + 1 server restart: all complete, baseline transcripts, no double execution, no approval lost`,
    { timeout: 240_000 },
    async () => {
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
      // Kills that hit each run. The controller aims at the runs with the fewest hits first, and the person
      // holds each of a run's 2 decisions while it has fewer than KILLS hits — but at most HOLD_MS (30 s)
      // each, and kills pause while the server restarts or fewer than 2 workers live: the design does not
      // guarantee KILLS hits per run (nor a total of RUNS × KILLS), so neither is asserted. Asserted instead:
      // every run is hit at least once (practically certain, not strictly guaranteed: a run with no hit is in
      // the lowest tier the controller aims at during all its model calls, tools and up to 2 × 30 s of held
      // decisions, with a kill every few seconds; measured: min 2 of 2 here, min 3 of 3 over 100 runs), and
      // — guaranteed — a run that ended short of KILLS hits had every decision held the full HOLD_MS (hits
      // only grow: short at the end means short during every hold, so no hold may have ended early).
      expect(result.hitsPerRun, figures).toHaveLength(RUNS);
      expect(Math.min(...result.hitsPerRun), figures).toBeGreaterThanOrEqual(1);
      result.chaos.forEach((record, i) => {
        if (result.hitsPerRun[i]! >= KILLS) return;
        expect(record.decisions, `${record.workflowId}: ${result.hitsPerRun[i]} hits`).toHaveLength(2);
        for (const d of record.decisions)
          expect(
            d.sentAt - d.seenAt,
            `${record.workflowId} ${d.callId}: decision held ${d.sentAt - d.seenAt} ms with ${result.hitsPerRun[i]} of ${KILLS} hits`,
          ).toBeGreaterThanOrEqual(HOLD_MS);
      });
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
    },
  );
});
