/** `durable-agent approvals | approve | deny | skip` as child processes against the real dev server. */
import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { freePort, runCli, soleError, startCli, tempHome } from '../helpers/cli-run';

const home = tempHome();
const address = inject('temporalAddress');
const taskQueue = `cli-approvals-${randomUUID()}`;
const onServer = ['--address', address];
const cli = (args: string[]) => runCli([...args, ...onServer], { home });

describe('durable-agent approvals from the command line', () => {
  it('a run waits for approval; `approvals` lists it; `approve` lets the tool run; bad decisions get one clear line', async () => {
    const workflowId = `cli-approve-${randomUUID().slice(0, 8)}`;
    const run = startCli(['run', 'please clear my notes', '--workflow-id', workflowId, ...onServer, '--task-queue', taskQueue], { home });
    await run.waitFor('waiting for a person to approve clear_notes');
    const callId = /approve clear_notes \{\} \((call_\d+_\d+)/.exec(run.stdout())?.[1];
    expect(callId).toBeDefined();

    // The list comes from visibility (search attributes), which lags a moment behind the run.
    let listed = '';
    for (let i = 0; i < 50 && !listed.includes(`${callId}  clear_notes({})`); i++) {
      const r = await cli(['approvals']);
      expect(r.code).toBe(0);
      listed = r.stdout;
      if (!listed.includes(callId as string)) await new Promise((res) => setTimeout(res, 200));
    }
    expect(listed).toContain(`${workflowId}  (agent assistant, 1 pending)`);
    expect(listed).toContain(`${callId}  clear_notes({})  step 1`);

    expect(soleError(await cli(['approve', workflowId, 'call_9_9']))).toBe(
      'error: refused: no approval is pending for call "call_9_9": the run has no such call (yet)',
    );
    expect(soleError(await cli(['deny', workflowId, callId as string, '--all-calls']))).toMatch(/^error: unknown option '--all-calls'/);
    expect(soleError(await cli(['skip', workflowId, callId as string, '--for-run']))).toMatch(/^error: unknown option '--for-run'/);
    expect(soleError(await cli(['approve', workflowId, callId as string, '--match', 'args']))).toBe('error: --match needs --for-run');
    expect(soleError(await cli(['deny', workflowId, callId as string, '--for-run', '--match', 'name']))).toBe(
      'error: --match must be tool or args',
    );
    expect(soleError(await cli(['approve', 'no-such-run', callId as string]))).toBe('error: no run with workflow id "no-such-run"');
    expect(soleError(await cli(['approve', workflowId]))).toMatch(/^error: missing required argument 'callId'/);

    const ok = await cli(['approve', workflowId, callId as string, '--by', 'ops:tester', '--reason', 'test cleanup']);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.stdout.trim()).toBe(`approve ${callId} (clear_notes) by ops:tester`);

    const done = await run.done;
    expect(done.code).toBe(0);
    expect(done.stdout).toContain(`[step 1] approve clear_notes (${callId}) by ops:tester: test cleanup`);
    expect(done.stdout).toMatch(/Cleared .*notes\.md \(\d+ lines? removed\)/);

    expect(soleError(await cli(['approve', workflowId, callId as string]))).toMatch(/^error: run ".*" has already ended \(completed\)$/);
    const none = await cli(['approvals', '--json']);
    expect(JSON.parse(none.stdout) as unknown[]).not.toEqual(expect.arrayContaining([expect.objectContaining({ workflowId })]));
    // A dozen CLI processes, each starting from the TypeScript sources: slow on a loaded 2-core machine.
  }, 180_000);

  it('deny from the command line: the model is told, and the tool does not run', async () => {
    const workflowId = `cli-deny-${randomUUID().slice(0, 8)}`;
    const run = startCli(['run', 'delete all notes', '--workflow-id', workflowId, ...onServer, '--task-queue', taskQueue], { home });
    await run.waitFor('waiting for a person to approve clear_notes');
    const callId = /approve clear_notes \{\} \((call_\d+_\d+)/.exec(run.stdout())?.[1] as string;
    const r = await cli(['deny', workflowId, callId, '--by', 'ops:tester', '--reason', 'keep them', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ callId, tool: 'clear_notes', decision: 'deny', by: 'ops:tester', applied: [callId] });
    const done = await run.done;
    expect(done.code).toBe(0);
    expect(done.stdout).toContain('clear_notes reported an error: Denied by ops:tester: keep them');
  });

  it('an unreachable server is one clear line', async () => {
    const port = await freePort();
    const r = await runCli(['approvals', '--address', `127.0.0.1:${port}`], { home });
    expect(soleError(r)).toMatch(new RegExp(`^error: cannot reach Temporal at 127\\.0\\.0\\.1:${port}`));
  });
});
