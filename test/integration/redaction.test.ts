/**
 * No secret the worker holds leaves an activity: a local server answers 401 and echoes the credential it
 * was sent (in the JSON body, a response header and the status text) to the Anthropic provider, the
 * OpenAI-compatible provider, AI SDK providers (`@ai-sdk/openai-compatible` with a key given as a string
 * and as an async function, `@ai-sdk/anthropic` with an async auth token) and an MCP server over
 * Streamable HTTP (at connection, and in a tool's error result). Each run on the real dev server ends
 * with the error, and the key is nowhere: not in the raw history, the result, events and report the
 * client shows (which `durable-agent serve` serves; `GET /runs/:id` asked too), the store's files, or the exported spans (content capture
 * off).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NativeConnection } from '@temporalio/worker';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../src/agents/define';
import type { AgentRun } from '../../src/client';
import type { LiveDelta } from '../../src/core/events/stream';
import { AgentClient } from '../../src/client';
import { readRunReport } from '../../src/client/run-report';
import type { HttpApi } from '../../apps/http/app';
import { createHttpApi } from '../../apps/http/app';
import { parseTokens } from '../../apps/http/auth';
import { mcpServer } from '../../src/integrations/mcp/server';
import { AnthropicProvider, OpenAIProvider } from '../../src/integrations/providers';
import { aiSdkProvider } from '../../src/integrations/providers/ai-sdk';
import { FileBlobStore } from '../../src/integrations/store/blob-store';
import type { AgentWorker } from '../../src/worker';
import { createWorker } from '../../src/worker';
import { allEvents, resultWithin } from '../helpers/events';
import { installTestRuntime, testId } from '../helpers/harness';
import { historyText } from '../helpers/history';
import { ScriptedAgents } from '../helpers/agents';
import { big } from '../helpers/tools';
import { aiSdk7 } from '../helpers/ai-sdk';

/** Distinctive credentials; only the Anthropic one has a common key shape (`sk-…`): the others are found because the worker knows them. */
const KEYS = {
  // Built, not written out: no key-shaped literal in the repository (a fake one, but scanners cannot tell).
  anthropic: ['sk', 'ant', 'test', 'SECRETanthropic0a1b2c3d4e'].join('-'),
  openai: 'SECRETopenai-5f6a7b8c9d0e1f2a',
  aisdk: 'SECRETaisdk-3b4c5d6e7f8a9b0c',
  /** Given to AI SDK packages as an async function: their headers are a promise. */
  aisdkAsync: 'SECRETaisdk-async-6d7e8f9a0b1c',
  aisdkToken: 'SECRETaisdk-token-2e3f4a5b6c7d',
  mcp: 'SECRETmcp-header-1c2d3e4f5a6b',
  mcpEnv: 'SECRETmcp-env-7d8e9f0a1b2c',
  /** Given to the worker's `secrets` option: a credential only a tool holds. */
  extra: 'SECRETextra-tool-4e5f6a7b8c9d',
};
const ALL_KEYS = Object.values(KEYS);

/** The credential a request carried: `x-api-key`, `Authorization: Bearer …` or the MCP server's header. */
function credential(req: IncomingMessage): string {
  const auth = String(req.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
  return String(req.headers['x-api-key'] ?? req.headers['x-test-token'] ?? auth);
}

/** 401 with the key in the status text, a header and the body (an API error both SDKs parse). */
function echoUnauthorized(res: ServerResponse, key: string): void {
  const body = JSON.stringify({
    type: 'error',
    error: { type: 'authentication_error', code: 'invalid_api_key', message: `Invalid API key: ${key} (Authorization: Bearer ${key})` },
  });
  res.writeHead(401, `Unauthorized ${key}`, {
    'content-type': 'application/json',
    'x-echoed-key': key,
    'www-authenticate': `Bearer realm="${key}"`,
  });
  res.end(body);
}

/** A minimal MCP server (Streamable HTTP, JSON answers): one tool that reports an error echoing the header it got. */
async function mcpAnswer(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'POST') {
    res.writeHead(405).end();
    return;
  }
  let raw = '';
  for await (const chunk of req) raw += String(chunk);
  const msg = JSON.parse(raw) as { id?: number; method: string; params?: { protocolVersion?: string } };
  if (msg.id === undefined) {
    res.writeHead(202).end();
    return;
  }
  const result =
    msg.method === 'initialize'
      ? {
          protocolVersion: msg.params?.protocolVersion ?? '2025-03-26',
          capabilities: { tools: {} },
          serverInfo: { name: 'vault', version: '1.0.0' },
        }
      : msg.method === 'tools/list'
        ? { tools: [{ name: 'whoami', description: 'Who the caller is', inputSchema: { type: 'object', properties: {} } }] }
        : { isError: true, content: [{ type: 'text', text: `token ${credential(req)} is not allowed here` }] };
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
}

