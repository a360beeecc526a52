/**
 * The console's approvals product (issue 26) in a real headless Chromium against the HTTP API and the
 * shared dev server: the audit page's filters narrow its table, the run page lists the run's approval
 * trail, "Not now" takes a call out of the inbox and the Deferred filter shows it, Delegate shows the
 * assignee, and an escalation timer shows the escalated badge.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/agents/define';
import type { AgentRun } from '../../src/client';
import { parseTokens } from '../../apps/http/auth';
import { ScriptedAgents } from '../helpers/agents';
import { chromiumMissing, chromiumPath } from '../helpers/chromium';
import { describeNeeding } from '../helpers/component';
import { pollUntil, resultWithin, waitForPending } from '../helpers/events';
import { testId } from '../helpers/harness';
import type { ServedApi } from '../helpers/http-api';
import { serveTestApi } from '../helpers/http-api';

/** Screenshots of the pages, for people to look at (not compared). */
const SHOTS = join(resolve(__dirname, '..', '..'), '.ci', 'out', 'console');

const CHROMIUM = chromiumPath();
const missing = chromiumMissing(CHROMIUM);

const deploy = defineTool({
  name: 'deploy',
  description: 'Deploy a service',
  input: z.object({ service: z.string() }),
  needsApproval: true,
  execute: ({ service }) => `deployed ${service}`,
});
const release = defineTool({
  name: 'release',
  description: 'Release a version',
  input: z.object({ version: z.string() }),
  approvers: ['ops:alice'],
  approvalTimeout: '2h',
  execute: ({ version }) => `released ${version}`,
});
const payout = defineTool({
  name: 'payout',
  description: 'Pay out; escalates to the leads',
  input: z.object({ amount: z.number() }),
  approvers: ['ops:alice'],
  escalate: { after: '600ms', to: ['ops:leads'] },
  approvalTimeout: '2h',
  execute: ({ amount }) => `paid ${amount}`,
});

const S = new ScriptedAgents();
S.add(
  'console_audit',
  [
    {
      toolCalls: [
        { name: 'deploy', args: { service: 'api' } },
        { name: 'deploy', args: { service: 'web' } },
      ],
    },
    { text: 'done' },
  ],
  { tools: [deploy] },
);
const oneRelease = [{ toolCalls: [{ name: 'release', args: { version: '3.1' } }] }, { text: 'done' }];
S.add('console_defer', oneRelease, { tools: [release] });
S.add('console_delegate', oneRelease, { tools: [release] });
S.add('console_escalate', [{ toolCalls: [{ name: 'payout', args: { amount: 900 } }] }, { text: 'done' }], { tools: [payout] });

const TOKENS = { alice: `alice-${randomUUID()}` };
const AUTH = parseTokens(JSON.stringify({ tokens: { [TOKENS.alice]: { identity: 'ops:alice', approve: true } } }), 'test tokens');

let served: ServedApi;
let browser: Browser;
let context: BrowserContext;
let page: Page;

async function start(agent: string, name: string): Promise<AgentRun> {
  const run = await served.h.client.start(agent, { input: 'go', workflowId: testId(`console-ap-${name}`), startedBy: 'ops:alice' });
  await waitForPending(run);
  return run;
}
const card = (p: Page, run: AgentRun): Locator => p.locator(`article.approval[data-run="${run.workflowId}"]`);
const url = (hash: string) => `${served.server.url}/console/${hash}`;

