/**
 * A fleet of three worker processes, each in a working directory of its own, sharing one store: one is
 * killed for good in the middle of the runs (no replacement); its runs continue on the other two and
 * complete, with no at-most-once call executed twice and every approval applied.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { AgentClient } from '../../src/client';
import { chaosScript, readRunLog } from '../../bench/chaos/agent';
import { executionsPerCall, lostApprovals, openActivities } from '../../bench/chaos/analysis';
import type { FleetSettings } from '../../bench/chaos/fleet';
import { killAllWorkers, killWorker, startWorkerProcess, stopWorker } from '../../bench/chaos/fleet';
import type { LiveRun } from '../../bench/chaos/person';
import { abandonedCallsSettled, driveRun } from '../../bench/chaos/person';
import { testId } from '../helpers/harness';

const work = mkdtempSync(join(tmpdir(), 'durable-agent-fleet-'));
const logDir = join(work, 'logs');
mkdirSync(logDir);
let connection: Connection | undefined;

afterAll(async () => {
  killAllWorkers();
  await connection?.close();
  rmSync(work, { recursive: true, force: true });
});

const RUNS = 6;

describe('fleet of worker processes on one shared store', () => {
  it('a worker killed for good mid-run: its runs continue on the other two and complete', { timeout: 180_000 }, async () => {
    const fleet: FleetSettings = {
      address: inject('temporalAddress'),
      taskQueue: testId('fleet'),
      bundlePath: inject('workflowBundlePath'),
      store: join(work, 'store'),
      logDir,
      workDir: work,
    };
    const workers = await Promise.all([0, 1, 2].map(() => startWorkerProcess(fleet)));
    expect(new Set(workers.map((w) => w.cwd)).size).toBe(3);
    connection = await Connection.connect({ address: fleet.address });
    const client = new AgentClient(new Client({ connection }), fleet.taskQueue, { deltas: false });

    const lives: LiveRun[] = Array.from({ length: RUNS }, (_, n) => ({
      n,
      workflowId: testId(`fleet-${n}`),
      awaiting: new Map(),
      done: false,
    }));
    const records = Promise.all(lives.map((l) => driveRun(client, l.n, l.workflowId, l, { timeoutMs: 150_000, thinkMs: () => 300 })));

    // Kill -9, for good, a worker while it runs a model call or a tool of some run (after the first step).
    let victim: (typeof workers)[number] | undefined;
    const cut: Array<{ workflowId: string; what: string }> = [];
    for (let i = 0; i < 3000 && !victim; i++) {
      for (const l of lives) {
        const lines = readRunLog(logDir, l.workflowId);
        const open = lines.some((x) => x.kind === 'mdone') ? openActivities(lines) : [];
        const w = workers.find((x) => open.some((a) => a.pid === x.pid));
        if (w) {
          victim = w;
          break;
        }
      }
      if (!victim) await new Promise((r) => setTimeout(r, 20));
    }
    expect(victim, 'no worker was running anything of the runs within 60 s').toBeDefined();
    const killedAt = Date.now();
    await killWorker(victim!);
    for (const l of lives)
      for (const a of openActivities(readRunLog(logDir, l.workflowId)))
        if (a.pid === victim!.pid) cut.push({ workflowId: l.workflowId, what: `${a.what} ${a.id}` });
    expect(cut.length).toBeGreaterThan(0);

    const ended = await records;
    await abandonedCallsSettled();
    const survivors = workers.filter((w) => w !== victim);
    await Promise.all(survivors.map((w) => stopWorker(w)));
    const output = workers.map((w) => `--- worker ${w.pid} ---\n${w.output()}`).join('\n');

    for (const r of ended) {
      expect(r.stuck, `${r.workflowId}\n${output}`).toBeUndefined();
      expect(r.result?.status).toBe('success');
      expect(r.result?.finalText).toBe(chaosScript(r.n).at(-1)!.text);
      expect(lostApprovals(r)).toEqual([]);
      const lines = readRunLog(logDir, r.workflowId);
      // Nothing ran on the dead worker after its death; the rest ran on the two others.
      expect(lines.filter((l) => l.pid === victim!.pid && l.at > killedAt)).toEqual([]);
      expect(lines.every((l) => l.pid === victim!.pid || survivors.some((w) => w.pid === l.pid))).toBe(true);
      for (const [callId, n] of executionsPerCall(lines)) expect(n, `${r.workflowId} ${callId}`).toBe(1);
    }
    // The runs the kill cut went on elsewhere, and their reports count the lost attempts.
    for (const workflowId of new Set(cut.map((c) => c.workflowId))) {
      const r = ended.find((x) => x.workflowId === workflowId)!;
      const after = readRunLog(logDir, workflowId).filter((l) => l.at > killedAt);
      expect(after.length, workflowId).toBeGreaterThan(0);
      const losses =
        r.result!.report.toolCalls.reduce((s, c) => s + (c.workerLosses ?? 0), 0) +
        r.result!.report.steps.reduce((s, c) => s + (c.workerLosses ?? 0), 0);
      expect(losses, `${workflowId}: ${JSON.stringify(cut)}`).toBeGreaterThan(0);
    }
  });
});
