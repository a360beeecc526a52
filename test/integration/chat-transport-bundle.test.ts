/**
 * `durable-agent/chat-transport` as a browser app gets it: the package built (`tsc -p tsconfig.build.json`,
 * CommonJS) into an app's node_modules, bundled by Vite, run in a real headless Chromium against the chat
 * handler on the real dev server: the page sends a message with `DurableChatTransport` and shows the streamed
 * answer. Proves the CommonJS build bundles for the browser (no Node builtins, no Temporal) and works there.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import type { Browser } from 'playwright-core';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createChatHandler } from '../../src/client/chat/handler';
import { ScriptedAgents } from '../helpers/agents';
import { lastUserText } from '../helpers/chat';
import { chromiumMissing, chromiumPath } from '../helpers/chromium';
import { describeNeeding } from '../helpers/component';
import type { Harness } from '../helpers/harness';
import { startHarness } from '../helpers/harness';

const exec = promisify(execFile);
const ROOT = resolve(__dirname, '..', '..');
const CHROMIUM = chromiumPath();

const S = new ScriptedAgents();
S.add(
  'bundled_chat',
  (request) => ({ text: `Bundled and streamed: ${lastUserText(request.messages)}`, stream: { chunks: 6, intervalMs: 30 } }),
  {
    tools: [],
  },
);

const MAIN = `
import { DurableChatTransport } from 'durable-agent/chat-transport';
const transport = new DurableChatTransport({ headers: { 'x-user': 'user:page' } });
const out = document.getElementById('out');
(async () => {
  const stream = await transport.sendMessages({
    chatId: 'page-chat', trigger: 'submit-message', messageId: undefined, abortSignal: undefined,
    messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'hello from the page' }] }],
  });
  const reader = stream.getReader();
  let text = '';
  const types = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    types.push(value.type);
    if (value.type === 'text-delta') text += value.delta;
    out.textContent = text;
  }
  document.body.dataset.done = types.at(-1);
})().catch((err) => { document.body.dataset.error = String(err); });
`;

describeNeeding('the chat transport bundled by Vite, in Chromium', 'Chromium', chromiumMissing(CHROMIUM), () => {
  const dir = mkdtempSync(join(tmpdir(), 'durable-agent-chat-app-'));
  let h: Harness;
  let browser: Browser;
  let server: ServerType;
  let origin: string;

  beforeAll(async () => {
    const pkg = join(dir, 'node_modules', 'durable-agent');
    mkdirSync(pkg, { recursive: true });
    copyFileSync(join(ROOT, 'package.json'), join(pkg, 'package.json'));
    mkdirSync(join(dir, 'src'));
    writeFileSync(
      join(dir, 'index.html'),
      '<!doctype html><html><body><p id="out"></p><script type="module" src="/src/main.js"></script></body></html>',
    );
    writeFileSync(join(dir, 'src', 'main.js'), MAIN);
    [h, browser] = await Promise.all([
      startHarness({ agents: S.agents, providers: { scripted: S.provider } }),
      chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] }),
      exec(
        process.execPath,
        [require.resolve('typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(pkg, 'dist')],
        {
          cwd: ROOT,
          timeout: 240_000,
        },
      ),
    ]);
    const { build } = await import('vite');
    await build({ root: dir, logLevel: 'silent', configFile: false, build: { outDir: join(dir, 'out'), minify: false } });
    const chat = createChatHandler({
      client: h.client,
      agent: 'bundled_chat',
      identify: (req) => ({ identity: req.headers.get('x-user') ?? 'anonymous' }),
      onError: () => undefined,
    });
    const app = new Hono();
    app.post('/api/chat', (c) => chat(c.req.raw));
    app.get('/api/chat/*', (c) => chat(c.req.raw));
    app.get('*', (c) => {
      const path = join(dir, 'out', c.req.path === '/' ? 'index.html' : c.req.path);
      if (!path.startsWith(join(dir, 'out')) || !existsSync(path)) return c.notFound();
      const type = extname(path) === '.js' ? 'text/javascript' : 'text/html';
      return c.body(readFileSync(path, 'utf8'), 200, { 'content-type': type });
    });
    server = await new Promise<ServerType>((ok) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => ok(s));
    });
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((ok) => (server ? server.close(() => ok()) : ok()));
    await h?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('bundles the CommonJS build without Node or Temporal code, and streams an answer into the page', async () => {
    const bundle = readFileSync(join(dir, 'out', 'assets', readdirSync(join(dir, 'out', 'assets'))[0]!), 'utf8');
    expect(bundle).toContain('DurableChatTransport');
    expect(bundle).not.toMatch(/@temporalio|node:(fs|crypto|net)/);
    const page = await browser.newPage();
    try {
      await page.goto(origin);
      await page.waitForFunction('document.body.dataset.done || document.body.dataset.error', undefined, { timeout: 30_000 });
      expect(await page.evaluate('document.body.dataset.error')).toBeUndefined();
      expect(await page.evaluate('document.body.dataset.done')).toBe('finish');
      expect(await page.textContent('#out')).toBe('Bundled and streamed: hello from the page');
    } finally {
      await page.close();
    }
  });
});