let server: Server;
let url = '';
const exporter = new InMemorySpanExporter();
let connection: NativeConnection;
let worker: AgentWorker;
let running: Promise<void>;
let client: AgentClient;
/** `durable-agent serve`'s API over the same client (in process). */
let api: HttpApi;
const TOKEN = 'viewer-token-for-redaction-test';
const storeDir = mkdtempSync(join(tmpdir(), 'durable-agent-redact-'));
const S = new ScriptedAgents();
/** What the worker's delta publisher (Redis Streams, say) was handed. */
const published: LiveDelta[] = [];
/** Lets the `login` tool finish. */
let released = false;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url?.startsWith('/mcp-ok')) void mcpAnswer(req, res);
    else echoUnauthorized(res, credential(req));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const quick = { maximumAttempts: 2, initialInterval: '50ms', maximumInterval: '100ms' };
  const agents = [
    defineAgent({ name: 'redact_anthropic', model: { provider: 'anthropic-echo', model: 'claude-test' }, modelRetry: quick }),
    defineAgent({ name: 'redact_openai', model: { provider: 'openai-echo', model: 'gpt-test' }, modelRetry: quick }),
    defineAgent({ name: 'redact_aisdk', model: { provider: 'aisdk-echo', model: 'any-model' }, modelRetry: quick }),
    defineAgent({ name: 'redact_aisdk_async', model: { provider: 'aisdk-async-echo', model: 'any-model' }, modelRetry: quick }),
    defineAgent({ name: 'redact_aisdk_token', model: { provider: 'aisdk-token-echo', model: 'claude-test' }, modelRetry: quick }),
    // A stdio server that prints its secret environment to stderr and exits: the worker quotes its stderr.
    defineAgent({
      name: 'redact_mcp_stdio',
      model: { provider: 'scripted', model: 'never' },
      mcp: [
        mcpServer({
          name: 'leaky',
          command: process.execPath,
          args: ['-e', 'console.error("VAULT_TOKEN is " + process.env.VAULT_TOKEN); process.exit(3)'],
          env: { VAULT_TOKEN: KEYS.mcpEnv },
          connectTimeout: '5s',
        }),
      ],
    }),
    defineAgent({
      name: 'redact_mcp_401',
      model: { provider: 'scripted', model: 'never' },
      mcp: [mcpServer({ name: 'locked', url: `${url}/mcp`, headers: { 'X-Test-Token': KEYS.mcp }, connectTimeout: '5s' })],
    }),
  ];
  S.add('redact_mcp_tool', [{ toolCalls: [{ name: 'vault__whoami', args: {} }] }, { text: 'the vault said no' }], {
    tools: [],
    mcp: [mcpServer({ name: 'vault', url: `${url}/mcp-ok`, headers: { 'X-Test-Token': KEYS.mcp } })],
  });
  // A tool whose output (large: stored by reference) holds secrets, and a model that repeats one.
  const readConfig = defineTool({
    name: 'read_config',
    description: 'Reads the config',
    input: z.object({}),
    execute: () => `${'padding '.repeat(40_000)}\ntoken=${KEYS.extra} header=${KEYS.mcp}`,
  });
  // A tool that reports progress with a secret in its heartbeat details, until the test lets it finish.
  const login = defineTool({
    name: 'login',
    description: 'Logs in',
    input: z.object({}),
    execute: async (_args, ctx) => {
      while (!released) {
        ctx.heartbeat({ progress: `logging in with ${KEYS.extra}` });
        ctx.progress({ message: `checking ${KEYS.extra}`, data: { token: KEYS.extra } });
        await new Promise((r) => setTimeout(r, 100));
      }
      return 'logged in';
    },
  });
  // A model streaming an answer that repeats a secret (whole in its first piece), slowly.
  const streamed = `The key is ${KEYS.extra} `;
  S.add('redact_live', [{ text: `${streamed}${'.'.repeat(streamed.length)}`, stream: { chunks: 2, intervalMs: 1_500 } }], { tools: [] });
  S.add('redact_heartbeat', [{ toolCalls: [{ name: 'login', args: {} }] }, { text: 'done' }], { tools: [login] });
  // A long run whose context is compacted by a summariser that repeats a secret.
  S.add(
    'redact_summary',
    (_request, ctx) =>
      ctx.purpose === 'summary'
        ? { text: `Summary: the agent used ${KEYS.extra} and read pages.` }
        : ctx.step <= 14
          ? { toolCalls: [{ name: 'big', args: { kb: 2 } }] }
          : { text: 'read 14 pages' },
    {
      tools: [big],
      maxSteps: 20,
      context: { windowTokens: 6_000, keepRecentTokens: 1_500, keepToolResults: 0 },
    },
  );
  S.provider.setWindow('redact_summary', 6_000);
  S.add('redact_content', [{ toolCalls: [{ name: 'read_config', args: {} }] }, { text: `The config's token is ${KEYS.extra}.` }], {
    tools: [readConfig],
  });
  const { createAnthropic, createOpenAICompatible } = await aiSdk7();
  installTestRuntime();
  connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  const taskQueue = `redact-${randomUUID()}`;
  worker = await createWorker({
    agents: [...agents, ...S.agents],
    providers: {
      scripted: S.provider,
      'anthropic-echo': new AnthropicProvider({ apiKey: KEYS.anthropic, baseURL: `${url}/anthropic` }),
      'openai-echo': new OpenAIProvider({ apiKey: KEYS.openai, baseURL: `${url}/v1` }),
      'aisdk-echo': aiSdkProvider(createOpenAICompatible({ name: 'echo', baseURL: `${url}/v1`, apiKey: KEYS.aisdk })),
      'aisdk-async-echo': aiSdkProvider(
        createOpenAICompatible({ name: 'echo', baseURL: `${url}/v1`, apiKey: () => Promise.resolve(KEYS.aisdkAsync) }),
      ),
      'aisdk-token-echo': aiSdkProvider(
        createAnthropic({ baseURL: `${url}/anthropic`, authToken: () => Promise.resolve(KEYS.aisdkToken) }),
      ),
    },
    store: new FileBlobStore(storeDir),
    encryption: false,
    connection,
    taskQueue,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    tracing: { spanProcessor: new SimpleSpanProcessor(exporter) },
    secrets: [KEYS.extra],
    streaming: { publisher: { publish: (d) => void published.push(d), close: () => Promise.resolve() } },
  });
  running = worker.run();
  client = await AgentClient.connect({
    address: inject('temporalAddress'),
    namespace: 'default',
    taskQueue,
    encryption: false,
    deltas: false,
  });
  api = createHttpApi({ client, auth: parseTokens(JSON.stringify({ tokens: { [TOKEN]: { identity: 'dashboard' } } }), 'test tokens') });
}, 60_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await client?.close();
  await connection?.close();
  await new Promise((r) => server?.close(r));
});

