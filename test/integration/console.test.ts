/**
 * The web console in a real headless Chromium (Debian's `chromium`, driven by playwright-core), served by
 * the HTTP API (`createHttpApi`) on a free port, against the shared dev server: approving from the page
 * finishes the run (a running tool shows its progress on its row), a denial's reason reaches the model, a decision made by another client leaves the
 * inbox at once, a run is cancelled from its page, the layout holds at a phone and a desktop width (screenshots in `.ci/out/console/`), a
 * token that may not cancel a run sees no Cancel button, the pages run under the strict Content-Security-Policy, and a
 * bad token is refused clearly.
 *
 * `DURABLE_AGENT_CHROMIUM` names the browser (default: `chromium` on the PATH). Set
 * `DURABLE_AGENT_CONSOLE_DOCS=1` (`npm run screenshots:console`) to also write the README's screenshots
 * to `docs/`.
 */
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/agents/define';
import type { AgentRun } from '../../src/client';
import type { ContentBlock } from '../../src/core/messages/messages';
import type { HttpApi } from '../../apps/http/app';
import { createHttpApi } from '../../apps/http/app';
import { parseTokens } from '../../apps/http/auth';
import type { HttpApiServer } from '../../apps/http/server';
import { serveHttpApi } from '../../apps/http/server';
import { ScriptedAgents } from '../helpers/agents';
import { chromiumMissing, chromiumPath } from '../helpers/chromium';
import { describeNeeding } from '../helpers/component';
import { resultWithin, waitForPending } from '../helpers/events';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';

const ROOT = resolve(__dirname, '..', '..');
const SHOTS = join(ROOT, '.ci', 'out', 'console');

const CHROMIUM = chromiumPath();
const missing = chromiumMissing(CHROMIUM);

const rollout = defineTool({
  name: 'rollout',
  description: 'Roll a service out to production',
  input: z.object({ service: z.string(), version: z.string(), regions: z.array(z.string()) }),
  needsApproval: true,
  approvers: ['ops:alice', 'ops:carol'],
  approvalTimeout: '2h',
  onApprovalTimeout: 'deny',
  execute: async ({ service, version }) => {
    await sleep(300);
    return `${service} ${version} is live`;
  },
});

const S = new ScriptedAgents();
S.add(
  'console_deployer',
  [
    {
      text: 'The fix is merged and tested; rolling it out needs an approval.',
      toolCalls: [{ name: 'rollout', args: { service: 'checkout', version: '2.14.1', regions: ['eu-west-1', 'us-east-1'] } }],
    },
    { text: 'Done: checkout 2.14.1 is handled.' },
  ],
  { tools: [rollout] },
);

/** The streamed answer of `console_streamer`'s second step (after one failed attempt). */
const STREAMED = 'Done: checkout 2.14.1 is live in eu-west-1 and us-east-1, and its error rate is flat since the rollout.';
S.add(
  'console_streamer',
  [
    {
      text: 'The fix is merged and tested; rolling it out needs an approval.',
      toolCalls: [{ name: 'rollout', args: { service: 'checkout', version: '2.14.1', regions: ['eu-west-1', 'us-east-1'] } }],
    },
    { text: STREAMED, failures: [{ message: 'overloaded', retryable: true, status: 529 }], stream: { chunks: 30, intervalMs: 150 } },
  ],
  { tools: [rollout] },
);

/** Opened by the progress test once the page showed the tool's progress. */
let progressShown: () => void = () => undefined;
const indexRepo = defineTool({
  name: 'index_repo',
  description: 'Index the repository',
  input: z.object({}),
  readOnly: true,
  execute: async (_args, ctx) => {
    const shown = new Promise<void>((resolve) => (progressShown = resolve));
    ctx.progress({ message: 'indexing file 3 of 5', fraction: 0.6 });
    await shown;
    return 'indexed';
  },
});
S.add('console_indexer', [{ toolCalls: [{ name: 'index_repo', args: {} }] }, { text: 'Indexed.' }], { tools: [indexRepo] });

const TOKENS = { alice: `alice-${randomUUID()}`, viewer: `viewer-${randomUUID()}` };
const TOKEN_CONFIG = { tokens: { [TOKENS.alice]: { identity: 'ops:alice', approve: true }, [TOKENS.viewer]: { identity: 'dashboard' } } };

let h: Harness;
let api: HttpApi;
let server: HttpApiServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** What Chromium reported of Content-Security-Policy violations, on every page of the test. */
const cspViolations: string[] = [];

