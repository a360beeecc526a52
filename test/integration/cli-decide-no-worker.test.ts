/**
 * `approve | deny | skip` while no worker runs: validated against the run's recorded history (approvers,
 * calls that need no approval, calls not recorded yet), and when sent, said to be sent as a signal.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import type { AgentRunResult } from '../../src/core/run/result';
import { SCRIPTED_AGENTS_TS, writeModules } from '../helpers/agents-module';
import { runCli, soleError, startCli, tempHome } from '../helpers/cli-run';

const home = tempHome();
const address = inject('temporalAddress');
const agentsTs = join(writeModules({ 'agents.ts': SCRIPTED_AGENTS_TS }), 'agents.ts');
const taskQueue = `cli-decide-${randomUUID()}`;
const workflowId = `cli-decide-${randomUUID().slice(0, 8)}`;
const cli = (args: string[]) => runCli([...args, '--address', address], { home });
let connection: Connection;
let temporal: Client;

/** The `approval` signals the run's history holds. */
async function signalsSent(): Promise<unknown[]> {
  const history = await temporal.workflow.getHandle(workflowId).fetchHistory();
  const converter = temporal.options.loadedDataConverter.payloadConverter;
  return (history.events ?? [])
    .map((e) => e.workflowExecutionSignaledEventAttributes)
    .filter((s) => s?.signalName === 'approval')
    .map((s) => converter.fromPayload(s!.input!.payloads![0]!));
}

beforeAll(async () => {
  connection = await Connection.connect({ address });
  temporal = new Client({ connection });
  // A run waits for approval of `wipe` (approvers: ops:alice); then its only worker (the CLI's) goes away.
  const run = startCli(
    [
      'run',
      'wipe it',
      '--agents',
      agentsTs,
      '--agent',
      'wiper',
      '--workflow-id',
      workflowId,
      '--address',
      address,
      '--task-queue',
      taskQueue,
    ],
    {
      home,
    },
  );
  await run.waitFor('waiting for a person to approve wipe');
  run.child.kill('SIGINT');
  expect((await run.done).code).toBe(130);
  // The CLI saw the wait through a query, which can answer before the workflow task that reached it is
  // recorded: killed then, that task stays started until it times out, and signals sent meanwhile are
  // kept by the server out of history. Start from a recorded wait: no workflow task in flight.
  const handle = temporal.workflow.getHandle(workflowId);
  for (let i = 0; i < 300; i++, await new Promise((r) => setTimeout(r, 100))) {
    const pending = (await handle.describe()).raw.pendingWorkflowTask;
    if (!pending || pending.state !== proto.api.enums.v1.PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_STARTED) break;
  }
}, 120_000);
afterAll(async () => {
  await connection?.close();
});

describe('deciding with no worker running', () => {
  it("refuses a decider who is not among the tool's approvers; nothing is sent", async () => {
    expect(soleError(await cli(['approve', workflowId, 'call_wipe', '--by', 'ops:mallory']))).toBe(
      'error: refused: ops:mallory may not decide calls of "wipe" (allowed: ops:alice) (nothing was sent)',
    );
    expect(await signalsSent()).toEqual([]);
  });

  it('refuses a decision on a call that has already run (greet needs no approval: it ran at once)', async () => {
    expect(soleError(await cli(['deny', workflowId, 'call_greet', '--by', 'ops:alice']))).toBe(
      'error: refused: call "call_greet" (greet) has already run (nothing was sent)',
    );
    expect(await signalsSent()).toEqual([]);
  });

  it('refuses a call the recorded history does not hold, pointing at --queue', async () => {
    const err = soleError(await cli(['approve', workflowId, 'call_later', '--by', 'ops:alice']));
    expect(err).toContain('error: call "call_later" is not in the run\'s recorded history yet');
    expect(err).toContain('retry when a worker runs, or send it anyway with --queue');
    expect(await signalsSent()).toEqual([]);
  });

  it('--queue sends such a call as a signal and says it is unvalidated', async () => {
    const r = await cli(['skip', workflowId, 'call_later', '--by', 'ops:alice', '--queue']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`no worker is running for ${workflowId}: skip of call_later by ops:alice queued UNVALIDATED`);
    expect(r.stdout).toContain(`the run checks it when a worker starts`);
    expect(r.stdout).toContain(`durable-agent watch ${workflowId}`);
    expect(await signalsSent()).toEqual([{ callId: 'call_later', decision: 'skip', by: 'ops:alice', path: 'cli' }]);
  });

  it('a valid decision is sent as a signal, and applies once a worker runs', { timeout: 120_000 }, async () => {
    const r = await cli(['approve', workflowId, 'call_wipe', '--by', 'ops:alice', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      callId: 'call_wipe',
      decision: 'approve',
      by: 'ops:alice',
      path: 'cli',
      sent: 'signal',
      validated: true,
      tool: 'wipe',
    });
    expect((await signalsSent()).at(-1)).toEqual({ callId: 'call_wipe', decision: 'approve', by: 'ops:alice', path: 'cli' });

    const worker = startCli(['worker', '--agents', agentsTs, '--address', address, '--task-queue', taskQueue], {
      home,
      timeoutMs: 110_000,
    });
    try {
      const done = await cli(['result', workflowId, '--json', '--task-queue', taskQueue, '--agents', agentsTs]);
      expect(done.code).toBe(0);
      const result = JSON.parse(done.stdout) as AgentRunResult;
      expect(result.status).toBe('success');
      expect(result.finalText).toBe('done wiping');
      expect(result.report.toolCalls.find((c) => c.tool === 'wipe')).toMatchObject({ isError: false });
    } finally {
      worker.child.kill('SIGINT');
      await worker.done;
    }
  });
});
