/**
 * The Temporal server of the comparison: `TEMPORAL_ADDRESS` when set (to share one server with
 * `bench/streaming.ts`), else an in-memory dev server started here with the Temporal CLI
 * (`DURABLE_AGENT_TEMPORAL_CLI`, else the project's `.temporal/` install, else `temporal` on PATH).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';

/** A server to use, and how to stop it if it was started here. */
export interface BenchServer {
  address: string;
  description: string;
  stop: () => Promise<void>;
}

function findCli(): string {
  const explicit = process.env.DURABLE_AGENT_TEMPORAL_CLI;
  if (explicit) return explicit;
  const root = join(__dirname, '..', '..', '.temporal');
  const candidates = [
    join(root, 'venv', 'bin', 'temporal'),
    join(root, 'bin', 'temporal'),
    ...(process.env.PATH ?? '')
      .split(delimiter)
      .filter(Boolean)
      .map((d) => join(d, 'temporal')),
  ];
  const found = candidates.find((c) => existsSync(c));
  if (!found)
    throw new Error(
      "No Temporal CLI found: set DURABLE_AGENT_TEMPORAL_CLI, install the project's (npx durable-agent dev installs it into .temporal/), or set TEMPORAL_ADDRESS to a running server.",
    );
  return found;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Use `TEMPORAL_ADDRESS`, or start an in-memory dev server and wait until it answers. */
export async function benchServer(): Promise<BenchServer> {
  const given = process.env.TEMPORAL_ADDRESS;
  if (given) return { address: given, description: `${given} (TEMPORAL_ADDRESS)`, stop: async () => {} };
  const cli = findCli();
  const port = await freePort();
  const child = spawn(cli, ['server', 'start-dev', '--headless', '--ip', '127.0.0.1', '--port', String(port), '--log-level', 'error'], {
    stdio: 'ignore',
  });
  const address = `127.0.0.1:${port}`;
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${cli} exited with ${child.exitCode} before it served`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      await connection.workflowService.describeNamespace({ namespace: 'default' });
      await connection.close();
      break;
    } catch (err) {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`the dev server at ${address} did not answer within 60 s: ${String(err)}`);
      }
      await sleep(200);
    }
  }
  return { address, description: `dev server started here, in-memory, at ${address}`, stop };
}
