/**
 * Optional peer dependencies: a part whose package is not installed fails with one error naming the
 * package and the install command. The loader is tested with a package that exists nowhere; each kind of
 * part (model providers, stores, Redis, tracing, MCP, the worker, the CLI) in a copy of the sources whose
 * `node_modules` holds only the base dependencies (test/helpers/peerless-package.ts), through the same
 * code a worker or the CLI runs, and the client entry is shown to load there without `@temporalio/worker`.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DurableAgentError } from '../../src/core/run/errors';
import { loadPeer, MissingPeerError } from '../../src/integrations/optional-peer';
import type { PeerlessPackage } from '../helpers/peerless-package';
import { peerlessPackage } from '../helpers/peerless-package';

describe('loadPeer', () => {
  it('throws MissingPeerError naming the package and the command when it is not installed', () => {
    const peer = { feature: 'durable-agent/nothing', packageName: '@durable-agent-test/not-installed' };
    let thrown: unknown;
    try {
      loadPeer(peer);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(MissingPeerError);
    expect(thrown).toBeInstanceOf(DurableAgentError);
    const err = thrown as MissingPeerError;
    expect(err.code).toBe('missing_peer');
    expect(err.packageName).toBe('@durable-agent-test/not-installed');
    expect(err.message).toBe(
      'durable-agent/nothing needs the package @durable-agent-test/not-installed: npm install @durable-agent-test/not-installed',
    );
  });

  it('loads an installed package, and passes on other failures (a module the package does not export) as they are', () => {
    expect(loadPeer<{ z: { string: unknown } }>({ feature: 'x', packageName: 'zod' }).z.string).toBeTypeOf('function');
    expect(() => loadPeer({ feature: 'x', packageName: 'zod' }, 'zod/no-such-module')).toThrow(
      expect.objectContaining({ code: 'ERR_PACKAGE_PATH_NOT_EXPORTED' }),
    );
  });
});

/** What a probe in the peerless package threw: the error's name, code and message, or `no error`. */
type Outcome = { name: string; code?: string; message: string } | 'no error';