/** The store's files. */
function storeFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => join(dir, f))
    .filter((p) => statSync(p).isFile());
}

/** The store's files not in `before`, as text. */
function newStoreText(before: ReadonlySet<string>): string {
  return storeFiles(storeDir)
    .filter((p) => !before.has(p))
    .map((p) => readFileSync(p, 'utf8'))
    .join('\n');
}

/** What the exporter holds: names, attributes, status and events (exceptions with their stack traces) of every span. */
function spansText(): string {
  return exporter
    .getFinishedSpans()
    .map((s) => JSON.stringify({ name: s.name, attributes: s.attributes, status: s.status, events: s.events }))
    .join('\n');
}

/** The keys found in `text`, in any of their plain forms. */
function leaked(text: string): string[] {
  return ALL_KEYS.filter(
    (k) => text.includes(k) || text.includes(encodeURIComponent(k)) || text.includes(Buffer.from(k).toString('base64')),
  );
}

/** The heartbeat details of a run's pending activities as Temporal keeps them, once they match `until` (polls up to 10 s). */
async function pendingDetails(run: AgentRun, until: RegExp): Promise<string> {
  let details = '';
  for (let i = 0; i < 100 && !until.test(details); i++) {
    if (i) await new Promise((r) => setTimeout(r, 100));
    const pending = (await run.handle.describe()).raw.pendingActivities ?? [];
    details = pending
      .flatMap((a) => a.heartbeatDetails?.payloads ?? [])
      .map((p) => Buffer.from(p.data ?? new Uint8Array()).toString('utf8'))
      .join('\n');
  }
  return details;
}

