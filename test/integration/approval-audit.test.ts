/** The approval audit trail (issue 26): each decision says through which path it came, read back with `run.audit()` on the real dev server. */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runCli, tempHome } from '../helpers/cli-run';
import { z } from 'zod';
import { randomUUID } from 'node:crypto';
import { createHttpApi } from '../../apps/http/app';
import { parseTokens } from '../../apps/http/auth';
import type { HttpApiServer } from '../../apps/http/server';
import { serveHttpApi } from '../../apps/http/server';
import type { AuditRecord } from '../../src/core/approvals/audit';
import { defineTool } from '../../src/agents/define';
import { ScriptedAgents } from '../helpers/agents';
import { pollUntil, waitForPending } from '../helpers/events';
import type { AgentRun } from '../../src/client/run';
import type { RunAudit } from '../../src/client/audit';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';

const deploy = defineTool({
  name: 'deploy',
  description: 'Deploy a service',
  input: z.object({ service: z.string() }),
  needsApproval: true,
  execute: ({ service }) => `deployed ${service}`,
});
const purge = defineTool({
  name: 'purge',
  description: 'Purge a cache; an unanswered request is denied',
  input: z.object({ cache: z.string() }),
  needsApproval: true,
  approvalTimeout: '1s',
  onApprovalTimeout: 'deny',
  execute: ({ cache }) => `purged ${cache}`,
});
const S = new ScriptedAgents();
const call = (service: string) => ({ name: 'deploy', args: { service } });
S.add(
  'audited',
  [
    {
      toolCalls: [
        { name: 'deploy', args: { service: 'a' } },
        { name: 'deploy', args: { service: 'b' } },
        { name: 'deploy', args: { service: 'c' } },
        { name: 'purge', args: { cache: 'x' } },
      ],
    },
    { text: 'done' },
  ],
  { tools: [deploy, purge] },
);

S.add('audited_http', [{ toolCalls: [call('h1'), call('h2')] }, { text: 'done' }], { tools: [deploy] });
S.add('audited_deferred', [{ toolCalls: [call('d1')] }, { text: 'done' }], { tools: [deploy] });

const TOKENS = { alice: `alice-${randomUUID()}`, nobody: `nobody-${randomUUID()}` };
const AUTH = parseTokens(
  JSON.stringify({
    tokens: { [TOKENS.alice]: { identity: 'ops:alice', approve: true }, [TOKENS.nobody]: { identity: 'nobody', permissions: [] } },
  }),
  'test tokens',
);

let h: Harness;
let server: HttpApiServer;
beforeAll(async () => {
  h = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
  server = await serveHttpApi(createHttpApi({ client: h.client, auth: AUTH }), { port: 0 });
});
afterAll(async () => {
  await server?.close();
  await h?.stop();
});

