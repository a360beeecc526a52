/**
 * One waiting run sealed with a key the reader lacks never breaks the inbox: `durable-agent serve` over
 * HTTP and `durable-agent approvals` (holding k1 only) list it with an error naming the missing key id,
 * and list the other runs normally; so does the web console it serves (in headless Chromium). On the real
 * dev server.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { AwaitingRun } from '../../src/client';
import { Keyring } from '../../src/integrations/encryption/keyring';
import type { InboxView } from '../../apps/http/approval-inbox';
import { ScriptedAgents } from '../helpers/agents';
import { freePort, runCli, startCli, tempHome } from '../helpers/cli-run';
import { chromiumMissing, chromiumPath } from '../helpers/chromium';
import { describeNeeding } from '../helpers/component';
import type { RunningCli } from '../helpers/cli-run';
import { waitForPending } from '../helpers/events';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { deploy } from '../helpers/tools';

const S = new ScriptedAgents();
S.add('inbox_keys', [{ toolCalls: [{ name: 'deploy', args: { service: 'web' } }] }, { text: 'deployed' }], { tools: [deploy] });

const K1 = `k1:${Buffer.alloc(32, 1).toString('base64')}`;
const K2 = `k2:${Buffer.alloc(32, 2).toString('base64')}`;
const TOKEN = `alice-${randomUUID()}`;
const MISSING = /sealed with key k2, which this process does not hold/;

let readable: Harness;
let sealedK2: Harness;
let serve: RunningCli;
let url: string;
const home = tempHome();
const ids = { readable: testId('inbox-k1'), unreadable: testId('inbox-k2') };

beforeAll(async () => {
  readable = await startHarness({ agents: S.agents, providers: { scripted: S.provider }, encryption: Keyring.parse(K1) });
  sealedK2 = await startHarness({ agents: S.agents, providers: { scripted: S.provider }, encryption: Keyring.parse(`${K2},${K1}`) });
  await waitForPending(await readable.client.start('inbox_keys', { input: 'deploy web', workflowId: ids.readable }));
  await waitForPending(await sealedK2.client.start('inbox_keys', { input: 'deploy web', workflowId: ids.unreadable }));
  const tokens = join(home, 'tokens.json');
  writeFileSync(tokens, JSON.stringify({ tokens: { [TOKEN]: { identity: 'ops:alice', approve: true } } }));
  const port = await freePort();
  serve = startCli(
    ['serve', '--address', inject('temporalAddress'), '--task-queue', readable.taskQueue, '--http-port', String(port), '--tokens', tokens],
    { home, env: { DURABLE_AGENT_KEYS: K1 } },
  );
  await serve.waitFor('Press Ctrl-C to stop.');
  url = `http://127.0.0.1:${port}`;
}, 120_000);

afterAll(async () => {
  serve?.child.kill('SIGTERM');
  await serve?.done;
  await readable?.stop();
  await sealedK2?.stop();
});

/** Both runs listed (visibility lags a moment behind the runs). */
async function until<T>(read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  let last = await read();
  for (let i = 0; i < 100 && !done(last); i++) {
    await new Promise((r) => setTimeout(r, 200));
    last = await read();
  }
  return last;
}

const both = (runs: readonly { workflowId: string }[]) =>
  runs.some((r) => r.workflowId === ids.readable) && runs.some((r) => r.workflowId === ids.unreadable);

describe('an inbox holding a run sealed with a key the reader lacks', () => {
  it('GET /approvals answers 200: that run with an error naming the key id, the others as usual', async () => {
    const view = await until(
      async () => {
        const res = await fetch(`${url}/approvals`, { headers: { Authorization: `Bearer ${TOKEN}` } });
        const text = await res.text();
        expect(res.status, text).toBe(200);
        return JSON.parse(text) as InboxView;
      },
      (v) => both(v.runs),
    );
    const ok = view.runs.find((r) => r.workflowId === ids.readable);
    expect(ok).toMatchObject({
      agent: 'inbox_keys',
      pending: [{ callId: 'call_1_0', tool: 'deploy', args: { service: 'web' }, mayDecide: true }],
    });
    expect(ok?.error).toBeUndefined();
    const bad = view.runs.find((r) => r.workflowId === ids.unreadable);
    expect(bad).toMatchObject({ agent: 'inbox_keys', pending: [], error: expect.stringMatching(MISSING) });
    expect(JSON.stringify(view)).not.toContain(K2.slice(3));
  });

  it('GET /runs and `durable-agent runs` list it too (a memo it cannot open does not fail the listing)', async () => {
    const listed = await until(async () => {
      const res = await fetch(`${url}/runs?agent=inbox_keys&limit=1000`, { headers: { Authorization: `Bearer ${TOKEN}` } });
      const text = await res.text();
      expect(res.status, text).toBe(200);
      return (JSON.parse(text) as { runs: { workflowId: string; status: string }[] }).runs;
    }, both);
    expect(listed.find((r) => r.workflowId === ids.unreadable)).toMatchObject({ status: 'awaiting_approval' });
    expect(listed.find((r) => r.workflowId === ids.readable)).toMatchObject({ status: 'awaiting_approval' });
    const r = await runCli(['runs', '--address', inject('temporalAddress'), '--agent', 'inbox_keys', '--json'], {
      home,
      env: { DURABLE_AGENT_KEYS: K1 },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(both(JSON.parse(r.stdout) as { workflowId: string }[])).toBe(true);
  }, 60_000);

  it('`durable-agent approvals` lists it with the error, and the others as usual (text and --json)', async () => {
    const cli = (...args: string[]) =>
      runCli(['approvals', '--address', inject('temporalAddress'), ...args], { home, env: { DURABLE_AGENT_KEYS: K1 } });
    const json = await until(async () => {
      const r = await cli('--json');
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as AwaitingRun[];
    }, both);
    expect(json.find((r) => r.workflowId === ids.unreadable)).toMatchObject({ pending: [], error: expect.stringMatching(MISSING) });
    expect(json.find((r) => r.workflowId === ids.readable)).toMatchObject({ pending: [{ callId: 'call_1_0', tool: 'deploy' }] });
    const text = await cli();
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`${ids.readable}  (agent inbox_keys, 1 pending)`);
    expect(text.stdout).toMatch(new RegExp(`${ids.unreadable}  \\(agent inbox_keys\\): cannot be read: ${MISSING.source}`));
  }, 60_000);
});

const CHROMIUM = chromiumPath();

describeNeeding('the console inbox with a run it cannot read', 'Chromium', chromiumMissing(CHROMIUM), () => {
  it("shows that run as a card naming the missing key id, beside the others' approval cards", async () => {
    const browser = await chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
    try {
      const page = await browser.newPage();
      await page.goto(`${url}/console/`);
      await page.fill('#token', TOKEN);
      await page.click('button[type=submit]');
      const unreadable = page.locator(`article.unreadable[data-run="${ids.unreadable}"]`);
      await unreadable.waitFor({ timeout: 20_000 });
      expect(await unreadable.innerText()).toMatch(MISSING);
      await page.locator(`article.approval[data-run="${ids.readable}"][data-call="call_1_0"]`).waitFor({ timeout: 20_000 });
    } finally {
      await browser.close();
    }
  }, 60_000);
});
