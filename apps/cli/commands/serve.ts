/**
 * `durable-agent serve`: the HTTP API (start runs, read them, stream their events, send messages, cancel,
 * decide approvals) against a running Temporal server, with bearer tokens from configuration; runs until
 * Ctrl-C. Runs need a worker (`durable-agent dev` or `durable-agent worker`).
 */
import { createHttpApi } from '../../http/app';
import type { TokenAuth } from '../../http/auth';
import { loadTokens } from '../../http/auth';
import type { HttpApiServer } from '../../http/server';
import { serveHttpApi } from '../../http/server';
import { aborted } from '../abort';
import { CliError, errorMessage } from '../errors';
import { Output } from '../terminal-output';
import { Session } from '../session';
import { servedAgents } from '../served';
import { cliTracing } from '../tracing';
import type { ConnectionFlags } from '../target';
import { redisLine, resolveTarget, taskQueueLabel } from '../target';

/** Default port of the HTTP API. */
export const DEFAULT_HTTP_PORT = 8080;

/** Options of `serve`. */
export interface ServeFlags extends ConnectionFlags {
  /** Interface to listen on (`--host` or `DURABLE_AGENT_HTTP_HOST`). */
  host?: string;
  /** `--http-port` or `DURABLE_AGENT_HTTP_PORT`. */
  httpPort?: number;
  /** JSON file of bearer tokens (`--tokens` or `DURABLE_AGENT_HTTP_TOKENS_FILE`). */
  tokens?: string;
  /** `GET /metrics` answers without a token. */
  metricsPublic?: boolean;
  /** A module of the user's agents: `POST /runs` checks a run's policy against their tools before starting it. */
  agents?: string;
}

/** Serve the HTTP API until `signal` aborts; returns the exit code. */
export async function serveCommand(flags: ServeFlags, signal: AbortSignal): Promise<number> {
  const out = new Output();
  let auth: TokenAuth;
  try {
    auth = loadTokens({ file: flags.tokens, inline: process.env.DURABLE_AGENT_HTTP_TOKENS });
  } catch (err) {
    throw new CliError(errorMessage(err));
  }
  const agents = flags.agents ? (await servedAgents(flags.agents)).load().agents : undefined;
  const target = resolveTarget(flags);
  const tracing = cliTracing(out);
  const session = await Session.open(target, { embed: 'never', log: (l) => out.note(l), ...(tracing ? { tracing } : {}) });
  try {
    const api = createHttpApi({
      client: session.agentClient(),
      auth,
      metricsPublic: flags.metricsPublic === true,
      ...(agents ? { agents } : {}),
      onError: (err) => out.note(`internal error: ${errorMessage(err)}`),
    });
    let server: HttpApiServer;
    try {
      server = await serveHttpApi(api, { port: flags.httpPort ?? DEFAULT_HTTP_PORT, hostname: flags.host ?? '127.0.0.1' });
    } catch (err) {
      throw new CliError(`cannot listen on ${flags.host ?? '127.0.0.1'}:${flags.httpPort ?? DEFAULT_HTTP_PORT}: ${errorMessage(err)}`);
    }
    out.line(
      '',
      out.styles.bold('durable-agent serve'),
      `  HTTP API:          ${server.url}`,
      `  Console:           ${server.url}/console/`,
      `  Metrics:           ${server.url}/metrics (Prometheus; ${flags.metricsPublic ? 'no token needed' : 'a token with the "metrics" permission'})`,
      `  Temporal address:  ${session.address}`,
      `  Task queue:        ${target.taskQueue ?? taskQueueLabel(undefined)} (runs need a worker: durable-agent dev, or durable-agent worker)`,
      `  Tokens:            ${auth.size} configured`,
      ...redisLine(target, 'read from'),
      '',
      'Press Ctrl-C to stop.',
    );
    await aborted(signal);
    out.line('', 'stopping the HTTP API...');
    await server.close();
    return 0;
  } finally {
    await session.close();
  }
}
