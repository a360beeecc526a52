/**
 * The console's standing-rules page (`#/rules`, issue 26) in a real headless Chromium against the HTTP API,
 * the namespace's rules entity and the shared dev server: a rule added over HTTP is listed with its
 * condition rendered, an editor adds and removes one from the page, a token without `rules` sees no edit
 * controls, and a non-editor's change shows the entity's refusal.
 */
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseTokens } from '../../apps/http/auth';
import { ScriptedAgents } from '../helpers/agents';
import { chromiumMissing, chromiumPath } from '../helpers/chromium';
import { describeNeeding } from '../helpers/component';
import type { ServedApi } from '../helpers/http-api';
import { serveTestApi } from '../helpers/http-api';
import { RULES_TEST_NAMESPACES } from '../setup/namespaces';

const CHROMIUM = chromiumPath();
const missing = chromiumMissing(CHROMIUM);

const S = new ScriptedAgents();
S.add('console_rules_idle', [{ text: 'done' }]);
/** The agent the test's rules name: its own, so that the shared rules entity's other rules do not matter. */
const AGENT = `console-rules-${randomUUID().slice(0, 8)}`;

const TOKENS = { alice: `alice-${randomUUID()}`, viewer: `viewer-${randomUUID()}`, mallory: `mallory-${randomUUID()}` };
const AUTH = parseTokens(
  JSON.stringify({
    tokens: {
      [TOKENS.alice]: { identity: 'ops:alice', permissions: ['read', 'rules'] },
      [TOKENS.viewer]: { identity: 'dashboard', permissions: ['read'] },
      [TOKENS.mallory]: { identity: 'ops:mallory', permissions: ['read', 'rules'] },
    },
  }),
  'test tokens',
);

let served: ServedApi;
let browser: Browser;
let context: BrowserContext;

async function rulesPage(token: string, identity: string): Promise<Page> {
  const p = await context.newPage();
  await p.goto(`${served.server.url}/console/#/rules`);
  await p.fill('#token', token);
  await p.click('button[type=submit]');
  await p.locator('.top .identity', { hasText: identity }).waitFor({ timeout: 30_000 });
  await p.locator('.rules .badge', { hasText: 'version' }).waitFor({ timeout: 15_000 });
  return p;
}

const http = (token: string, method: string, path: string, body?: unknown) =>
  fetch(`${served.server.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });

describeNeeding('console rules page in Chromium', 'Chromium', missing, () => {
  beforeAll(async () => {
    [served, browser] = await Promise.all([
      serveTestApi(
        {
          agents: S.agents,
          providers: { scripted: S.provider },
          approvalRules: { editors: ['ops:alice'] },
          namespace: RULES_TEST_NAMESPACES.console,
        },
        AUTH,
      ),
      chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] }),
    ]);
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await served?.stop();
  });

  it('lists a rule added over HTTP with its condition rendered; an editor adds and removes one from the page', async () => {
    const res = await http(TOKENS.alice, 'POST', '/rules', {
      scope: 'agent',
      agent: AGENT,
      tool: 'refund',
      when: { path: 'amount', op: 'lte', value: 50 },
      action: 'allow',
      reason: 'small refunds',
    });
    expect(res.status).toBe(201);
    const { rule } = (await res.json()) as { rule: { id: string } };

    const page = await rulesPage(TOKENS.alice, 'ops:alice');
    const row = page.locator(`table.rule-list tr[data-rule="${rule.id}"]`);
    await row.waitFor({ timeout: 10_000 });
    expect(await row.locator('.cond').textContent()).toBe('amount <= 50');
    expect(await row.locator('.action').textContent()).toBe('allow');
    expect(await row.textContent()).toContain(`agent ${AGENT}`);

    await page.selectOption('.add-rule select[name=scope]', 'agent');
    await page.fill('.add-rule input[name=target]', AGENT);
    await page.fill('.add-rule input[name=tool]', 'deploy');
    await page.fill('.add-rule input[name=when]', 'env=staging');
    await page.selectOption('.add-rule select[name=action]', 'deny');
    await page.fill('.add-rule input[name=until]', '2099-01-02T03:04');
    await page.click('.add-rule button[type=submit]');
    const added = page.locator('table.rule-list tr', { hasText: AGENT }).filter({ hasText: 'deploy' });
    await added.waitFor({ timeout: 10_000 });
    expect(await added.locator('.cond').textContent()).toBe('env == "staging"');
    expect(await added.locator('.action').textContent()).toBe('deny');
    expect(await added.locator('.until').textContent()).toContain('2099');

    await added.getByRole('button', { name: 'Remove' }).click();
    await added.waitFor({ state: 'detached', timeout: 10_000 });
    expect((await http(TOKENS.alice, 'DELETE', `/rules/${encodeURIComponent(rule.id)}`)).status).toBe(200);
    await page.close();
  });

  it('a token without "rules" sees no edit controls; a non-editor sees the refusal', async () => {
    const viewer = await rulesPage(TOKENS.viewer, 'dashboard');
    expect(await viewer.locator('.rules .why-not').textContent()).toContain('lacks the "rules" permission');
    expect(await viewer.locator('.add-rule').count()).toBe(0);
    expect(await viewer.locator('button.remove').count()).toBe(0);
    expect((await http(TOKENS.viewer, 'POST', '/rules', { scope: 'namespace', tool: 'x', action: 'allow' })).status).toBe(403);
    await viewer.close();

    const mallory = await rulesPage(TOKENS.mallory, 'ops:mallory');
    await mallory.selectOption('.add-rule select[name=scope]', 'agent');
    await mallory.fill('.add-rule input[name=target]', AGENT);
    await mallory.fill('.add-rule input[name=tool]', 'deploy');
    await mallory.click('.add-rule button[type=submit]');
    const refusal = mallory.locator('.rules .change-error');
    await refusal.waitFor({ timeout: 10_000 });
    expect(await refusal.textContent()).toMatch(/ops:mallory may not change the rules/);
    await mallory.close();
  });
});
