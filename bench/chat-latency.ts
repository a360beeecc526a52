/**
 * Benchmark, run by hand (not a test): a chat in the browser (the chat example, examples/chat, in headless
 * Chromium) over a durable session, measured from the model to the page's DOM.
 *
 *   npx tsx bench/chat-latency.ts [--turns 3] [--pieces 150] [--interval-ms 20] [--reloads 5] [--kills 3] [--redis URL | --no-redis]
 *
 * The worker runs the example's agent with the bench's model (test/fixtures/chat-example-worker.mts,
 * `CHAT_STAMPED`): every text delta is its own send time (`‹<epoch ms>› `), so the page, which records when each
 * one appears in its DOM (a MutationObserver installed before the app runs), gives each delta's latency from the
 * provider to the screen; the same clock (the machine's wall clock, sub-millisecond) on both sides.
 *
 * 1. Delta latency, provider → the DOM, through the chat handler, SSE and `useChat`, p50/p95, with the
 *    Temporal-native delta transport and with Redis Streams; the baseline, in the same run and on the same
 *    deltas: a Node reader of the same run's `run.stream()` in this process (the same delta transport), so
 *    the ratio is what the chat hop (handler, SSE, the browser, React) adds.
 * 2. A page refresh in the middle of an answer: time to the replayed text on screen and to the first live token
 *    (a delta sent after the refresh); the baseline: the same page's reload with no answer in progress.
 * 3. `kill -9` of the worker in the middle of an answer, a replacement started at once: time from the kill and from
 *    the replacement's `ready` to the first token on screen sent by the replacement.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { bundleWorkflowCode, DefaultLogger, Runtime } from '@temporalio/worker';
import { AgentClient } from '../src/client';
import { WORKFLOWS_PATH } from '../src/worker';
import { RedisDeltaFeed } from '../src/integrations/streaming/redis';
import { chromiumMissing, chromiumPath } from '../test/helpers/chromium';
import type { ExampleEnv, ExampleProcess } from '../test/helpers/chat-example';
import { buildChatPage, chatWorkflowId, killProcess, startChatServer, startChatWorker, stopProcess } from '../test/helpers/chat-example';
import { benchServer } from './environment';
import { intFlag } from './flags';
import { findRedisServer, startRedis } from './redis-server';
import { num, percentile, table } from './stats';

const USAGE = `Usage: npx tsx bench/chat-latency.ts [options]

  -t, --turns N         answers measured for delta latency, per transport (default 3)
  -p, --pieces K        deltas in each answer (default 150)
  -i, --interval-ms T   time between deltas (default 20)
  -r, --reloads R       page refreshes mid-answer (default 5; 0 skips)
  -k, --kills M         worker kill -9s mid-answer (default 3; 0 skips)
      --redis URL       Redis Streams on this server (default: start a redis-server if one is installed)
      --no-redis        the Temporal-native transport only
  -h, --help            show this help`;

interface Settings {
  turns: number;
  pieces: number;
  intervalMs: number;
  reloads: number;
  kills: number;
  redis: string;
}

function parseSettings(argv: string[]): Settings | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      turns: { type: 'string', short: 't', default: '3' },
      pieces: { type: 'string', short: 'p', default: '150' },
      'interval-ms': { type: 'string', short: 'i', default: '20' },
      reloads: { type: 'string', short: 'r', default: '5' },
      kills: { type: 'string', short: 'k', default: '3' },
      redis: { type: 'string' },
      'no-redis': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) return undefined;
  return {
    turns: intFlag('turns', values.turns, 1),
    pieces: intFlag('pieces', values.pieces, 10),
    intervalMs: intFlag('interval-ms', values['interval-ms'], 1),
    reloads: intFlag('reloads', values.reloads, 0),
    kills: intFlag('kills', values.kills, 0),
    redis: values['no-redis'] ? 'none' : (values.redis ?? 'start'),
  };
}

const epochNow = (): number => performance.timeOrigin + performance.now();
const STAMP = /‹(\d+\.\d)›/g;

/** The stamps in a text, in order. */
function stampsOf(text: string): number[] {
  return [...text.matchAll(STAMP)].map((m) => Number(m[1]));
}

/** One stamp as the page saw it first: its send time and when it appeared (epoch ms). */
interface Seen {
  stamp: number;
  at: number;
}

