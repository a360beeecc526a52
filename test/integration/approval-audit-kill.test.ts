/**
 * The audit trail survives a worker kill: one run decided through every path (SDK, CLI, HTTP, the console's
 * header through HTTP, a raw Temporal signal and update, a run rule, a timeout) has the same trail before its
 * worker process is SIGKILLed and after a fresh worker replayed it, and the same again once that worker
 * finished the run (read from its recorded history).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { createHttpApi } from '../../apps/http/app';
import { parseTokens } from '../../apps/http/auth';
import type { HttpApiServer } from '../../apps/http/server';
import { serveHttpApi } from '../../apps/http/server';
import { AgentClient } from '../../src/client';
import type { AuditRecord } from '../../src/core/approvals/audit';
import { runCli, tempHome } from '../helpers/cli-run';
import { pollUntil, resultWithin } from '../helpers/events';
import { testId } from '../helpers/harness';
import type { WorkerProcess } from '../helpers/worker-process';
import { WorkerProcesses } from '../helpers/worker-process';

const work = mkdtempSync(join(tmpdir(), 'durable-agent-audit-kill-'));
const workers = new WorkerProcesses();
const taskQueue = testId('audit-kill');
const TOKEN = `alice-${randomUUID()}`;
let connection: Connection;
let client: AgentClient;
let server: HttpApiServer;

function startWorker(): Promise<WorkerProcess> {
  return workers.start('audit-worker.ts', {
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    AUDIT_TASK_QUEUE: taskQueue,
    AUDIT_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
    AUDIT_STORE_DIR: join(work, 'store'),
  });
}

beforeAll(async () => {
  connection = await Connection.connect({ address: inject('temporalAddress') });
  client = new AgentClient(new Client({ connection }), taskQueue);
  const auth = parseTokens(JSON.stringify({ tokens: { [TOKEN]: { identity: 'ops:http', approve: true } } }), 'test tokens');
  server = await serveHttpApi(createHttpApi({ client, auth }), { port: 0 });
});
afterAll(async () => {
  workers.killAll();
  await server?.close();
  await connection?.close();
  rmSync(work, { recursive: true, force: true });
});

const httpDecide = (workflowId: string, callId: string, viaConsole: boolean) =>
  fetch(`${server.url}/runs/${encodeURIComponent(workflowId)}/approvals/${callId}`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${TOKEN}`,
      'Content-Type': 'application/json',
      ...(viaConsole ? { 'X-Durable-Agent-Client': 'console' } : {}),
    },
    body: JSON.stringify({ decision: 'approve' }),
  });

/** What a record says, without its time. */
const shown = (r: AuditRecord) => [r.callId, r.kind, r.decision ?? null, r.by ?? null, r.path ?? null, r.via ?? null, r.rule?.id ?? null];

describe('audit trail and a worker kill', () => {
  it('one run decided through every path: the same trail before the kill, after a fresh worker replayed it, and from history', async () => {
    const first = await startWorker();
    const run = await client.start('kill_audit', { input: 'go', workflowId: testId('audit-kill') });
    await pollUntil(
      () => run.pendingApprovals(),
      (p) => p.length === 10,
      'ten calls waiting',
    );
    const id = run.workflowId;
    await run.decide({ callId: 'call_1_0', decision: 'approve', by: 'ops:sdk', reason: 'checked' });
    const cli = await runCli(['approve', id, 'call_1_1', '--by', 'ops:cli', '--address', inject('temporalAddress')], { home: tempHome() });
    expect(cli.stderr).toBe('');
    expect((await httpDecide(id, 'call_1_2', false)).status).toBe(200);
    expect((await httpDecide(id, 'call_1_3', true)).status).toBe(200);
    await run.handle.signal('approval', { callId: 'call_1_4', decision: 'deny', by: 'ops:signal' });
    const updateId = `audit-kill-${randomUUID()}`;
    await run.handle.executeUpdate('decide', { args: [{ callId: 'call_1_5', decision: 'skip', by: 'ops:update' }], updateId });
    // Approve and stop asking: the other waiting ship is decided by the rule.
    await run.decide({ callId: 'call_1_7', decision: 'approve', by: 'ops:rules', scope: 'run', match: 'tool' });

    // Everything but the last deploy is settled (the purge by its timeout).
    const before = await pollUntil(
      () => run.audit(),
      (t) => t.filter((r) => r.kind !== 'requested').length === 9,
      'nine settled',
    );
    const rule = before.find((r) => r.callId === 'call_1_7' && r.kind === 'decided')?.rule?.id;
    expect(rule).toBeDefined();
    expect(
      before
        .filter((r) => r.kind !== 'requested')
        .map(shown)
        .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    ).toEqual([
      ['call_1_0', 'decided', 'approve', 'ops:sdk', 'sdk', 'update', null],
      ['call_1_1', 'decided', 'approve', 'ops:cli', 'cli', 'update', null],
      ['call_1_2', 'decided', 'approve', 'ops:http', 'http', 'update', null],
      ['call_1_3', 'decided', 'approve', 'ops:http', 'console', 'update', null],
      ['call_1_4', 'decided', 'deny', 'ops:signal', 'temporal', 'signal', null],
      ['call_1_5', 'decided', 'skip', 'ops:update', 'temporal', 'update', null],
      ['call_1_7', 'decided', 'approve', 'ops:rules', 'sdk', 'update', rule],
      ['call_1_8', 'decided', 'approve', 'ops:rules', 'rule', 'update', rule],
      ['call_1_9', 'expired', 'deny', null, 'timeout', null, null],
    ]);
    expect(before.find((r) => r.callId === 'call_1_5' && r.kind === 'decided')?.updateId).toBe(updateId);
    expect(before.find((r) => r.callId === 'call_1_0' && r.kind === 'decided')?.reason).toBe('checked');

    first.proc.kill('SIGKILL');
    await first.exited;
    await startWorker();
    // The fresh worker answers from the replayed history: the same trail, time and sequence included.
    expect(await run.audit()).toEqual(before);

    await run.decide({ callId: 'call_1_6', decision: 'approve', by: 'ops:sdk' });
    expect((await resultWithin(run)).status).toBe('success');
    const after = await client.get(id).audit();
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.slice(before.length).map(shown)).toEqual([['call_1_6', 'decided', 'approve', 'ops:sdk', 'sdk', 'update', null]]);
  });
});
