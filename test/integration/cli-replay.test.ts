/**
 * `durable-agent replay` on the real dev server: runs recorded with the current code replay clean (exit 0);
 * against a workflow bundle with an unversioned change (test/replay/changed/unpatched.ts) every one of
 * them would break (exit 1, each run id printed); bad flags, a bad query and an unreachable server are
 * clear errors (exit 2). `result` and `tail` show the run's definition hash from its memo.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DEFINITION_HASH_MEMO } from '../../src/core/run/definition';
import { AGENT_NAME } from '../../src/workflows/search-attributes';
import { ScriptedAgents } from '../helpers/agents';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { freePort, runCli, soleError, tempHome } from '../helpers/cli-run';

const home = tempHome();
const address = inject('temporalAddress');
const agent = `replayed_${randomUUID().slice(0, 8)}`;
const S = new ScriptedAgents();
S.add(agent, [{ text: 'Echoing.', toolCalls: [{ name: 'echo', args: { text: 'ping' } }] }, { text: 'The echo said ping.' }]);
const UNPATCHED = join(__dirname, '..', 'replay', 'changed', 'unpatched.ts');

let h: Harness;
const runIds: string[] = [];
const workflowIds: string[] = [];

beforeAll(async () => {
  h = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
  for (let i = 0; i < 2; i++) {
    const run = await h.client.start(agent, { input: 'say ping', workflowId: testId(agent) });
    expect((await run.result()).status).toBe('success');
    workflowIds.push(run.workflowId);
    runIds.push((await h.temporal.workflow.getHandle(run.workflowId).describe()).runId);
  }
  // Visibility is eventually consistent: wait until the list query sees both runs.
  const query = `${AGENT_NAME.name} = '${agent}'`;
  for (let tries = 0; (await h.temporal.workflow.count(query)).count < 2; tries++) {
    if (tries > 100) throw new Error('the runs never showed up in visibility');
    await new Promise((r) => setTimeout(r, 100));
  }
}, 60_000);

afterAll(async () => {
  await h?.stop();
});

const replay = (...args: string[]) => runCli(['replay', '--address', address, '--agent', agent, ...args], { home });

describe('durable-agent replay', () => {
  it('replays runs recorded with this code clean: exit 0 and the count', async () => {
    const r = await replay('--since', '1h');
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('replayed 2 runs against this code: all replay');
    expect(r.stdout).not.toContain('would break:');
    expect(r.code).toBe(0);
  });

  it('prints every run that would break on an unversioned workflow change, and exits 1', async () => {
    const r = await replay('--workflows', UNPATCHED);
    expect(r.code).toBe(1);
    const broken = r.stdout.split('\n').filter((l) => l.startsWith('would break:'));
    expect(broken).toHaveLength(2);
    for (const runId of runIds)
      expect(
        broken.some((l) => l.includes(runId) && /[Nn]ondetermin/.test(l)),
        runId,
      ).toBe(true);
    expect(r.stdout).toMatch(/replayed 2 runs against .*unpatched\.ts: 2 would break/);
  });

  it('takes at most --limit runs', async () => {
    const r = await replay('--limit', '1', '--workflows', UNPATCHED);
    expect(r.stdout).toMatch(/replayed 1 run against .*: 1 would break/);
    expect(r.code).toBe(1);
  });

  it('reports no runs (exit 0) when none match', async () => {
    const r = await replay('--query', `WorkflowId = 'no-such-${randomUUID()}'`);
    expect(r.stdout).toContain('no runs to replay');
    expect(r.code).toBe(0);
  });

  it('names a bad duration, a bad query, a missing workflows path and an unreachable server (exit 2)', async () => {
    const since = await replay('--since', 'yesterday');
    expect(soleError(since)).toMatch(/invalid --since "yesterday": give a duration such as 30m, 24h or 7d/);
    expect(since.code).toBe(2);
    const query = await replay('--query', 'NoSuchField ==== 3');
    expect(soleError(query)).toMatch(/the server refused the query .*NoSuchField/);
    expect(query.code).toBe(2);
    const missing = await replay('--workflows', 'no/such/workflows.ts');
    expect(soleError(missing)).toMatch(/--workflows "no\/such\/workflows.ts" does not exist/);
    const port = await freePort();
    const down = await runCli(['replay', '--address', `127.0.0.1:${port}`], { home });
    expect(soleError(down)).toMatch(new RegExp(`cannot reach Temporal at 127.0.0.1:${port}`));
    expect(down.code).toBe(2);
  });
});

describe('the definition hash on the command line', () => {
  it('result and tail print the agent and the first 12 digits of the hash in its memo', async () => {
    const memo = (await h.temporal.workflow.getHandle(workflowIds[0] as string).describe()).memo;
    const hash = memo?.[DEFINITION_HASH_MEMO];
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    const line = `agent ${agent}, definition ${(hash as string).slice(0, 12)}`;
    const result = await runCli(['result', workflowIds[0] as string, '--address', address, '--task-queue', h.taskQueue], { home });
    expect(result.stdout).toContain(line);
    expect(result.code).toBe(0);
    const tail = await runCli(['tail', workflowIds[0] as string, '--address', address, '--task-queue', h.taskQueue], { home });
    expect(tail.stdout.split('\n')[0]).toContain(`run ${workflowIds[0]} (completed) — ${line}`);
  });
});