/** A run waiting for the rollout's approval, started by ops:alice (so her token may cancel it). */
async function startDeploy(name: string, agent = 'console_deployer'): Promise<AgentRun> {
  const run = await h.client.start(agent, {
    input: `Roll out the checkout fix (${name})`,
    workflowId: testId(`console-${name}`),
    startedBy: 'ops:alice',
  });
  await waitForPending(run);
  return run;
}

/** The inbox card of a run's call. */
const card = (p: Page, run: AgentRun) => p.locator(`article.approval[data-run="${run.workflowId}"]`);

/** A new page of `ctx`, signed in with `token` (as `identity`). */
async function signedInPage(ctx: BrowserContext, token = TOKENS.alice, identity = 'ops:alice'): Promise<Page> {
  const p = await ctx.newPage();
  await p.goto(`${server.url}/console/`);
  await p.fill('#token', token);
  await p.click('button[type=submit]');
  await p.locator('.top .identity', { hasText: identity }).waitFor({ timeout: 30_000 });
  return p;
}

/** The little of the DOM the layout check uses (the tests' tsconfig has no DOM types). */
interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
  width: number;
  height: number;
}
interface El {
  textContent: string | null;
  scrollWidth: number;
  clientWidth: number;
  getBoundingClientRect(): Box;
  closest(selector: string): El | null;
  querySelectorAll(selector: string): Iterable<El>;
}
interface Win {
  innerWidth: number;
  document: { documentElement: El; querySelector(selector: string): El | null };
  getComputedStyle(el: El): { display: string; overflowX: string };
}

/** Problems with the layout at the page's current size: horizontal overflow, hidden or overlapping buttons, clipped text. */
async function layoutProblems(p: Page, scope: string): Promise<string[]> {
  return p.evaluate((scopeSelector) => {
    const w = globalThis as unknown as Win;
    const problems: string[] = [];
    const doc = w.document.documentElement;
    if (doc.scrollWidth > w.innerWidth) problems.push(`the page is ${doc.scrollWidth}px wide in a ${w.innerWidth}px window`);
    const root = w.document.querySelector(scopeSelector);
    if (!root) return [`nothing matches ${scopeSelector}`];
    const buttons = [...root.querySelectorAll('button')].map((b) => ({ text: b.textContent ?? '', r: b.getBoundingClientRect() }));
    for (const b of buttons) {
      if (b.r.width < 24 || b.r.height < 24) problems.push(`button "${b.text}" is ${b.r.width}×${b.r.height}`);
      if (b.r.left < 0 || b.r.right > w.innerWidth)
        problems.push(`button "${b.text}" sticks out (${b.r.left}..${b.r.right} of ${w.innerWidth})`);
    }
    buttons.forEach((a, i) =>
      buttons.slice(i + 1).forEach((b) => {
        const overlap = a.r.left < b.r.right && b.r.left < a.r.right && a.r.top < b.r.bottom && b.r.top < a.r.bottom;
        if (overlap) problems.push(`buttons "${a.text}" and "${b.text}" overlap`);
      }),
    );
    for (const el of root.querySelectorAll('h1, h2, h3, a, code, .status, .badge, .latency, .expiry, td, th, label, p')) {
      const style = w.getComputedStyle(el);
      if (style.display === 'none' || el.closest('pre, .scroll')) continue;
      const text = (el.textContent ?? '').slice(0, 40);
      if (el.scrollWidth > el.clientWidth + 1 && style.overflowX !== 'visible' && el.clientWidth > 0)
        problems.push(`"${text}" is cut (${el.scrollWidth} > ${el.clientWidth})`);
      const r = el.getBoundingClientRect();
      if (r.width > 0 && (r.left < -1 || r.right > w.innerWidth + 1))
        problems.push(`"${text}" runs off the screen (${Math.round(r.left)}..${Math.round(r.right)})`);
    }
    return problems;
  }, scope);
}

