/**
 * The chat example (examples/chat) in a real headless Chromium, against the shared dev server: its page built
 * by Vite (test/helpers/chat-example.ts), its web server and its worker as child processes (the worker is
 * `kill -9`ed and redeployed here), two users signed in through the example's own cookie sign-in. What the
 * page shows (DOM text) is checked against what the run recorded:
 * - a message's answer streams into the page (several growing states, then the transcript's text);
 * - a tool that needs approval shows Approve / Reject: Approve runs it (output and answer shown), Reject shows the denial;
 * - an approval decided elsewhere (`run.decide`, as the CLI or the console does) updates the open page;
 * - a reload in the middle of a long answer continues it and ends with exactly the transcript's text;
 * - `kill -9` of the worker mid-answer: the page continues once a replacement worker is up, same text;
 * - a deploy (the worker restarted with a changed tool) mid-session: the next message uses the new tool;
 * - a second user opening the first user's chat URL sees nothing of it, and cannot send to it.
 *
 * `DURABLE_AGENT_CHROMIUM` names the browser (default: `chromium` on the PATH).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { AgentClient } from '../../src/client';
import type { AgentRun } from '../../src/client';
import type { AgentEvent } from '../../src/core/events/events';
import { chromiumMissing, chromiumPath } from '../helpers/chromium';
import type { ExampleEnv, ExampleProcess } from '../helpers/chat-example';
import { buildChatPage, chatWorkflowId, killProcess, startChatServer, startChatWorker, stopProcess } from '../helpers/chat-example';
import { describeNeeding } from '../helpers/component';
import { allEvents } from '../helpers/events';

const CHROMIUM = chromiumPath();
const missing = chromiumMissing(CHROMIUM);

const work = mkdtempSync(join(tmpdir(), 'durable-agent-chat-app-'));
let where: ExampleEnv;
let worker: ExampleProcess;
let server: ExampleProcess & { url: string };
let browser: Browser;
let client: AgentClient;
const contexts: BrowserContext[] = [];

/** The worker, started (again) as the tests need it. */
async function startWorker(deploy?: 2): Promise<ExampleProcess> {
  worker = await startChatWorker(where, {
    storeDir: join(work, 'store'),
    workflowBundle: inject('workflowBundlePath'),
    ...(deploy ? { deploy } : {}),
  });
  return worker;
}

/** A page of a new browser context, signed in as `user` through the example's sign-in, on chat `chatId`. */
async function openChat(user: 'alice' | 'bob', chatId: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(`${server.url}/login?user=${user}&next=${encodeURIComponent(`/?chat=${chatId}`)}`);
  await page.locator('.me', { hasText: `Signed in as ${user}` }).waitFor({ timeout: 30_000 });
  await page.locator('section.chat').waitFor({ timeout: 30_000 });
  return page;
}

async function send(page: Page, text: string): Promise<void> {
  await page.fill('input[name=message]', text);
  await page.click('button[type=submit]');
}

/** alice's new chat (`<prefix>-…`) asked for a long answer, once the page shows its first 60 characters streaming. */
async function longAnswerStreaming(prefix: string) {
  const chatId = `${prefix}-${randomUUID().slice(0, 8)}`;
  const page = await openChat('alice', chatId);
  const run = chatRun(chatId, 'alice');
  await send(page, 'Give me a long answer');
  await expect.poll(async () => ((await assistantTexts(page)).at(-1) ?? '').length, { timeout: 30_000, interval: 50 }).toBeGreaterThan(60);
  return { chatId, page, run };
}

/** The little of the DOM the page scripts read (the tests' tsconfig has no DOM types). */
interface El {
  textContent: string | null;
  querySelectorAll(selector: string): ArrayLike<El>;
}
interface Doc {
  querySelectorAll(selector: string): ArrayLike<El>;
  documentElement: El;
}

/** The text of each assistant message on the page (its text parts, joined). */
function assistantTexts(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const doc = (globalThis as unknown as { document: Doc }).document;
    return Array.from(doc.querySelectorAll('li.message.assistant')).map((m) =>
      Array.from(m.querySelectorAll('p.text'))
        .map((p) => p.textContent ?? '')
        .join(''),
    );
  });
}

/**
 * Record, in the page, every distinct text of the last assistant message as it changes (a MutationObserver):
 * what a person saw, state by state. Read it with {@link seenStates}.
 */
async function recordStates(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = globalThis as unknown as {
      document: Doc;
      __states: string[];
      MutationObserver: new (cb: () => void) => { observe(el: El, o: object): void };
    };
    w.__states = [];
    const last = () => {
      const all = w.document.querySelectorAll('li.message.assistant');
      const m = all[all.length - 1];
      return m
        ? Array.from(m.querySelectorAll('p.text'))
            .map((p) => p.textContent ?? '')
            .join('')
        : '';
    };
    new w.MutationObserver(() => {
      const t = last();
      if (t !== w.__states[w.__states.length - 1]) w.__states.push(t);
    }).observe(w.document.documentElement, { subtree: true, childList: true, characterData: true });
  });
}

function seenStates(page: Page): Promise<string[]> {
  return page.evaluate(() => (globalThis as unknown as { __states: string[] }).__states);
}