describe('secrets are redacted before anything leaves an activity', () => {
  it.each([
    ['redact_anthropic', 'the Anthropic provider', 'provider_error', /Invalid API key: \[REDACTED\]/],
    ['redact_openai', 'the OpenAI-compatible provider', 'provider_error', /Invalid API key: \[REDACTED\]/],
    ['redact_aisdk', 'an AI SDK provider', 'provider_error', /Invalid API key: \[REDACTED\]/],
    ['redact_aisdk_async', 'an AI SDK provider whose key is an async function', 'provider_error', /Invalid API key: \[REDACTED\]/],
    ['redact_aisdk_token', '@ai-sdk/anthropic with an async auth token', 'provider_error', /Invalid API key: \[REDACTED\]/],
    ['redact_mcp_stdio', 'an MCP server over stdio printing its env to stderr', 'internal_error', /VAULT_TOKEN is \[REDACTED\]/],
    ['redact_mcp_401', 'an MCP server over HTTP refusing the connection', 'internal_error', /answered HTTP 401/],
    ['redact_mcp_tool', 'an MCP tool whose error echoes the header', 'success', /token \[REDACTED\] is not allowed here/],
    ['redact_summary', 'a compaction summary holding a secret', 'success', /"type":"compacted"/],
    ['redact_content', 'a large tool output and a model answer holding secrets', 'success', /The config's token is \[REDACTED\]\./],
  ])('%s (%s): the error is told, the key is nowhere', async (agent, _label, status, told) => {
    exporter.reset();
    const before = new Set(storeFiles(storeDir));
    const run = await client.start(agent, { input: 'hello', workflowId: testId(agent) });
    const result = await resultWithin(run);
    expect(result.status).toBe(status);
    // What `GET /runs/:id` serves (its server-sent events are the client's events, read below).
    const served = await (await api.app.request(`/runs/${run.workflowId}`, { headers: { Authorization: `Bearer ${TOKEN}` } })).text();
    expect(served).toContain(`"status":"${status}"`);
    const shown = JSON.stringify({ result, events: await allEvents(run), report: await readRunReport(run), served });
    // The error is still told (the key replaced), so people see what went wrong.
    expect(shown).toMatch(told);
    expect(leaked(shown)).toEqual([]);
    expect(leaked(await historyText(run.handle))).toEqual([]);
    expect(leaked(newStoreText(before))).toEqual([]);
    expect(exporter.getFinishedSpans().length).toBeGreaterThan(0);
    expect(leaked(spansText())).toEqual([]);
  });

  it("a tool's heartbeat details and progress (what Temporal keeps of a running call, and records if it times out) hold no known secret", async () => {
    const run = await client.start('redact_heartbeat', { input: 'log in', workflowId: testId('redact-heartbeat') });
    const details = await pendingDetails(run, /logging in[\s\S]*checking|checking[\s\S]*logging in/);
    released = true;
    expect(details).toContain(`logging in with [REDACTED]`);
    // Its progress (ctx.progress) rides in the same details, and goes to the delta publisher: redacted too.
    expect(details).toContain(`checking [REDACTED]`);
    expect(leaked(details)).toEqual([]);
    const result = await resultWithin(run);
    expect(result.status).toBe('success');
    const handed = JSON.stringify(published.filter((d) => d.workflowId === run.workflowId));
    expect(handed).toContain('checking [REDACTED]');
    expect(leaked(handed)).toEqual([]);
    expect(result.report.toolCalls[0]?.lastProgress).toEqual({ message: 'checking [REDACTED]', data: { token: '[REDACTED]' } });
  });

  it("a model call's live deltas (in its heartbeat details, read by run.stream(), and handed to a delta publisher) hold no known secret", async () => {
    const run = await client.start('redact_live', { input: 'the key?', workflowId: testId('redact-live') });
    const details = await pendingDetails(run, /The key is/);
    expect(details).toContain('The key is [REDACTED]');
    expect(leaked(details)).toEqual([]);
    expect((await resultWithin(run)).finalText).toMatch(/^The key is \[REDACTED\] /);
    const handed = JSON.stringify(published.filter((d) => d.workflowId === run.workflowId));
    expect(handed).toContain('The key is [REDACTED]');
    expect(leaked(handed)).toEqual([]);
  });
});