const http = (token: string, path: string, init: { method?: string; body?: unknown; console?: boolean } = {}) =>
  fetch(`${server.url}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      Authorization: `Bearer ${token}`,
      ...(init.body ? { 'Content-Type': 'application/json' } : {}),
      ...(init.console ? { 'X-Durable-Agent-Client': 'console' } : {}),
    },
    ...(init.body ? { body: JSON.stringify(init.body) } : {}),
  });

describe('approval audit trail', () => {
  it('lists every decision with its path (sdk, raw Temporal signal and update, timeout), the same while running and from history', async () => {
    const run = await h.client.start('audited', { input: 'go', workflowId: testId('audit-paths') });
    await waitForPending(run);
    await run.decide({ callId: 'call_1_0', decision: 'approve', by: 'ops:alice', reason: 'checked' });
    // A signal is no update: the update id it claims is not recorded; an update's own id is, whatever the payload claims.
    await run.handle.signal('approval', { callId: 'call_1_1', decision: 'deny', by: 'ops:bob', updateId: 'claimed' });
    const updateId = `raw-update-${randomUUID()}`;
    await run.handle.executeUpdate('decide', {
      args: [{ callId: 'call_1_2', decision: 'skip', by: 'ops:carol', updateId: 'claimed' }],
      updateId,
    });
    const result = await run.result();
    expect(result.status).toBe('success');
    const trail = await run.audit();
    const decided = trail
      .filter((r) => r.kind !== 'requested')
      .map((r) => [r.callId, r.kind, r.decision, r.by ?? null, r.path, r.via ?? null]);
    expect(decided).toEqual([
      ['call_1_0', 'decided', 'approve', 'ops:alice', 'sdk', 'update'],
      ['call_1_1', 'decided', 'deny', 'ops:bob', 'temporal', 'signal'],
      ['call_1_2', 'decided', 'skip', 'ops:carol', 'temporal', 'update'],
      ['call_1_3', 'expired', 'deny', null, 'timeout', null],
    ]);
    const decision = (callId: string) => trail.find((r) => r.callId === callId && r.kind === 'decided');
    expect(decision('call_1_0')?.updateId).toMatch(/^[0-9a-f-]{36}$/);
    expect(decision('call_1_1')?.updateId).toBeUndefined();
    expect(decision('call_1_2')?.updateId).toBe(updateId);
    expect(trail.find((r) => r.callId === 'call_1_0' && r.kind === 'decided')).toMatchObject({
      reason: 'checked',
      tool: 'deploy',
      workflowId: run.workflowId,
    });
    expect(trail.filter((r) => r.kind === 'requested').map((r) => r.callId)).toEqual(['call_1_0', 'call_1_1', 'call_1_2', 'call_1_3']);
    // A fresh handle of the closed run reads it from its recorded history: the same trail.
    expect(await h.client.get(run.workflowId).audit()).toEqual(trail);
    // The CLI reads the same trail.
    const cli = await runCli(['audit', run.workflowId, '--json', '--address', inject('temporalAddress')], { home: tempHome() });
    expect(cli.stderr).toBe('');
    expect(JSON.parse(cli.stdout)).toEqual(trail);
  });

  it('HTTP decisions record http, or console when the console says so; GET /runs/:id/audit needs read', async () => {
    const run = await h.client.start('audited_http', { input: 'go', workflowId: testId('audit-http') });
    await waitForPending(run);
    const path = `/runs/${encodeURIComponent(run.workflowId)}`;
    expect((await http(TOKENS.alice, `${path}/approvals/call_1_0`, { method: 'POST', body: { decision: 'approve' } })).status).toBe(200);
    const viaConsole = await http(TOKENS.alice, `${path}/approvals/call_1_1`, {
      method: 'POST',
      body: { decision: 'deny' },
      console: true,
    });
    expect(viaConsole.status).toBe(200);
    expect((await run.result()).status).toBe('success');
    const res = await http(TOKENS.alice, `${path}/audit`);
    expect(res.status).toBe(200);
    const { records } = (await res.json()) as { records: AuditRecord[] };
    expect(records.filter((r) => r.kind === 'decided').map((r) => [r.callId, r.by, r.path])).toEqual([
      ['call_1_0', 'ops:alice', 'http'],
      ['call_1_1', 'ops:alice', 'console'],
    ]);
    expect((await http(TOKENS.nobody, `${path}/audit`)).status).toBe(403);
  });

  it('client.audit({ by, rule }) reads only the runs whose search attributes name them', async () => {
    const who = `ops:narrow-${randomUUID().slice(0, 8)}`;
    const rule = `r-${randomUUID().slice(0, 8)}`;
    const decideBoth = async (workflowId: string, first: Parameters<AgentRun['decide']>[0] | undefined) => {
      const run = await h.client.start('audited_http', { input: 'go', workflowId });
      await waitForPending(run);
      await run.decide(first ?? { callId: 'call_1_0', decision: 'approve', by: 'ops:other' });
      await run.decide({ callId: 'call_1_1', decision: 'approve', by: 'ops:other' });
      expect((await run.result()).status).toBe('success');
      return run.workflowId;
    };
    const named = await decideBoth(testId('audit-narrow'), {
      callId: 'call_1_0',
      decision: 'approve',
      by: who,
      rule: { id: rule, version: 2, scope: 'agent' },
    });
    await decideBoth(testId('audit-narrow-newer'), undefined);
    // One run read, newest first: the newer run would be the one, were the runs not narrowed to those that name them.
    const shown = (found: RunAudit[]) => found.map((r) => [r.workflowId, r.records.map((x) => [x.callId, x.by])]);
    const expected = [[named, [['call_1_0', who]]]];
    for (const q of [{ by: who }, { rule }]) {
      const found = await pollUntil(
        () => h.client.audit({ agent: 'audited_http', since: '10m', runs: 1, ...q }),
        (r) => r.length > 0,
        `runs naming ${JSON.stringify(q)}`,
      );
      expect(shown(found)).toEqual(expected);
    }
  });

  it('client.audit() finds records across runs, filtered by path, who and tool', async () => {
    // Visibility lags a moment behind the runs of the tests above.
    const ids = async (q: Parameters<typeof h.client.audit>[0]) =>
      (await h.client.audit({ agent: q?.agent, since: '10m', ...q }))
        .filter((r) => r.workflowId.includes('audit-'))
        .flatMap((r) => r.records.map((x) => `${x.workflowId.replace(/-[^-]+$/, '')}:${x.callId}:${x.path}`));
    let byPath: string[] = [];
    for (let i = 0; i < 50 && byPath.length < 2; i++) {
      byPath = await ids({ agent: 'audited', kind: 'decided', path: 'temporal' });
      if (byPath.length < 2) await new Promise((r) => setTimeout(r, 100));
    }
    expect(byPath.map((x) => x.split(':').slice(1).join(':'))).toEqual(['call_1_1:temporal', 'call_1_2:temporal']);
    const console = await ids({ agent: 'audited_http', by: 'ops:alice', kind: 'decided' });
    expect(console.map((x) => x.split(':').slice(1).join(':'))).toEqual(['call_1_0:http', 'call_1_1:console']);
    expect(await ids({ agent: 'audited', tool: 'purge', kind: 'decided' })).toEqual([]);
  });

  it('GET /audit lists records across runs for a read token (filters narrow them), refuses one without read; the CLI lists them as a table', async () => {
    // Runs of the tests above (visibility has caught up: the test before waited for it).
    const res = await http(TOKENS.alice, '/audit?agent=audited_http&since=10m&kind=decided&path=console&runs=5');
    expect(res.status).toBe(200);
    const { runs } = (await res.json()) as { runs: Array<{ workflowId: string; agent?: string; records: AuditRecord[] }> };
    const mine = runs.filter((r) => r.workflowId.includes('audit-http'));
    expect(mine.flatMap((r) => r.records.map((x) => [r.agent, x.callId, x.by, x.path]))).toEqual([
      ['audited_http', 'call_1_1', 'ops:alice', 'console'],
    ]);
    const none = (await (await http(TOKENS.alice, '/audit?agent=audited_http&since=10m&by=ops:nobody')).json()) as { runs: unknown[] };
    expect(none.runs).toEqual([]);
    const refused = await http(TOKENS.nobody, '/audit?agent=audited_http&since=10m');
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { missing?: string }).missing).toBe('read');
    const bad = await http(TOKENS.alice, '/audit?path=fax');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { field?: string } }).error.field).toBe('path');
    expect((await http(TOKENS.alice, '/audit?runs=0')).status).toBe(400);
    const cli = await runCli(
      ['audit', '--agent', 'audited_http', '--since', '10m', '--path', 'http', '--runs', '5', '--address', inject('temporalAddress')],
      {
        home: tempHome(),
      },
    );
    expect(cli.stderr).toBe('');
    const lines = cli.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^at\s+run\s+agent\s+tool\s+what\s+by\s+path\s+rule\s+reason$/);
    const rows = lines.slice(2).filter((l) => l.includes('audit-http'));
    expect(rows.length).toBeGreaterThanOrEqual(1);
    expect(rows[0]).toMatch(/audited_http\s+deploy\s+decided approve\s+ops:alice\s+http/);
  });

  it('GET /approvals?includeDeferred=true and `approvals --deferred` list a deferred request with its time; the plain inbox does not', async () => {
    const run = await h.client.start('audited_deferred', { input: 'go', workflowId: testId('audit-deferred') });
    await waitForPending(run);
    const until = new Date(Date.now() + 120_000).toISOString();
    const path = `/runs/${encodeURIComponent(run.workflowId)}/approvals/call_1_0`;
    expect((await http(TOKENS.alice, `${path}/defer`, { method: 'POST', body: { until } })).status).toBe(200);
    type Inbox = { runs: Array<{ workflowId: string; pending: Array<{ callId: string; deferredUntil?: string }> }> };
    const inbox = async (q: string) =>
      ((await (await http(TOKENS.alice, `/approvals${q}`)).json()) as Inbox).runs.filter((r) => r.workflowId === run.workflowId);
    expect(await inbox('')).toEqual([]);
    // Visibility lags behind the status the defer leaves (`awaiting_approval`): a moment at most.
    let listed: Inbox['runs'] = [];
    for (let i = 0; i < 50 && !listed.length; i++) {
      listed = await inbox('?includeDeferred=true');
      if (!listed.length) await new Promise((r) => setTimeout(r, 100));
    }
    expect(listed[0]?.pending).toEqual([expect.objectContaining({ callId: 'call_1_0', deferredUntil: until })]);
    expect((await http(TOKENS.alice, '/approvals?includeDeferred=maybe')).status).toBe(400);
    const cli = await runCli(['approvals', '--deferred', '--address', inject('temporalAddress')], { home: tempHome() });
    expect(cli.stdout).toContain(`call_1_0  deploy({"service":"d1"})`);
    expect(cli.stdout).toContain(`deferred until ${until}`);
    await run.decide({ callId: 'call_1_0', decision: 'approve', by: 'ops:alice' });
    expect((await run.result()).status).toBe('success');
  });
});
