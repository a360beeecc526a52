/**
 * Run policies from the CLI (`run --policy`, `schedule create --policy`) and the HTTP API (`POST /runs`,
 * in process and through the real `durable-agent serve --agents`): a policy that names no tool, or that
 * loosens an approval without a waiver, is one error line / a 400 naming `policy.<key>`; on the real dev server.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/agents/define';
import type { AgentRunResult } from '../../src/core/run/result';
import type { HttpApi } from '../../apps/http/app';
import { createHttpApi } from '../../apps/http/app';
import { parseTokens } from '../../apps/http/auth';
import type { HttpErrorBody } from '../../apps/http/errors';
import type { HttpApiServer } from '../../apps/http/server';
import { serveHttpApi } from '../../apps/http/server';
import { ScriptedAgents } from '../helpers/agents';
import { SCRIPTED_AGENTS_TS, writeModules } from '../helpers/agents-module';
import { freePort, runCli, soleError, startCli, tempHome } from '../helpers/cli-run';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';

const ran: string[] = [];
const tool = (name: string, needsApproval: boolean) =>
  defineTool({
    name,
    description: name,
    input: z.object({}),
    needsApproval,
    execute: (_a, ctx) => (ran.push(`${name}:${ctx.workflowId}`), 'ok'),
  });
const S = new ScriptedAgents();
const tools = { tools: [tool('clear', true), tool('purge', false)] };
const clearer = S.add('http_clearer', [{ toolCalls: [{ name: 'clear', args: {} }] }, { text: 'done' }], tools);
S.add('http_purger', [{ toolCalls: [{ name: 'purge', args: {} }] }, { text: 'done' }], tools);

const TOKEN = `alice-${randomUUID()}`;
const TOKENS = { tokens: { [TOKEN]: { identity: 'ops:alice', approve: true } } };
const address = inject('temporalAddress');
const home = tempHome();
const agentsTs = join(writeModules({ 'agents.ts': SCRIPTED_AGENTS_TS }), 'agents.ts');

let h: Harness;
let api: HttpApi;
let server: HttpApiServer;
beforeAll(async () => {
  h = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
  // The API knows one agent's definition (as `serve --agents` does); the other is started by name.
  api = createHttpApi({ client: h.client, auth: parseTokens(JSON.stringify(TOKENS), 'test tokens'), agents: [clearer] });
  server = await serveHttpApi(api, { port: 0 });
});
afterAll(async () => {
  await server?.close();
  await h?.stop();
});

const post = (base: string, body: unknown) =>
  fetch(`${base}/runs`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
async function refusal(res: Response): Promise<HttpErrorBody['error']> {
  expect(res.status).toBe(400);
  return ((await res.json()) as HttpErrorBody).error;
}

describe('HTTP API', () => {
  it('POST /runs of an agent the API knows: 400 naming policy.<key>, nothing started', async () => {
    const id = testId('http-clear');
    expect(
      await refusal(await post(server.url, { agent: 'http_clearer', input: 'go', workflowId: id, policy: { clear: 'allow' } })),
    ).toMatchObject({
      code: 'invalid_request',
      field: 'policy.clear',
      message: expect.stringMatching(/"clear": "allow", a tool that needs approval: a run policy may only tighten approvals/),
    });
    expect(
      await refusal(await post(server.url, { agent: 'http_clearer', input: 'go', workflowId: id, policy: { purg: 'deny' } })),
    ).toMatchObject({
      field: 'policy.purg',
      message: expect.stringMatching(/did you mean purge\?/),
    });
    await expect(h.client.get(id).handle.describe()).rejects.toThrow(/not found/i);
    // Tightening is accepted.
    const ok = await post(server.url, {
      agent: 'http_clearer',
      input: 'go',
      workflowId: testId('http-tighten'),
      policy: { clear: 'deny', purge: 'ask' },
    });
    expect(ok.status).toBe(201);
  });

  it('POST /runs of an agent the API does not know: the run itself refuses the policy', async () => {
    const id = testId('http-purger');
    const res = await post(server.url, { agent: 'http_purger', input: 'go', workflowId: id, policy: { '*': 'allow', PURGE: 'deny' } });
    expect(res.status).toBe(201);
    const result: AgentRunResult = await h.client.get(id).result();
    expect(result.status).toBe('invalid_input');
    expect(result.error?.message).toMatch(/did you mean purge\?/);
    expect(ran.filter((r) => r.endsWith(id))).toEqual([]);
  });

  it('durable-agent serve --agents checks the policy before starting (400)', { timeout: 120_000 }, async () => {
    const file = join(home, 'tokens.json');
    writeFileSync(file, JSON.stringify(TOKENS));
    const port = await freePort();
    const cli = startCli(
      [
        'serve',
        '--agents',
        agentsTs,
        '--address',
        address,
        '--task-queue',
        `rp-serve-${randomUUID()}`,
        '--http-port',
        String(port),
        '--tokens',
        file,
      ],
      { home },
    );
    try {
      await cli.waitFor('Press Ctrl-C to stop.');
      expect(
        await refusal(await post(`http://127.0.0.1:${port}`, { agent: 'wiper', input: 'go', policy: { wpie: 'deny' } })),
      ).toMatchObject({
        field: 'policy.wpie',
        message: expect.stringMatching(/did you mean wipe\?/),
      });
    } finally {
      cli.child.kill('SIGINT');
      await cli.done;
    }
  });
});

describe('CLI', () => {
  const onServer = () => ['--address', address, '--task-queue', `rp-cli-${randomUUID()}`];

  it('run --policy: a loosening without --approval-waiver, a typo, a bad rule are one error line each', async () => {
    expect(
      soleError(await runCli(['run', 'go', '--agents', agentsTs, '--agent', 'wiper', '--policy', 'wipe=allow', ...onServer()], { home })),
    ).toMatch(
      /^error: Invalid run policy: policy "wipe": "allow", a tool that needs approval: a run policy may only tighten approvals \(allow → ask → deny\) unless the caller's identity may approve \(--approval-waiver <identity>\)$/,
    );
    expect(
      soleError(
        await runCli(['run', 'go', '--agents', agentsTs, '--agent', 'wiper', '--policy', 'greet=ask,WIPE=deny', ...onServer()], { home }),
      ),
    ).toMatch(/^error: Invalid run policy: policy key "WIPE" names no tool of the agent \(did you mean wipe\?\)/);
    expect(
      soleError(await runCli(['run', 'go', '--agents', agentsTs, '--agent', 'wiper', '--policy', 'wipe=maybe', ...onServer()], { home })),
    ).toBe(
      'error: --policy "wipe=maybe": give <tool>=allow|ask|deny (or *=<rule> for the other tools), or <tool>:<condition>=<rule>, e.g. --policy purge=deny --policy \'refund:amount<=50=allow\'',
    );
  });

  it('run --policy that tightens runs: wipe denied by the policy', async () => {
    const r = await runCli(['run', 'go', '--agents', agentsTs, '--agent', 'wiper', '--policy', 'wipe=deny', ...onServer()], { home });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('done wiping');
    expect(r.stdout).toMatch(/Denied by the run's policy/);
  });

  it('schedule create --policy --agents: refused in one line, nothing created', async () => {
    const id = `rp-sched-${randomUUID().slice(0, 8)}`;
    expect(
      soleError(
        await runCli(
          [
            'schedule',
            'create',
            id,
            'go',
            '--agent',
            'wiper',
            '--agents',
            agentsTs,
            '--every',
            '1h',
            '--policy',
            'wpie=deny',
            ...onServer(),
          ],
          { home },
        ),
      ),
    ).toMatch(/^error: Invalid run policy: policy key "wpie" names no tool of the agent \(did you mean wipe\?\)/);
    await expect(h.client.getSchedule(id).describe()).rejects.toThrow(/not found|no schedule/i);
  });
});
