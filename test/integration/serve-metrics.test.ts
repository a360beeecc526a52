/**
 * `GET /metrics` of the HTTP API on the real dev server: approvals waiting and the age of the oldest, by
 * agent and tool, computed at scrape time from the approval inbox (a run waiting shows up, its age grows,
 * and its series goes once it is decided), runs by phase, and the token it needs unless public.
 * The namespace is shared: only this file's agent's series are asserted on.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApi } from '../../apps/http/app';
import { parseTokens } from '../../apps/http/auth';
import type { HttpApiServer } from '../../apps/http/server';
import { ScriptedAgents } from '../helpers/agents';
import { resultWithin, waitForPending } from '../helpers/events';
import type { Harness } from '../helpers/harness';
import type { ServedApi } from '../helpers/http-api';
import { serveTestApi } from '../helpers/http-api';
import { testId } from '../helpers/harness';
import { deploy } from '../helpers/tools';

const S = new ScriptedAgents();
const AGENT = `metrics_deployer_${randomUUID().slice(0, 8)}`;
S.add(AGENT, [{ toolCalls: [{ name: 'deploy', args: { service: 'api' } }] }, { text: 'deployed' }], { tools: [deploy] });
const TOKEN = `metrics-${randomUUID()}`;
const AUTH = parseTokens(JSON.stringify({ tokens: { [TOKEN]: { identity: 'prometheus', permissions: ['metrics'] } } }), 'test tokens');

let served: ServedApi;
let h: Harness;
let server: HttpApiServer;

beforeAll(async () => {
  served = await serveTestApi({ agents: S.agents, providers: { scripted: S.provider } }, AUTH);
  ({ h, server } = served);
});
afterAll(async () => {
  await served?.stop();
});

async function scrape(): Promise<string> {
  const res = await fetch(`${server.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return text;
}

/** The value of `name{agent=AGENT,tool="deploy"}`, or undefined when the series is absent. */
function mine(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{agent="${AGENT}",tool="deploy"} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

async function until(check: (text: string) => boolean, what: string): Promise<string> {
  const deadline = Date.now() + 15_000;
  let text = '';
  while (Date.now() < deadline) {
    text = await scrape();
    if (check(text)) return text;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what}; last scrape:\n${text}`);
}

describe('GET /metrics', () => {
  it('needs a bearer token unless public', async () => {
    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).toBe(401);
    const open = createHttpApi({ client: h.client, auth: AUTH, metricsPublic: true });
    const publicRes = await open.app.request('/metrics');
    expect(publicRes.status).toBe(200);
    expect(await publicRes.text()).toContain('# TYPE durable_agent_approvals_waiting gauge');
  });

  it(
    'counts the approvals waiting by agent and tool, with the age of the oldest, until they are decided',
    { timeout: 40_000 },
    async () => {
      const run = await h.client.start(AGENT, { input: 'deploy the api', workflowId: testId('serve-metrics') });
      const [pending] = await waitForPending(run);
      const first = await until((t) => (mine(t, 'durable_agent_approvals_waiting') ?? 0) >= 1, `no approval of ${AGENT} counted`);
      expect(mine(first, 'durable_agent_approvals_waiting')).toBe(1);
      expect(first).toMatch(/^durable_agent_runs\{status="awaiting_approval"\} [1-9]\d*$/m);
      const age1 = mine(first, 'durable_agent_approval_oldest_age_seconds')!;
      expect(age1).toBeGreaterThanOrEqual(0);
      await new Promise((r) => setTimeout(r, 1_300)); // past the cache
      const second = await scrape();
      expect(mine(second, 'durable_agent_approvals_waiting')).toBe(1);
      expect(mine(second, 'durable_agent_approval_oldest_age_seconds')!).toBeGreaterThanOrEqual(age1 + 1);

      await run.decide({ callId: pending!.callId, decision: 'approve', by: 'ops:alice' });
      await resultWithin(run, 15_000);
      await until(
        (t) => mine(t, 'durable_agent_approvals_waiting') === undefined,
        `the approval of ${AGENT} is still counted after the decision`,
      );
    },
  );
});
