/**
 * A throwaway PostgreSQL server for tests: `initdb` into a fresh temporary folder, `postgres` on a free
 * port of 127.0.0.1 (and a unix socket in that folder), fsync off; stopped and removed by the test.
 * The binaries are found as `DURABLE_AGENT_PG_BIN` (a bin folder), else the highest
 * `/usr/lib/postgresql/<version>/bin` (Debian/Ubuntu: `apt-get install postgresql`), else `initdb` on
 * PATH (macOS: `brew install postgresql`). initdb and postgres refuse to run as root: under root they run
 * as the `postgres` system user that Debian's package creates. Under CI (`CI=true`, set by `.ci/run`,
 * which installs it) a missing server fails the tests; elsewhere they are skipped with a warning.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { Client } from 'pg';
import { describeNeeding } from './component';
import { executable } from '../../apps/cli/dev-server/temporal-cli';
import { freePort, terminate, watchChild } from '../../apps/cli/dev-server/processes';

/** Environment variable naming a folder holding `initdb` and `postgres`. */
export const PG_BIN_ENV = 'DURABLE_AGENT_PG_BIN';

/** What to install when PostgreSQL is missing. */
export const PG_INSTALL_HINT =
  'install PostgreSQL (Debian/Ubuntu: apt-get install postgresql; macOS: brew install postgresql) or set DURABLE_AGENT_PG_BIN to the folder holding initdb and postgres';

/** The folder holding `initdb` and `postgres`, or undefined when there is none. */
export function findPostgresBin(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const has = (dir: string) => executable(join(dir, 'initdb')) && executable(join(dir, 'postgres'));
  const explicit = env[PG_BIN_ENV];
  if (explicit) return has(explicit) ? explicit : undefined;
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => /^\d+(\.\d+)?$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const v of versions) if (has(join(debian, v, 'bin'))) return join(debian, v, 'bin');
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) if (dir && has(dir)) return dir;
  return undefined;
}

/** Why this machine cannot run a throwaway server, or undefined when it can. */
function missing(): string | undefined {
  if (!findPostgresBin()) return `PostgreSQL (initdb, postgres) not found: ${PG_INSTALL_HINT}`;
  if (process.getuid?.() === 0 && !systemUser('postgres'))
    return "running as root, and PostgreSQL refuses root: create a `postgres` system user (Debian's postgresql package does) or run the tests as another user";
  return undefined;
}

/**
 * `describe(name, fn)` when PostgreSQL is there. Otherwise, under CI, a suite whose one test fails naming
 * what is missing; locally, a skipped suite and a warning saying what to install.
 */
export function describeWithPostgres(name: string, fn: () => void): void {
  describeNeeding(name, 'PostgreSQL', missing(), fn);
}

/** A running throwaway PostgreSQL server. */
export interface PostgresServer {
  /** `postgres://postgres:<password>@127.0.0.1:<port>/postgres` (the superuser; TCP needs the password). */
  readonly url: string;
  readonly port: number;
  /** The superuser's password, as it appears in {@link url}. */
  readonly password: string;
  /** The folder of the server's unix socket (connections there are trusted). */
  readonly socketDir: string;
  /** Stop the server and remove its folder. Stopping twice is fine. */
  stop(): Promise<void>;
}

/**
 * Start a fresh PostgreSQL server on a free port of 127.0.0.1 and wait until it accepts connections.
 * TCP connections need the superuser's password (scram-sha-256); the unix socket trusts.
 *
 * @throws when PostgreSQL is missing, initdb fails, or the server does not accept connections within 30 s
 * (with its output).
 */
export async function startPostgres(): Promise<PostgresServer> {
  const reason = missing();
  const bin = findPostgresBin();
  if (reason || !bin) throw new Error(reason ?? PG_INSTALL_HINT);
  const owner = process.getuid?.() === 0 ? systemUser('postgres') : undefined;
  const dir = mkdtempSync(join(tmpdir(), 'durable-agent-pg-'));
  const data = join(dir, 'data');
  const password = randomBytes(12).toString('hex');
  const stopped = { done: false };
  let child: ChildProcess | undefined;
  const cleanup = () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGQUIT');
  };
  try {
    if (owner) chownSync(dir, owner.uid, owner.gid);
    const pwfile = join(dir, 'pwfile');
    writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
    if (owner) chownSync(pwfile, owner.uid, owner.gid);
    await runToEnd(
      join(bin, 'initdb'),
      [
        '-D',
        data,
        '-U',
        'postgres',
        `--pwfile=${pwfile}`,
        '--auth-local=trust',
        '--auth-host=scram-sha-256',
        '-E',
        'UTF8',
        '--locale=C',
        '--no-sync',
      ],
      owner,
    );
    rmSync(pwfile, { force: true });
    const port = await freePort();
    child = spawn(
      join(bin, 'postgres'),
      [
        '-D',
        data,
        '-p',
        String(port),
        '-k',
        dir,
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'fsync=off',
        '-c',
        'synchronous_commit=off',
        '-c',
        'full_page_writes=off',
        '-c',
        'max_connections=200',
      ],
      { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], ...(owner ? { uid: owner.uid, gid: owner.gid } : {}) },
    );
    process.once('exit', cleanup);
    const watched = watchChild(child);
    const url = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (watched.exited()) throw new Error(`postgres on port ${port} ${watched.exited()}:\n${watched.output()}`);
      if (await accepts(url)) break;
      if (Date.now() > deadline) throw new Error(`postgres on port ${port} did not accept connections within 30 s:\n${watched.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const running = child;
    return {
      url,
      port,
      password,
      socketDir: dir,
      async stop() {
        if (stopped.done) return;
        stopped.done = true;
        process.removeListener('exit', cleanup);
        await terminate(running, { signal: 'SIGINT', graceMs: 10_000 });
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    if (child) await terminate(child, { signal: 'SIGINT', graceMs: 10_000 });
    process.removeListener('exit', cleanup);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/** The uid and gid of a system user, from /etc/passwd. */
function systemUser(name: string): { uid: number; gid: number } | undefined {
  try {
    const line = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${name}:`));
    const [, , uid, gid] = line?.split(':') ?? [];
    return uid && gid ? { uid: Number(uid), gid: Number(gid) } : undefined;
  } catch {
    return undefined;
  }
}

function runToEnd(bin: string, args: string[], owner: { uid: number; gid: number } | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, {
      cwd: tmpdir(),
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(owner ? { uid: owner.uid, gid: owner.gid } : {}),
    });
    const watched = watchChild(child);
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`${bin} ${args.join(' ')} ${code ?? signal}:\n${watched.output()}`)),
    );
  });
}

async function accepts(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}