/** The run of `user`'s chat `chatId`. */
function chatRun(chatId: string, user: 'alice' | 'bob'): AgentRun {
  return client.get(chatWorkflowId(chatId, `user:${user}`));
}

/** The text the run recorded for turn `turn` (1-based): its steps' `text` events, in order. */
async function turnText(run: AgentRun, turn: number): Promise<string> {
  const events = await allEvents(run);
  let current = 0;
  const texts: string[] = [];
  for (const e of events) {
    if (e.type === 'user_message') current = e.turn;
    if (e.type === 'text' && current === turn) texts.push(e.text);
  }
  return texts.join('');
}

/** Wait until the run has recorded `type` (optionally matching `where`); returns that event. */
async function eventOf<T extends AgentEvent['type']>(
  run: AgentRun,
  type: T,
  match: (e: Extract<AgentEvent, { type: T }>) => boolean = () => true,
  timeoutMs = 30_000,
): Promise<Extract<AgentEvent, { type: T }>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const events: AgentEvent[] = await allEvents(run).catch(() => []);
    const found = events.find((e) => e.type === type && match(e as Extract<AgentEvent, { type: T }>)) as
      Extract<AgentEvent, { type: T }> | undefined;
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`the run recorded no ${type} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Wait until the last assistant message shows `text` exactly. */
async function lastAnswerIs(page: Page, text: string, timeoutMs = 60_000): Promise<void> {
  await expect.poll(async () => (await assistantTexts(page)).at(-1), { timeout: timeoutMs, interval: 100 }).toBe(text);
}

describeNeeding('the chat example in Chromium', 'Chromium', missing, () => {
  beforeAll(async () => {
    where = { temporalAddress: inject('temporalAddress'), taskQueue: `chat-app-${randomUUID()}` };
    const staticDir = join(work, 'page');
    const [, w, b, c] = await Promise.all([
      buildChatPage(staticDir),
      startWorker(),
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
      AgentClient.connect({ address: where.temporalAddress, taskQueue: where.taskQueue }),
    ]);
    worker = w;
    browser = b;
    client = c;
    server = await startChatServer(where, staticDir);
  }, 180_000);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    if (server) await stopProcess(server);
    if (worker) await stopProcess(worker);
    await client?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('streams the answer into the page, state by state, and ends with the transcript text', async () => {
    const chatId = `stream-${randomUUID().slice(0, 8)}`;
    const page = await openChat('alice', chatId);
    await recordStates(page);
    await send(page, 'Give me a long answer');
    const run = chatRun(chatId, 'alice');
    await eventOf(run, 'awaiting_message');
    const recorded = await turnText(run, 1);
    expect(recorded).toMatch(/^A durable agent keeps its conversation/);
    await lastAnswerIs(page, recorded);
    const states = (await seenStates(page)).filter((s) => s !== '');
    // Growing prefixes of the answer, many of them: it streamed.
    expect(states.length).toBeGreaterThan(5);
    for (const s of states) expect(recorded.startsWith(s), s).toBe(true);
    expect((await assistantTexts(page)).length).toBe(1);
  });

  it('shows Approve / Reject for a call that needs approval: Approve runs it and the run goes on; Reject shows the denial', async () => {
    const chatId = `approve-${randomUUID().slice(0, 8)}`;
    const page = await openChat('alice', chatId);
    const run = chatRun(chatId, 'alice');
    await send(page, 'Please clear the notes');
    const first = page.locator('.tool[data-tool=clear_notes]').nth(0);
    await first.locator('button.approve').waitFor({ timeout: 30_000 });
    expect(await first.locator('button.reject').isVisible()).toBe(true);
    expect(await first.locator('.tool-state').textContent()).toBe('approval-requested');
    await first.locator('button.approve').click();
    await first.locator('pre.tool-output').waitFor({ timeout: 30_000 });
    expect(JSON.parse((await first.locator('pre.tool-output').textContent()) ?? '')).toEqual({ removed: expect.any(Number) });
    expect(await eventOf(run, 'approval_decided')).toMatchObject({ decision: 'approve', by: 'user:alice' });
    await eventOf(run, 'awaiting_message', (e) => e.turn === 1);
    const answered = await turnText(run, 1);
    expect(answered).toContain('clear_notes says');
    await lastAnswerIs(page, answered);

    await send(page, 'Now clear the notes again');
    const second = page.locator('.tool[data-tool=clear_notes]').nth(1);
    await second.locator('button.reject').waitFor({ timeout: 30_000 });
    await second.locator('button.reject').click();
    await second.locator('.tool-denied').waitFor({ timeout: 30_000 });
    expect(await eventOf(run, 'approval_decided', (e) => e.decision === 'deny')).toMatchObject({ by: 'user:alice' });
    await eventOf(run, 'awaiting_message', (e) => e.turn === 2);
    const denied = await turnText(run, 2);
    expect(denied).toContain('Clearing the notes was not approved');
    await lastAnswerIs(page, denied);
    expect(await page.locator('li.message.user').count()).toBe(2);
  });

  it('updates the open page when the approval is decided elsewhere (run.decide, as the CLI and the console do)', async () => {
    const chatId = `elsewhere-${randomUUID().slice(0, 8)}`;
    const page = await openChat('alice', chatId);
    const run = chatRun(chatId, 'alice');
    await send(page, 'Clear the notes, please');
    const tool = page.locator('.tool[data-tool=clear_notes]');
    await tool.locator('button.approve').waitFor({ timeout: 30_000 });
    const asked = await eventOf(run, 'approval_requested');
    await run.decide({ callId: asked.callId, decision: 'approve', by: 'user:alice', reason: 'from the CLI' });
    await tool.locator('pre.tool-output').waitFor({ timeout: 30_000 });
    expect(await tool.locator('button.approve').count()).toBe(0);
    await eventOf(run, 'awaiting_message', (e) => e.turn === 1);
    await lastAnswerIs(page, await turnText(run, 1));
  });

  it('continues a long answer after a reload in its middle, with exactly the transcript text', async () => {
    const { page, run } = await longAnswerStreaming('reload');
    const reloadedAt = new Date();
    await page.reload();
    await page.locator('section.chat').waitFor({ timeout: 30_000 });
    await recordStates(page);
    await eventOf(run, 'awaiting_message', (e) => e.turn === 1, 60_000);
    const recorded = await turnText(run, 1);
    await lastAnswerIs(page, recorded);
    const text = await eventOf(run, 'text');
    expect(new Date(text.at).getTime(), 'the answer was still streaming when the page reloaded').toBeGreaterThan(reloadedAt.getTime());
    // After the reload the page went on streaming (some states short of the whole), each a prefix of the transcript text.
    const states = (await seenStates(page)).filter((s) => s !== '');
    expect(states.some((s) => s.length < recorded.length)).toBe(true);
    for (const s of states) expect(recorded.startsWith(s), s).toBe(true);
    expect(await assistantTexts(page)).toEqual([recorded]);
    expect(await page.locator('li.message.user').count()).toBe(1);
  });

  it('continues after kill -9 of the worker mid-answer once a replacement is up, with exactly the transcript text', async () => {
    const { page, run } = await longAnswerStreaming('kill');
    await killProcess(worker);
    const shownAtKill = (await assistantTexts(page)).at(-1) ?? '';
    await startWorker();
    await eventOf(run, 'awaiting_message', (e) => e.turn === 1, 90_000);
    const recorded = await turnText(run, 1);
    expect(shownAtKill.length).toBeLessThan(recorded.length);
    await lastAnswerIs(page, recorded);
    expect(await assistantTexts(page)).toEqual([recorded]);
    const retried = (await allEvents(run)).filter((e) => e.type === 'step_started' && e.attempt > 1);
    expect(retried.length, 'the model call ran again on the replacement worker').toBeGreaterThan(0);
  });

  it('goes on after a deploy mid-session: the next message uses the changed tool', async () => {
    const chatId = `deploy-${randomUUID().slice(0, 8)}`;
    const page = await openChat('alice', chatId);
    const run = chatRun(chatId, 'alice');
    await send(page, 'Count the words of this sentence');
    const before = page.locator('.tool[data-tool=word_count]').nth(0);
    await before.locator('pre.tool-output').waitFor({ timeout: 30_000 });
    expect(JSON.parse((await before.locator('pre.tool-output').textContent()) ?? '')).toEqual({ words: 6, characters: 32 });
    await eventOf(run, 'awaiting_message', (e) => e.turn === 1);
    await stopProcess(worker);
    await startWorker(2);
    await send(page, 'Count the words of this one too');
    const after = page.locator('.tool[data-tool=word_count]').nth(1);
    await after.locator('pre.tool-output').waitFor({ timeout: 30_000 });
    expect(await after.locator('pre.tool-output').textContent()).toBe('v2: 7 words, 31 characters');
    await eventOf(run, 'awaiting_message', (e) => e.turn === 2);
    const recorded = await turnText(run, 2);
    expect(recorded).toContain('word_count says v2: 7 words');
    await lastAnswerIs(page, recorded);
  });

  it("refuses a second user on the first user's chat URL: nothing of it shown, nothing sent to it", async () => {
    const chatId = `tenancy-${randomUUID().slice(0, 8)}`;
    const alice = await openChat('alice', chatId);
    const run = chatRun(chatId, 'alice');
    await send(alice, 'My secret is 4321');
    await eventOf(run, 'awaiting_message', (e) => e.turn === 1);
    await lastAnswerIs(alice, await turnText(run, 1));

    const bob = await openChat('bob', chatId);
    await bob.locator('.refused').waitFor({ timeout: 30_000 });
    expect(await bob.locator('body').textContent()).not.toContain('4321');
    expect(await bob.locator('li.message').count()).toBe(0);
    await send(bob, 'Let me in');
    await bob.locator('.send-error').waitFor({ timeout: 30_000 });
    expect(await bob.locator('body').textContent()).not.toContain('4321');
    const said = (await allEvents(run)).filter((e) => e.type === 'user_message');
    expect(said.map((e) => e.type === 'user_message' && e.text)).toEqual(['My secret is 4321']);
  });
});