describe('a package installed without its optional peers', () => {
  let pkg: PeerlessPackage;
  let outcomes: Record<string, Outcome>;

  beforeAll(async () => {
    pkg = peerlessPackage();
    const src = (p: string) => JSON.stringify(join(pkg.root, 'src', p));
    // Each probe is what a program does to use the part: make it, call it once.
    const script = `
      const outcomes = {};
      async function probe(name, fn) {
        try { await fn(); outcomes[name] = 'no error'; }
        catch (err) { outcomes[name] = { name: err.name, code: err.code, message: err.message }; }
      }
      const request = { model: 'm', system: 's', tools: [], maxTokens: 16, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] };
      const ctx = { signal: new AbortController().signal, heartbeat() {}, attempt: 1, step: 1 };
      const noopProcessor = { onStart() {}, onEnd() {}, forceFlush: async () => {}, shutdown: async () => {} };
      (async () => {
        await probe('root entry', () => require(${src('entry/index.ts')}));
        await probe('client entry', () => require(${src('entry/client.ts')}));
        await probe('workflow entry', () => require(${src('entry/workflow.ts')}));
        await probe('worker entry', () => require(${src('entry/worker.ts')}));
        await probe('anthropic', () => new (require(${src('entry/anthropic.ts')}).AnthropicProvider)({ apiKey: 'k' }).generate(request, ctx));
        await probe('openai', () => new (require(${src('entry/openai.ts')}).OpenAIProvider)({ apiKey: 'k' }).generate(request, ctx));
        await probe('built-in provider', () => require(${src('integrations/providers/index.ts')}).defaultProviders().anthropic.generate(request, ctx));
        await probe('ai-sdk', () => require(${src('integrations/providers/ai-sdk-errors.ts')}).classifyAiSdkError(new Error('x'), 'p'));
        await probe('postgres store URL', () => require(${src('integrations/store/open.ts')}).openStore('postgres://u:p@localhost:5432/db'));
        await probe('s3 store URL', () => require(${src('integrations/store/open.ts')}).openStore('s3://bucket/prefix'));
        await probe('redis publisher', () => new (require(${src('entry/redis.ts')}).RedisDeltaPublisher)({ url: 'redis://localhost:6379' }));
        await probe('redis feed', () => new (require(${src('entry/redis.ts')}).RedisDeltaFeed)({ url: 'redis://localhost:6379' }));
        await probe('tracing', () => require(${src('integrations/telemetry/tracing.ts')}).tracingFrom({ spanProcessor: noopProcessor }));
        await probe('client tracing', () => require(${src('integrations/telemetry/client-tracing.ts')}).tracingClientInterceptors({ spanProcessor: noopProcessor }));
        await probe('tracing from env', () => require(${src('entry/otel.ts')}).tracingFromEnv());
        await probe('mcp', () => new (require(${src('integrations/mcp/client-pool.ts')}).McpClientPool)().connection(require(${src('entry/mcp.ts')}).mcpServer({ name: 'fs', command: 'true' })).client());
        process.stdout.write(JSON.stringify(outcomes));
      })();
    `;
    const { stdout, stderr, code } = await pkg.run(script, {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318',
      OTEL_SDK_DISABLED: '',
      OTEL_TRACES_EXPORTER: '',
      ANTHROPIC_API_KEY: 'k',
    });
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    outcomes = JSON.parse(stdout) as Record<string, Outcome>;
  }, 120_000);

  afterAll(() => pkg?.remove());

  const missing = (feature: string, packageName: string): Outcome => ({
    name: 'MissingPeerError',
    code: 'missing_peer',
    message: `${feature} needs the package ${packageName}: npm install ${packageName}`,
  });

  it('the root, client and workflow entries load without any optional peer (no @temporalio/worker)', () => {
    expect(outcomes['root entry']).toBe('no error');
    expect(outcomes['client entry']).toBe('no error');
    expect(outcomes['workflow entry']).toBe('no error');
  });

  it('the worker entry names @temporalio/worker', () => {
    expect(outcomes['worker entry']).toEqual(missing('durable-agent/worker', '@temporalio/worker'));
  });

  it('model providers name their SDK, also when an agent names a built-in provider', () => {
    expect(outcomes.anthropic).toEqual(missing('durable-agent/anthropic', '@anthropic-ai/sdk'));
    expect(outcomes.openai).toEqual(missing('durable-agent/openai', 'openai'));
    expect(outcomes['built-in provider']).toEqual(missing('durable-agent/anthropic', '@anthropic-ai/sdk'));
    expect(outcomes['ai-sdk']).toEqual(missing('durable-agent/ai-sdk', '@ai-sdk/provider'));
  });

  it('stores given by URL (DURABLE_AGENT_STORE) name their client package', () => {
    expect(outcomes['postgres store URL']).toEqual(missing('durable-agent/postgres', 'pg'));
    expect(outcomes['s3 store URL']).toEqual(missing('durable-agent/s3', '@aws-sdk/client-s3'));
  });

  it('Redis live deltas name ioredis when made', () => {
    expect(outcomes['redis publisher']).toEqual(missing('durable-agent/redis', 'ioredis'));
    expect(outcomes['redis feed']).toEqual(missing('durable-agent/redis', 'ioredis'));
  });

  it('tracing names the OpenTelemetry package it needs', () => {
    expect(outcomes.tracing).toEqual(missing('durable-agent/otel (tracing)', '@opentelemetry/sdk-trace-node'));
    expect(outcomes['client tracing']).toEqual(missing('durable-agent/otel (tracing)', '@temporalio/interceptors-opentelemetry'));
    expect(outcomes['tracing from env']).toEqual(missing('durable-agent/otel (OTLP export)', '@opentelemetry/exporter-trace-otlp-http'));
  });

  it('MCP names the MCP SDK when a worker first connects to a server', () => {
    expect(outcomes.mcp).toEqual(missing('durable-agent/mcp', '@modelcontextprotocol/sdk'));
  });

  it('the CLI prints one line naming its missing packages and exits 1', async () => {
    const { stdout, stderr, code } = await pkg.node('apps/cli/bin/durable-agent.js', ['--help']);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      'error: the durable-agent CLI needs the packages commander, ora, hono, @hono/node-server, @temporalio/worker, @temporalio/testing: npm install commander ora hono @hono/node-server @temporalio/worker @temporalio/testing\n',
    );
  });
});
