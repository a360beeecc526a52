/** `durable-agent dev`: a Temporal dev server (unless one is running) and, unless `--server-only`, a worker hosting the demo agents. */
import { aborted } from '../abort';
import { Output } from '../terminal-output';
import { isReachable } from '../dev-server/reachable';
import { modelLine, openServing, serveUntilStopped, startWorker } from './worker';
import { displayPath } from '../session';
import { serverDbFile, serverLogFile } from '../dev-server/embedded-server';
import type { ConnectionFlags } from '../target';
import { parseAddress, redisLine, taskQueueLabel } from '../target';

/** Options of `dev`. */
export interface DevFlags extends ConnectionFlags {
  uiPort: number;
  /** A module of the user's agents, served instead of the demo agents. */
  agents?: string;
  /** Serve Prometheus metrics at this `host:port` (checked by the option's parser). */
  metrics?: string;
  /** Start (or find) the dev server only: no worker, for teams that run their own. */
  serverOnly?: boolean;
}

/** Run until `signal` aborts, then stop the worker and the server; returns the exit code. */
export async function devCommand(flags: DevFlags, signal: AbortSignal): Promise<number> {
  const out = new Output();
  const { target, agents, session } = await openServing(flags, out, { embed: 'always', uiPort: flags.uiPort });
  let failed = false;
  try {
    const worker = flags.serverOnly ? undefined : await startWorker(session, out, signal);
    const s = out.styles;
    const host = parseAddress(session.address).host;
    const uiHost = host === '127.0.0.1' || host === '0.0.0.0' ? 'localhost' : host;
    const ui = `http://${uiHost}:${flags.uiPort}`;
    const uiLine = session.server
      ? ui
      : (await isReachable(`${uiHost}:${flags.uiPort}`))
        ? ui
        : `not found at ${ui} (use your server's UI)`;
    out.line(
      '',
      s.bold('durable-agent dev'),
      `  Temporal address:  ${session.address}`,
      session.server
        ? `  Temporal server:   embedded dev server (state: ${displayPath(serverDbFile())}, log: ${displayPath(serverLogFile())})`
        : '  Temporal server:   already running (not started by this command)',
      `  Temporal UI:       ${uiLine}`,
      ...(worker
        ? [
            `  Worker:            ${taskQueueLabel(worker.taskQueues)}, agents: ${worker.registry.names().join(', ')}`,
            ...modelLine(agents),
            ...redisLine(target, 'published to'),
            '',
            `Try, in another terminal:  npx durable-agent run ${flags.agents ? `--agents ${flags.agents} "<prompt>"` : '"what is 12*(3+4)?"'}${target.address === 'localhost:7233' ? '' : ` --address ${target.address}`}`,
          ]
        : ['  Worker:            none (--server-only): run your own, e.g. createWorker({ agents, address })', '']),
      'Press Ctrl-C to stop.',
    );
    failed = true; // unless it stops cleanly
    if (worker) await serveUntilStopped(session, out, signal);
    else await aborted(signal);
    failed = false;
  } finally {
    await session.close();
    if (!failed && session.server) out.line('stopped the Temporal dev server');
  }
  out.line('stopped');
  return 0;
}