/**
 * Installed in every page before its scripts: records the first appearance of each stamp in an assistant
 * message's text (`window.__seen`).
 */
const OBSERVER = `(() => {
  const seen = new Set();
  window.__seen = [];
  const scan = () => {
    const at = performance.timeOrigin + performance.now();
    for (const p of document.querySelectorAll('li.message.assistant p.text')) {
      for (const m of (p.textContent || '').matchAll(/‹(\\d+\\.\\d)›/g)) {
        if (!seen.has(m[1])) { seen.add(m[1]); window.__seen.push({ stamp: Number(m[1]), at }); }
      }
    }
  };
  new MutationObserver(scan).observe(document, { subtree: true, childList: true, characterData: true });
})();`;

const seenIn = (page: Page): Promise<Seen[]> => page.evaluate(() => (globalThis as unknown as { __seen: Seen[] }).__seen);

/** Wait until `condition` holds (polling every 20 ms), or throw naming `what`. */
async function until(condition: () => Promise<boolean> | boolean, what: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const sorted = (v: readonly number[]) => [...v].sort((a, b) => a - b);
const p = (v: readonly number[], q: number) => percentile(sorted(v), q);
const row = (label: string, v: readonly number[]) => [
  label,
  num(v.length),
  num(p(v, 50), 1),
  num(p(v, 95), 1),
  num(sorted(v).at(-1) ?? NaN, 1),
];

/** Everything one transport's part of the bench needs. */
interface Stage {
  name: string;
  where: ExampleEnv;
  worker: ExampleProcess;
  server: ExampleProcess & { url: string };
  client: AgentClient;
}

async function main(): Promise<void> {
  const settings = parseSettings(process.argv.slice(2));
  if (!settings) return console.log(USAGE);
  const log = (line: string) => console.log(line);
  const browserPath = chromiumPath();
  const noBrowser = chromiumMissing(browserPath);
  if (noBrowser) throw new Error(noBrowser);
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
  });
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  const work = mkdtempSync(join(tmpdir(), 'durable-agent-chat-bench-'));
  cleanups.push(() => rmSync(work, { recursive: true, force: true }));
  try {
    const { address, server: serverNote } = await benchServer(log, cleanups);
    const bundle = join(work, 'workflow-bundle.js');
    const staticDir = join(work, 'page');
    const [built] = await Promise.all([
      buildChatPage(staticDir),
      bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: new DefaultLogger('ERROR') }).then((b) => writeFileSync(bundle, b.code)),
    ]);
    let redisUrl = settings.redis === 'none' || settings.redis === 'start' ? undefined : settings.redis;
    let redisNote = settings.redis === 'none' ? 'not measured (--no-redis)' : `${redisUrl} (--redis)`;
    if (settings.redis === 'start') {
      const bin = findRedisServer();
      if (bin) {
        const redis = await startRedis(bin, work);
        cleanups.push(() => redis.stop());
        redisUrl = redis.url;
        redisNote = `redis-server started here at ${redis.url}`;
      } else redisNote = 'not measured: no redis-server (set DURABLE_AGENT_REDIS_SERVER or pass --redis <url>)';
    }
    const browser: Browser = await chromium.launch({
      executablePath: browserPath!,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
    cleanups.push(() => browser.close());

    log(`server: ${serverNote}`);
    log(`redis: ${redisNote}`);
    log(`page built by Vite in ${num(built)} ms; Chromium: ${browser.version()}`);
    log(
      `each answer: ${settings.pieces} deltas, ${settings.intervalMs} ms apart (${num((settings.pieces * settings.intervalMs) / 1000, 1)} s); ` +
        `delta latency = when the page first shows a delta − when the model sent it (same wall clock)`,
    );

    const stamped = { pieces: settings.pieces, intervalMs: settings.intervalMs };
    const stages: Stage[] = [];
    const startStage = async (name: string, redis?: string): Promise<Stage> => {
      const where: ExampleEnv = {
        temporalAddress: address,
        taskQueue: `bench-chat-${randomUUID().slice(0, 8)}`,
        ...(redis ? { redisUrl: redis } : {}),
      };
      const [worker, server] = await Promise.all([
        startChatWorker(where, { storeDir: join(work, 'store'), workflowBundle: bundle, stamped }),
        startChatServer(where, staticDir),
      ]);
      const client = await AgentClient.connect({
        address,
        taskQueue: where.taskQueue,
        ...(redis ? { deltas: new RedisDeltaFeed({ url: redis }) } : {}),
      });
      const stage = { name, where, worker, server, client };
      cleanups.push(async () => {
        await stopProcess(stage.server);
        await stopProcess(stage.worker);
        await client.close();
      });
      stages.push(stage);
      return stage;
    };

    /** A page signed in as alice on a new chat, with the observer; its chat id. */
    const openChat = async (stage: Stage): Promise<{ page: Page; chatId: string }> => {
      const context = await browser.newContext();
      await context.addInitScript(OBSERVER);
      const page = await context.newPage();
      const chatId = `bench-${randomUUID().slice(0, 8)}`;
      await page.goto(`${stage.server.url}/login?user=alice&next=${encodeURIComponent(`/?chat=${chatId}`)}`);
      await page.locator('section.chat').waitFor({ timeout: 60_000 });
      return { page, chatId };
    };
    const send = async (page: Page, text: string) => {
      await page.fill('input[name=message]', text);
      await page.click('button[type=submit]');
    };
    /** Wait for the turn `turn` of the chat to be answered (the run's `awaiting_message`). */
    const answered = async (stage: Stage, chatId: string, turn: number) => {
      const run = stage.client.get(chatWorkflowId(chatId, 'user:alice'));
      await until(async () => {
        const page = await run.readEvents(0).catch(() => undefined);
        return !!page?.events.some((e) => e.type === 'awaiting_message' && e.turn === turn);
      }, `turn ${turn} of ${chatId}`);
    };

    // Part 1: delta latency, page and Node reader side by side on the same answers.
    log('');
    log('Part 1: delta latency, provider → the DOM (ms), against a Node reader of the same run (run.stream(), same transport)');
    const rows: string[][] = [['', 'deltas', 'p50', 'p95', 'max']];
    const ratios: string[] = [];
    const transports = [{ name: 'Temporal-native' }, ...(redisUrl ? [{ name: 'Redis Streams', redis: redisUrl }] : [])];
    for (const t of transports) {
      const stage = await startStage(t.name, t.redis);
      const { page, chatId } = await openChat(stage);
      const node: number[] = [];
      const dom: number[] = [];
      /** The same, for the second half of each answer (its start waits for the turn to be set up: its first durable events). */
      const nodeSteady: number[] = [];
      const domSteady: number[] = [];
      /** From the click on Send (the Node reader: from the same moment) to the answer's first delta. */
      const nodeFirst: number[] = [];
      const domFirst: number[] = [];
      for (let turn = 1; turn <= settings.turns; turn++) {
        const sent = epochNow();
        await send(page, `Answer ${turn}`);
        // The Node reader follows the same run from the turn's start.
        await until(
          async () =>
            (await stage.client
              .get(chatWorkflowId(chatId, 'user:alice'))
              .readEvents(0)
              .catch(() => undefined)) !== undefined,
          'the run',
        );
        const run = stage.client.get(chatWorkflowId(chatId, 'user:alice'));
        const stop = new AbortController();
        const reading = (async () => {
          let n = 0;
          for await (const e of run.stream({ signal: stop.signal })) {
            if (e.type !== 'delta' || e.delta.type !== 'text') continue;
            for (const s of stampsOf(e.delta.text)) {
              if (s < sent) continue;
              if (n === 0) nodeFirst.push(epochNow() - sent);
              node.push(epochNow() - s);
              if (n++ >= settings.pieces / 2) nodeSteady.push(epochNow() - s);
            }
          }
        })().catch(() => {});
        await answered(stage, chatId, turn);
        const ofTurn = async () => (await seenIn(page)).filter((s) => s.stamp > sent);
        await until(async () => (await ofTurn()).length >= settings.pieces, 'every delta on the page', 30_000).catch(() => {});
        stop.abort();
        await reading;
        const shown = (await ofTurn()).sort((a, b) => a.stamp - b.stamp);
        dom.push(...shown.map((s) => s.at - s.stamp));
        domSteady.push(...shown.slice(settings.pieces / 2).map((s) => s.at - s.stamp));
        if (shown[0]) domFirst.push(Math.min(...shown.map((s) => s.at)) - sent);
      }
      await page.context().close();
      rows.push(
        row(`${t.name}: the page (chat transport)`, dom),
        row(`${t.name}: Node run.stream() (baseline)`, node),
        row(`${t.name}: the page, second half of each answer`, domSteady),
        row(`${t.name}: Node, second half of each answer`, nodeSteady),
        row(`${t.name}: the page, Send → first token`, domFirst),
        row(`${t.name}: Node, Send → first delta`, nodeFirst),
      );
      ratios.push(
        `${t.name}: page / Node p50 ${num(p(dom, 50) / p(node, 50), 2)}×, p95 ${num(p(dom, 95) / p(node, 95), 2)}×; ` +
          `second half: p50 ${num(p(domSteady, 50) / p(nodeSteady, 50), 2)}×, p95 ${num(p(domSteady, 95) / p(nodeSteady, 95), 2)}×; ` +
          `first token p50 ${num(p(domFirst, 50) / p(nodeFirst, 50), 2)}×`,
      );
    }
    log(table(rows));
    for (const r of ratios) log(r);

    const stage = stages[0]!;
    // Part 2: refresh mid-answer.
    if (settings.reloads > 0) {
      log('');
      log(`Part 2: a page refresh mid-answer (${stage.name}), ms from page.reload()`);
      const { page, chatId } = await openChat(stage);
      const idle: number[] = [];
      const replayed: number[] = [];
      const live: number[] = [];
      for (let i = 1; i <= settings.reloads; i++) {
        // Baseline: the same page reloaded with no answer in progress, to the chat shown.
        let t0 = epochNow();
        await page.reload();
        await page.locator('section.chat').waitFor();
        idle.push(epochNow() - t0);
        const sent = epochNow();
        await send(page, `Refresh ${i}`);
        await until(async () => (await seenIn(page)).filter((s) => s.stamp > sent).length >= settings.pieces / 3, 'a third of the answer');
        t0 = epochNow();
        await page.reload();
        await until(async () => (await seenIn(page).catch(() => [])).some((s) => s.stamp > sent), 'the replayed text');
        replayed.push((await seenIn(page)).find((s) => s.stamp > sent)!.at - t0);
        await until(async () => (await seenIn(page)).some((s) => s.stamp > t0), 'a live token after the refresh');
        live.push((await seenIn(page)).find((s) => s.stamp > t0)!.at - t0);
        await answered(stage, chatId, i);
      }
      await page.context().close();
      log(
        table([
          ['', 'n', 'p50', 'p95', 'max'],
          row('reload, no answer in progress → chat shown (baseline)', idle),
          row('reload mid-answer → replayed text on screen', replayed),
          row('reload mid-answer → first live token on screen', live),
        ]),
      );
      log(
        `ratio to the baseline (p50): replayed text ${num(p(replayed, 50) / p(idle, 50), 2)}×, first live token ${num(p(live, 50) / p(idle, 50), 2)}×`,
      );
    }

    // Part 3: kill -9 mid-answer, a replacement at once.
    if (settings.kills > 0) {
      log('');
      log(`Part 3: kill -9 of the worker mid-answer, a replacement started at once (${stage.name}), ms`);
      const { page, chatId } = await openChat(stage);
      const up: number[] = [];
      const fromKill: number[] = [];
      const fromUp: number[] = [];
      for (let i = 1; i <= settings.kills; i++) {
        const sent = epochNow();
        await send(page, `Kill ${i}`);
        await until(async () => (await seenIn(page)).filter((s) => s.stamp > sent).length >= settings.pieces / 3, 'a third of the answer');
        await killProcess(stage.worker);
        const killed = epochNow();
        stage.worker = await startChatWorker(stage.where, { storeDir: join(work, 'store'), workflowBundle: bundle, stamped });
        const ready = epochNow();
        up.push(ready - killed);
        await until(async () => (await seenIn(page)).some((s) => s.stamp > killed), 'a token from the replacement');
        const first = (await seenIn(page)).find((s) => s.stamp > killed)!;
        fromKill.push(first.at - killed);
        fromUp.push(first.at - ready);
        await answered(stage, chatId, i);
      }
      await page.context().close();
      log(
        table([
          ['', 'n', 'p50', 'p95', 'max'],
          row('kill → replacement worker ready (its start)', up),
          row('kill → first token on screen', fromKill),
          row('replacement ready → first token on screen', fromUp),
        ]),
      );
    }
  } finally {
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => {});
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
