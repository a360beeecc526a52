/**
 * What a command needs to talk to Temporal: a client, and, when nothing else provides them, an
 * embedded dev server and an in-process worker hosting the demo agents. The session stops what it
 * started.
 */
import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { AgentClient } from '../../src/entry/client';
import { EncryptionCodec } from '../../src/entry/client';
import { resolveKeyring } from '../../src/entry/client';
import type { AgentWorker } from '../../src/entry/worker';
import { CliError, errorMessage } from './errors';
import type { StartedWorker } from './hosting';
import { livePollers } from './pollers';
import { isReachable } from './dev-server/reachable';
import { repeatEvery } from './repeat';
import type { ServedAgents } from './served';
import { demoAgents } from './served';
import { serverDbFile, serverLogFile, startEmbeddedServer } from './dev-server/embedded-server';
import type { Target } from './target';
import type * as HostingModule from './hosting';
import type { TracingOptions } from '../../src/entry/otel';
// These load their packages (OpenTelemetry, ioredis) through the optional-peer loader when first used.
import { tracingClientInterceptors, tracingFrom } from '../../src/entry/otel';
import { RedisDeltaFeed, RedisDeltaPublisher, redactRedisUrl, redisUnreachable } from '../../src/entry/redis';

/** When a session may start the embedded dev server. */
export type EmbedPolicy =
  /** Whenever nothing is reachable and the address was not given explicitly. */
  | 'auto'
  /** Only when its SQLite file exists (there are runs to look at). */
  | 'if-state'
  /** Whenever nothing is reachable at a local address, explicit or not (`dev`). */
  | 'always'
  /** Never (`worker`: a worker only, for a server that runs elsewhere). */
  | 'never';

/** Options of {@link Session.open}. */
export interface SessionOptions {
  embed: EmbedPolicy;
  /** Serve the Temporal UI on this port when starting the embedded server. */
  uiPort?: number;
  /** Progress lines for the user. */
  log: (line: string) => void;
  /** The agents a hosted worker serves. Default: the demo agents. */
  agents?: ServedAgents;
  /** OpenTelemetry tracing of the client and the hosted worker (`durable-agent/otel` `tracingFromEnv`); flushed by {@link Session.close}. */
  tracing?: TracingOptions;
}

/** The client interceptors of `tracing` (loaded only when tracing). */
function tracingInterceptors(tracing: TracingOptions | undefined): {
  interceptors?: { workflow: ReturnType<typeof tracingClientInterceptors> };
} {
  if (!tracing) return {};
  return { interceptors: { workflow: tracingClientInterceptors(tracing) } };
}

/** A path for display: relative to the working directory when inside it. */
export function displayPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith('..') ? rel : path;
}

interface HostedWorker extends StartedWorker {
  running: Promise<void>;
}

/** A connection to Temporal plus whatever the CLI had to start. */
export class Session {
  private hosted: HostedWorker | undefined;
  private workerFailure: unknown;
  /** Where the hosted worker publishes live deltas, with `--redis-url` (closed after it stops). */
  private publisher: RedisDeltaPublisher | undefined;
  /** Where clients read live deltas, with `--redis-url`. */
  private feed: RedisDeltaFeed | undefined;
  /** The check that Redis answers, started with the feed (awaited on close, so its warning is printed). */
  private redisCheck: Promise<void> | undefined;

  private constructor(
    readonly target: Target,
    /** Address actually connected to. */
    readonly address: string,
    readonly temporal: Client,
    private readonly connection: Connection | undefined,
    /** The embedded server, when this session started it. */
    readonly server: TestWorkflowEnvironment | undefined,
    /** The agents this session's worker serves (when it hosts one). */
    readonly agents: ServedAgents,
    private readonly tracing: TracingOptions | undefined,
    private readonly log: (line: string) => void,
  ) {}

  /** Connect to the target, starting the embedded dev server if the policy allows and nothing is there. */
  static async open(target: Target, options: SessionOptions): Promise<Session> {
    const agents = options.agents ?? demoAgents();
    // Payloads encrypted with DURABLE_AGENT_KEYS (the hosted worker reads the same variable).
    let dataConverter: { payloadCodecs: EncryptionCodec[] };
    try {
      dataConverter = { payloadCodecs: [new EncryptionCodec(resolveKeyring(undefined))] };
    } catch (err) {
      throw new CliError(errorMessage(err));
    }
    if (await isReachable(target.address)) {
      let connection: Connection;
      try {
        connection = await Connection.connect({ address: target.address, connectTimeout: 5000 });
      } catch (err) {
        throw new CliError(`cannot reach Temporal at ${target.address}: ${errorMessage(err)}`);
      }
      return new Session(
        target,
        target.address,
        new Client({
          connection,
          ...(target.namespace ? { namespace: target.namespace } : {}),
          dataConverter,
          ...tracingInterceptors(options.tracing),
        }),
        connection,
        undefined,
        agents,
        options.tracing,
        options.log,
      );
    }
    const canEmbed =
      options.embed === 'never'
        ? false
        : options.embed === 'always'
          ? target.serverIp !== undefined
          : !target.explicit && (options.embed === 'auto' || existsSync(serverDbFile()));
    if (!canEmbed) {
      const hint = target.explicit && options.embed !== 'never' ? '' : ' (start one with: durable-agent dev)';
      throw new CliError(`cannot reach Temporal at ${target.address}${hint}`);
    }
    options.log(`starting the embedded Temporal dev server on port ${target.serverPort} (state: ${displayPath(serverDbFile())})...`);
    let server: TestWorkflowEnvironment;
    try {
      server = await startEmbeddedServer({
        ip: target.serverIp as string,
        port: target.serverPort,
        ...(target.namespace ? { namespace: target.namespace } : {}),
        ...(options.uiPort !== undefined ? { uiPort: options.uiPort } : {}),
        log: options.log,
      });
    } catch (err) {
      throw new CliError(
        `could not start the Temporal dev server on port ${target.serverPort}: ${errorMessage(err)} (see ${displayPath(serverLogFile())})`,
      );
    }
    const client = new Client({
      connection: server.connection,
      ...(server.namespace ? { namespace: server.namespace } : {}),
      dataConverter,
      ...tracingInterceptors(options.tracing),
    });
    return new Session(target, server.address, client, undefined, server, agents, options.tracing, options.log);
  }