describeNeeding('web console in Chromium', 'Chromium', missing, () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    [h, browser] = await Promise.all([
      startHarness({ agents: S.agents, providers: { scripted: S.provider } }),
      chromium.launch({
        executablePath: CHROMIUM!,
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          '--no-first-run',
        ],
      }),
    ]);
    api = createHttpApi({ client: h.client, auth: parseTokens(JSON.stringify(TOKEN_CONFIG), 'test tokens') });
    server = await serveHttpApi(api, { port: 0 });
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
    });
    page = await signedInPage(context);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
    await h?.stop();
  });

  it('approves a call from the inbox: the run page streams the answer live, then shows success and the report', async () => {
    const run = await startDeploy('approve', 'console_streamer');
    const c = card(page, run);
    await c.waitFor({ timeout: 30_000 });
    await expect.poll(() => c.locator('.tool').textContent()).toBe('rollout');
    const args = JSON.parse((await c.locator('pre.args').textContent()) ?? '') as unknown;
    expect(args).toEqual({ service: 'checkout', version: '2.14.1', regions: ['eu-west-1', 'us-east-1'] });
    expect(await c.locator('.context').textContent()).toContain('Roll out the checkout fix (approve)');
    expect(await c.textContent()).toContain('ops:alice, ops:carol');
    expect(await c.locator('.expiry').textContent()).toMatch(/(1 h 59 min|2 h 0 min) left/);

    await c.locator('input.reason').fill('tested on staging');
    await c.getByRole('button', { name: 'Approve' }).click();
    await c.waitFor({ state: 'detached', timeout: 5_000 });

    // The run's page, while the model's answer streams: part of it shows before the whole.
    await page.goto(`${server.url}/console/#/runs/${encodeURIComponent(run.workflowId)}`);
    await page.waitForFunction(
      (full) => {
        const text = (
          globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<{ textContent: string | null }> } }
        ).document.querySelectorAll('.timeline li.step .text')[1]?.textContent;
        return !!text && text.length < full.length && full.startsWith(text);
      },
      STREAMED,
      { polling: 'raf', timeout: 20_000 },
    );
    const result = await resultWithin(run, 20_000);
    expect(result.status).toBe('success');
    expect(result.report.toolCalls).toMatchObject([{ tool: 'rollout', isError: false }]);
    await page.locator('.run-head .status[data-status="success"]').waitFor({ timeout: 30_000 });
    await page.locator('table.report-steps tbody tr').nth(1).waitFor({ timeout: 30_000 });
    expect(await page.locator('table.report-steps tbody tr').count()).toBe(2);
    expect(await page.locator('table.report-tools tbody').textContent()).toContain('rollout');
    const tool = page.locator(`.timeline li.tool[data-call="${result.report.toolCalls[0]!.callId}"]`);
    expect(await tool.locator('.state').textContent()).toBe('done');
    expect(await tool.locator('.latency').textContent()).toMatch(/\d+ ms|\d+(\.\d)? s/);
    expect(await tool.locator('.decision').textContent()).toContain('approve by ops:alice: “tested on staging”');
    expect(await page.locator('.timeline li.step .text').nth(1).textContent()).toBe(STREAMED);
    expect(await page.locator('.timeline li.step .retry').first().textContent()).toContain('attempt 1 failed (overloaded)');
  });

  it('denies with a reason from the page: the model reads the reason', async () => {
    await page.goto(`${server.url}/console/#/`);
    const run = await startDeploy('deny');
    const c = card(page, run);
    await c.waitFor({ timeout: 30_000 });
    await c.locator('input.reason').fill('change freeze until Monday');
    await c.getByRole('button', { name: 'Deny' }).click();
    const result = await resultWithin(run, 20_000);
    const toolResults = result.messages
      .flatMap((m): ContentBlock[] => (Array.isArray(m.content) ? m.content : []))
      .filter((b) => b.type === 'tool_result');
    expect(JSON.stringify(toolResults)).toContain('change freeze until Monday');
    expect(result.report.toolCalls[0]).toMatchObject({ tool: 'rollout', isError: true });
    await c.waitFor({ state: 'detached', timeout: 5_000 });
  });

  it('drops a call from the inbox within a second or two when another client decides it, even beside a run whose worker is gone; a stale page shows the refusal', async () => {
    // A run waiting for a person whose worker is gone never answers the inbox's query: the inbox must
    // not wait for it (the shared namespace holds such runs of other files too).
    const gone = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
    const orphan = await gone.client.start('console_deployer', {
      input: 'Roll out (its worker is gone)',
      workflowId: testId('console-orphan'),
    });
    await waitForPending(orphan);
    await gone.stop();
    onTestFinished(() =>
      h.client
        .get(orphan.workflowId)
        .handle.terminate('console test cleanup')
        .then(() => undefined),
    );

    await page.goto(`${server.url}/console/#/`);
    const run = await startDeploy('elsewhere');
    const c = card(page, run);
    await c.waitFor({ timeout: 30_000 });
    // The inbox as the server showed it before the decision: a page still showing it decides too late.
    const before = await fetch(`${server.url}/approvals`, { headers: { Authorization: `Bearer ${TOKENS.alice}` } }).then((r) => r.text());
    const [pending] = await run.pendingApprovals();
    const decidedAt = Date.now();
    await run.decide({ callId: pending!.callId, decision: 'skip', by: 'ops:carol', reason: 'not needed' });
    await c.waitFor({ state: 'detached', timeout: 2_500 });
    expect(Date.now() - decidedAt).toBeLessThan(2_500);
    expect((await resultWithin(run, 20_000)).status).toBe('success');

    // A stale page (its inbox stream replaced by the one captured before the decision) shows the refusal.
    const stale = await signedInPage(context);
    try {
      await stale.route('**/approvals/events', (route) =>
        route.fulfill({ status: 200, contentType: 'text/event-stream', body: `event: inbox\ndata: ${before}\n\n` }),
      );
      await stale.goto(`${server.url}/console/#/runs`);
      await stale.goto(`${server.url}/console/#/`);
      const old = card(stale, run);
      await old.waitFor({ timeout: 30_000 });
      const refusal = await fetch(`${server.url}/runs/${encodeURIComponent(run.workflowId)}/approvals/${pending!.callId}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${TOKENS.alice}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ decision: 'approve' }),
      }).then((r) => r.json() as Promise<{ error: { message: string } }>);
      await old.getByRole('button', { name: 'Approve' }).click();
      await old.locator('.error').waitFor({ timeout: 5_000 });
      expect(await old.locator('.error').textContent()).toBe(refusal.error.message);
    } finally {
      await stale.close();
    }
  });

  it("shows a running tool's newest progress on its row of the run page, gone once the call is done", async () => {
    const run = await h.client.start('console_indexer', { input: 'index', workflowId: testId('console-progress'), startedBy: 'ops:alice' });
    await page.goto(`${server.url}/console/#/runs/${encodeURIComponent(run.workflowId)}`);
    const row = page.locator('.timeline li.tool', { hasText: 'index_repo' });
    await row.locator('.progress', { hasText: 'indexing file 3 of 5 60%' }).waitFor({ timeout: 20_000 });
    expect(await row.locator('.state').textContent()).toBe('running');
    progressShown();
    await page.locator('.run-head .status[data-status="success"]').waitFor({ timeout: 30_000 });
    expect(await row.locator('.state').textContent()).toBe('done');
    expect(await row.locator('.progress').count()).toBe(0);
  });

  it('cancels a run from its page, after a confirmation: the run ends cancelled and the page says so', async () => {
    const run = await startDeploy('cancel');
    await page.goto(`${server.url}/console/#/runs/${encodeURIComponent(run.workflowId)}`);
    await page.getByRole('button', { name: 'Cancel run' }).click();
    await page.getByRole('button', { name: 'No' }).click();
    await page.getByRole('button', { name: 'Cancel run' }).click();
    await page.getByRole('button', { name: 'Yes, cancel it' }).click();
    const result = await resultWithin(run, 20_000);
    expect(result.status).toBe('cancelled');
    // The waiting call never ran: the report records it as cut by the cancellation.
    expect(result.report.toolCalls).toMatchObject([
      { tool: 'rollout', attempts: 0, isError: true, error: expect.stringContaining('Cancelled') },
    ]);
    await page.locator('.run-head .status[data-status="cancelled"]').waitFor({ timeout: 30_000 });
    expect(await page.getByRole('button', { name: /Cancel/ }).count()).toBe(0);
  });

  it('holds its layout at phone and desktop widths (screenshots of the inbox and a run page)', async () => {
    const waiting = await startDeploy('layout');
    const finished = await h.client.start('console_streamer', {
      input: 'Roll out the checkout fix',
      workflowId: testId('console-layout-done'),
    });
    await waitForPending(finished);
    const [call] = await finished.pendingApprovals();
    await finished.decide({ callId: call!.callId, decision: 'approve', by: 'ops:alice', reason: 'tested on staging' });
    await resultWithin(finished, 20_000);
    const docs = process.env.DURABLE_AGENT_CONSOLE_DOCS === '1';
    try {
      for (const [label, viewport] of [
        ['phone', { width: 390, height: 844 }],
        ['desktop', { width: 1280, height: 800 }],
      ] as const) {
        await page.setViewportSize(viewport);
        await page.goto(`${server.url}/console/#/`);
        const c = card(page, waiting);
        await c.waitFor({ timeout: 30_000 });
        await c.locator('input.reason').fill('Looks right: staged yesterday');
        expect(await layoutProblems(page, `article.approval[data-run="${waiting.workflowId}"]`), `inbox at ${label} width`).toEqual([]);
        for (const name of ['Approve', 'Deny', 'Skip']) expect(await c.getByRole('button', { name }).isVisible()).toBe(true);
        await page.screenshot({ path: join(SHOTS, `inbox-${label}.png`), fullPage: label === 'phone' });

        await page.goto(`${server.url}/console/#/runs/${encodeURIComponent(finished.workflowId)}`);
        await page.locator('table.report-steps tbody tr').nth(1).waitFor({ timeout: 30_000 });
        expect(await layoutProblems(page, 'main'), `run page at ${label} width`).toEqual([]);
        await page.screenshot({ path: join(SHOTS, `run-${label}.png`), fullPage: true });

        await page.goto(`${server.url}/console/#/runs?agent=console_streamer`);
        await page.locator(`table.list a[href$="${encodeURIComponent(finished.workflowId)}"]`).waitFor({ timeout: 30_000 });
        expect(await layoutProblems(page, 'main'), `runs list at ${label} width`).toEqual([]);
        await page.screenshot({ path: join(SHOTS, `runs-${label}.png`), fullPage: label === 'phone' });
      }
      if (docs) {
        mkdirSync(join(ROOT, 'docs'), { recursive: true });
        copyFileSync(join(SHOTS, 'inbox-desktop.png'), join(ROOT, 'docs', 'console-inbox.png'));
        copyFileSync(join(SHOTS, 'run-desktop.png'), join(ROOT, 'docs', 'console-run.png'));
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
      await waiting.cancel();
    }
  });

  it('shows no Cancel button to a token that may not cancel the run, and says why', async () => {
    const run = await startDeploy('not-yours');
    const viewer = await signedInPage(context, TOKENS.viewer, 'dashboard');
    try {
      await viewer.goto(`${server.url}/console/#/runs/${encodeURIComponent(run.workflowId)}`);
      const why = viewer.locator('.run-head .why-not');
      await why.waitFor({ timeout: 30_000 });
      expect(await why.textContent()).toBe('Only ops:alice or an admin may cancel this run.');
      expect(await viewer.getByRole('button', { name: 'Cancel run' }).count()).toBe(0);
    } finally {
      await viewer.close();
      await run.cancel();
    }
  });

  it('runs under a strict Content-Security-Policy: the console loads without a violation, and an inline script is refused', async () => {
    const p = await signedInPage(context);
    try {
      const res = await p.reload();
      const headers = res!.headers();
      expect(headers['content-security-policy']).toMatch(/default-src 'self'.*frame-ancestors 'none'/);
      expect(headers['x-frame-options']).toBe('DENY');
      expect(headers['x-content-type-options']).toBe('nosniff');
      await p.locator('.top .identity', { hasText: 'ops:alice' }).waitFor({ timeout: 30_000 });
      expect(cspViolations).toEqual([]); // every page of the tests above too
      const ran = await p.evaluate(() => {
        const g = globalThis as unknown as {
          document: { createElement(tag: string): { textContent: string }; body: { appendChild(n: unknown): void } };
          inlineRan?: boolean;
        };
        const script = g.document.createElement('script');
        script.textContent = 'globalThis.inlineRan = true';
        g.document.body.appendChild(script);
        return g.inlineRan === true;
      });
      expect(ran).toBe(false);
      await sleep(200);
      expect(cspViolations.join('\n')).toMatch(/inline script/i);
    } finally {
      await p.close();
    }
  });

  it('refuses a bad token with a clear message; a token that may not approve sees why the buttons are disabled', async () => {
    const run = await startDeploy('viewer');
    const viewer = await signedInPage(context, TOKENS.viewer, 'dashboard');
    try {
      const c = card(viewer, run);
      await c.waitFor({ timeout: 30_000 });
      for (const name of ['Approve', 'Deny', 'Skip']) expect(await c.getByRole('button', { name }).isDisabled()).toBe(true);
      expect(await c.locator('.why-not').textContent()).toBe('Your token (dashboard) may not decide approvals.');
    } finally {
      await viewer.close();
      await run.cancel();
    }

    const p = await context.newPage();
    try {
      await p.goto(`${server.url}/console/`);
      await p.fill('#token', 'not-a-token-of-this-server');
      await p.click('button[type=submit]');
      const error = p.locator('.sign-in .error');
      await error.waitFor({ timeout: 30_000 });
      expect(await error.textContent()).toMatch(/Sign-in refused: the bearer token is not valid/);
      expect(await p.locator('.top .identity').count()).toBe(0);
    } finally {
      await p.close();
    }
  });
});