describeNeeding('console approvals in Chromium', 'Chromium', missing, () => {
  beforeAll(async () => {
    [served, browser] = await Promise.all([
      serveTestApi({ agents: S.agents, providers: { scripted: S.provider } }, AUTH),
      chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] }),
    ]);
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    await page.goto(url(''));
    await page.fill('#token', TOKENS.alice);
    await page.click('button[type=submit]');
    await page.locator('.top .identity', { hasText: 'ops:alice' }).waitFor({ timeout: 30_000 });
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await served?.stop();
  });

  it('the audit page lists the records of runs and its filters narrow the table; the run page lists its trail with paths', async () => {
    const run = await start('console_audit', 'audit');
    const res = await fetch(`${served.server.url}/runs/${encodeURIComponent(run.workflowId)}/approvals/call_1_0`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKENS.alice}`, 'Content-Type': 'application/json', 'X-Durable-Agent-Client': 'console' },
      body: JSON.stringify({ decision: 'approve', reason: 'looks fine' }),
    });
    expect(res.status).toBe(200);
    await run.decide({ callId: 'call_1_1', decision: 'deny', by: 'ops:bob', reason: 'not today' });
    expect((await resultWithin(run)).status).toBe('success');
    // Visibility lists the run a moment after it started.
    await pollUntil(
      () => served.h.client.audit({ agent: 'console_audit', since: '1h' }),
      (r) => r.length > 0,
      'the run in visibility',
    );

    await page.goto(url('#/audit?agent=console_audit&since=1h'));
    const rows = page.locator('table.audit-records tbody tr');
    await rows.nth(3).waitFor({ timeout: 10_000 });
    expect(await rows.count()).toBe(4); // two requested, two decided
    expect(await page.locator('table.audit-records tbody tr a').first().getAttribute('href')).toBe(
      `#/runs/${encodeURIComponent(run.workflowId)}`,
    );

    await page.selectOption('select[name=path]', 'console');
    await page.waitForFunction(() => (globalThis as unknown as { location: { hash: string } }).location.hash.includes('path=console'));
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(1);
    expect(await rows.first().locator('.what').textContent()).toBe('approve');
    expect(await rows.first().locator('.by').textContent()).toBe('ops:alice');

    await page.selectOption('select[name=path]', '');
    await page.selectOption('select[name=decision]', 'deny');
    await expect.poll(() => rows.first().locator('.by').textContent(), { timeout: 10_000 }).toBe('ops:bob');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().locator('.path').textContent()).toBe('sdk');

    await page.fill('input[name=by]', 'nobody');
    await page.press('input[name=by]', 'Enter');
    await page.locator('.audit .empty', { hasText: 'No approval record matches' }).waitFor({ timeout: 10_000 });

    // The run's page: its trail, each decision with who, path and reason.
    await page.goto(url(`#/runs/${encodeURIComponent(run.workflowId)}`));
    const decided = page.locator('table.audit-trail tbody tr[data-kind="decided"]');
    await decided.nth(1).waitFor({ timeout: 10_000 });
    expect(await decided.nth(0).textContent()).toMatch(/deploy.*approve.*ops:alice.*console.*looks fine/);
    expect(await decided.nth(1).textContent()).toMatch(/deploy.*deny.*ops:bob.*sdk.*not today/);
    expect(await page.locator('table.audit-trail tbody tr[data-kind="requested"]').count()).toBe(2);
    // The run page and the audit page at a phone's width: nothing wider than the screen.
    mkdirSync(SHOTS, { recursive: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: join(SHOTS, 'run-trail-phone.png'), fullPage: true });
    await page.goto(url('#/audit?agent=console_audit&since=1h'));
    await rows.nth(3).waitFor({ timeout: 10_000 });
    await page.screenshot({ path: join(SHOTS, 'audit-phone.png'), fullPage: true });
    expect(
      await page.evaluate(
        () => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth,
      ),
    ).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.screenshot({ path: join(SHOTS, 'audit-desktop.png') });
  });

  it('"Not now" takes a call out of the inbox until its time; the Deferred filter lists it', async () => {
    const run = await start('console_defer', 'defer');
    await page.goto(url(''));
    const c = card(page, run);
    await c.waitFor({ timeout: 15_000 });
    await c.locator('details.later summary').click();
    await c.getByRole('button', { name: 'Not now' }).click();
    await c.waitFor({ state: 'detached', timeout: 10_000 });
    const [pending] = await run.pendingApprovals({ includeDeferred: true });
    const back = Date.parse(pending!.deferredUntil!);
    expect(back - Date.now()).toBeGreaterThan(50 * 60_000); // the default: about an hour

    await page.getByRole('button', { name: 'Deferred' }).click();
    await c.waitFor({ timeout: 10_000 });
    expect(await c.locator('.badge.deferred').textContent()).toContain('deferred until');
    // Still decidable while deferred.
    await c.getByRole('button', { name: 'Approve' }).click();
    expect((await resultWithin(run)).status).toBe('success');
    await page.getByRole('button', { name: 'Waiting' }).click();
  });

  it('Delegate shows the assignee; an escalation timer shows the escalated badge', async () => {
    const [delegated, escalated] = await Promise.all([start('console_delegate', 'delegate'), start('console_escalate', 'escalate')]);
    await page.goto(url(''));
    const d = card(page, delegated);
    await d.waitFor({ timeout: 15_000 });
    await d.locator('details.later summary').click();
    await d.locator('input.delegate-to').fill('ops:bob');
    await d.getByRole('button', { name: 'Delegate' }).click();
    await d.locator('.badge.assignee', { hasText: 'assigned to ops:bob' }).waitFor({ timeout: 10_000 });

    const e = card(page, escalated);
    await e.locator('.badge.escalated', { hasText: 'escalated to ops:leads' }).waitFor({ timeout: 10_000 });
    expect(await e.textContent()).toContain('ops:alice');

    await delegated.decide({ callId: 'call_1_0', decision: 'approve', by: 'ops:bob' });
    await escalated.decide({ callId: 'call_1_0', decision: 'deny', by: 'ops:leads' });
    await Promise.all([resultWithin(delegated), resultWithin(escalated)]);
  });
});