  /** True when this session hosts a worker. */
  get hostsWorker(): boolean {
    return this.hosted !== undefined;
  }

  /**
   * A client for runs on `taskQueue` (default `--task-queue`; without it, each run on its agent's own
   * queue); its runs' live deltas come from Redis with `--redis-url`.
   */
  agentClient(taskQueue: string | undefined = this.target.taskQueue): AgentClient {
    const url = this.target.redisUrl;
    if (url && !this.feed) {
      this.feed = new RedisDeltaFeed({ url });
      // The feed waits through outages in silence: say once, at start, that this one may never end.
      this.redisCheck = redisUnreachable(url).then((why) => {
        if (why)
          this.log(
            `warning: Redis at ${redactRedisUrl(url)} does not answer (${why}): live deltas will be missing until it does; runs and their durable events do not depend on it`,
          );
      });
    }
    return new AgentClient(this.temporal, taskQueue, this.feed ? { deltas: this.feed } : {});
  }

  /** Whether a live worker (other than ghosts of exited local processes) polls `taskQueue`. */
  async hasWorker(taskQueue: string): Promise<boolean> {
    return (await livePollers(this.temporal, taskQueue)).length > 0;
  }

  /**
   * Start an in-process worker with the served agents on the target's task queue (`--task-queue`); without
   * one, on each served agent's own queue (`durable-agent.<agent>`).
   */
  async hostWorker(): Promise<AgentWorker> {
    const taskQueue = this.target.taskQueue;
    if (this.hosted) return this.hosted.worker;
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the worker runtime loads only when a worker is hosted
    const { startWorker } = require('./hosting') as typeof HostingModule;
    const url = this.target.redisUrl;
    if (url) this.publisher ??= new RedisDeltaPublisher({ url, log: this.log });
    const started = await startWorker({
      agents: this.agents,
      ...(taskQueue !== undefined ? { taskQueue } : {}),
      address: this.address,
      ...(this.target.namespace ? { namespace: this.target.namespace } : {}),
      ...(this.server ? { connection: this.server.nativeConnection } : {}),
      ...(this.tracing ? { tracing: this.tracing } : {}),
      ...(this.publisher ? { publisher: this.publisher } : {}),
    });
    const running = started.worker.run().catch((err: unknown) => {
      this.workerFailure = err;
    });
    this.hosted = { ...started, running };
    return started.worker;
  }

  /** Host a worker ({@link hostWorker}) unless a live one polls `taskQueue`. Returns true when this session hosts it. */
  async ensureWorker(taskQueue: string): Promise<boolean> {
    if (this.hosted) return true;
    if (await this.hasWorker(taskQueue)) return false;
    await this.hostWorker();
    return true;
  }

  /** Resolves when the hosted worker stops (never, without one). */
  workerStopped(): Promise<void> {
    return this.hosted ? this.hosted.running : new Promise<void>(() => undefined);
  }

  /** Throws if the hosted worker stopped with an error. */
  checkWorker(): void {
    if (this.workerFailure !== undefined) throw new CliError(`the in-process worker failed: ${errorMessage(this.workerFailure)}`);
  }

  /**
   * While `signal` is not aborted, check every `intervalMs` that some worker still polls `taskQueue`,
   * and host one if the worker that was there went away.
   */
  async watchWorker(taskQueue: string, signal: AbortSignal, onHosted: () => void, intervalMs = 5000): Promise<void> {
    await repeatEvery(intervalMs, signal, async () => {
      try {
        if (await this.ensureWorker(taskQueue)) onHosted();
      } catch {
        // the next round tries again
      }
      return this.hosted !== undefined;
    });
  }

  /**
   * Stop the hosted worker (waiting for it to finish cleanly), flush the last spans when tracing, close
   * connections, stop the embedded server. Best effort: a step that fails (say, the server already exited) does not stop the next.
   */
  async close(): Promise<void> {
    await this.redisCheck;
    const hosted = this.hosted;
    this.hosted = undefined;
    const quietly = async (step: () => Promise<unknown> | unknown) => {
      try {
        await step();
      } catch {
        // keep cleaning up
      }
    };
    if (hosted) {
      await quietly(() => hosted.worker.shutdown());
      await hosted.running;
      await quietly(() => hosted.connection?.close());
    }
    // After the worker stopped: sends what is buffered, quits its connection.
    await quietly(() => this.publisher?.close());
    const tracing = this.tracing;
    if (tracing) {
      await quietly(() => tracingFrom(tracing).shutdown());
    }
    await quietly(() => this.connection?.close());
    await quietly(() => this.server?.teardown());
  }
}
