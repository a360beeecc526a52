/**
 * Finding and provisioning the S3-compatible server the tests run against: moto's S3 from PyPI
 * (`moto[server]`), served one request at a time by `s3-test-server.py` so conditional writes are atomic.
 * Search order: the `DURABLE_AGENT_S3_SERVER` command, the project-local install under `.s3/`
 * (`npm run setup:s3`), and a `python3` on PATH that has `moto[server]`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { executable, packageRoot } from '../apps/cli/dev-server/temporal-cli';
import { runLogged } from '../apps/cli/dev-server/processes';

/** Environment variable holding a command that serves S3 when given `-H <host> -p <port>`. */
export const S3_SERVER_ENV = 'DURABLE_AGENT_S3_SERVER';
/** Version of moto the project installs. */
export const MOTO_VERSION = '5.2.5';
/** What to do when no server is found. */
export const S3_INSTALL_HINT = `run \`npm run setup:s3\` (installs moto[server]==${MOTO_VERSION} from PyPI into .s3/venv; needs python3 with venv) or set ${S3_SERVER_ENV} to a command serving S3 with -H <host> -p <port> whose conditional writes (If-None-Match: *) are atomic`;

/** A command that starts an S3 server when `-H <host> -p <port>` is appended. */
export interface S3ServerCommand {
  command: string;
  args: string[];
  source: 'env' | 'project' | 'path';
}

const isWindows = process.platform === 'win32';

/** The single-threaded moto launcher. */
export function launcherPath(root = packageRoot()): string {
  return join(root, 'scripts', 's3-test-server.py');
}

/** The Python of the project-local venv. */
export function projectPython(root = packageRoot()): string {
  return join(root, '.s3', 'venv', isWindows ? 'Scripts' : 'bin', isWindows ? 'python.exe' : 'python');
}

function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && executable(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/** Whether `python` can import moto's server (moto[server] installed). */
function hasMoto(python: string): boolean {
  const r = spawnSync(python, ['-c', 'import moto.moto_server.werkzeug_app, werkzeug.serving'], { stdio: 'ignore', timeout: 30_000 });
  return r.status === 0;
}

const found = new Map<string, S3ServerCommand | undefined>();

/**
 * The S3 server command, or undefined when there is none. Does not install anything.
 *
 * @throws when `DURABLE_AGENT_S3_SERVER` names a command that is not there.
 */
export function findS3Server(env: NodeJS.ProcessEnv = process.env, root = packageRoot()): S3ServerCommand | undefined {
  const explicit = env[S3_SERVER_ENV]?.trim();
  if (explicit) {
    const [command = '', ...args] = explicit.split(/\s+/);
    const path = command.includes('/') || command.includes('\\') ? command : onPath(command, env);
    if (!path || !executable(path)) throw new Error(`${S3_SERVER_ENV}=${explicit}: ${command} is not an executable file`);
    return { command: path, args, source: 'env' };
  }
  const cacheKey = `${root}${delimiter}${env.PATH ?? ''}`;
  if (found.has(cacheKey)) return found.get(cacheKey);
  const launcher = launcherPath(root);
  let result: S3ServerCommand | undefined;
  const local = projectPython(root);
  if (executable(local) && hasMoto(local)) {
    result = { command: local, args: [launcher], source: 'project' };
  } else {
    const python = onPath(isWindows ? 'python.exe' : 'python3', env);
    if (python && hasMoto(python)) result = { command: python, args: [launcher], source: 'path' };
  }
  found.set(cacheKey, result);
  return result;
}

/**
 * Install moto[server] into `<root>/.s3/venv`. Returns the server command, or undefined if it failed
 * (the reasons went to `log`).
 */
export function installS3Server(root = packageRoot(), log: (line: string) => void = () => undefined): S3ServerCommand | undefined {
  const venv = join(root, '.s3', 'venv');
  mkdirSync(join(root, '.s3'), { recursive: true });
  const python = projectPython(root);
  const system = isWindows ? 'python' : 'python3';
  // A venv left without pip (python3-venv missing when it was made) is made again.
  if (existsSync(python) && spawnSync(python, ['-m', 'pip', '--version'], { stdio: 'ignore' }).status !== 0)
    rmSync(venv, { recursive: true, force: true });
  if (!existsSync(python) && !runLogged(system, ['-m', 'venv', venv], log)) return undefined;
  if (!runLogged(python, ['-m', 'pip', 'install', '--disable-pip-version-check', '--quiet', `moto[server]==${MOTO_VERSION}`], log))
    return undefined;
  if (!hasMoto(python)) {
    log(`  ${python} cannot import moto's server after the install`);
    return undefined;
  }
  found.clear();
  return { command: python, args: [launcherPath(root)], source: 'project' };
}

/**
 * Make sure a server is there: the `DURABLE_AGENT_S3_SERVER` command or the project-local install,
 * installing the pinned moto into `.s3/venv` if needed (a python3 on PATH with moto is the fallback when
 * the install fails). Undefined: there is none and it could not be installed.
 */
export function ensureS3Server(log: (line: string) => void = () => undefined, root = packageRoot()): S3ServerCommand | undefined {
  const existing = findS3Server(process.env, root);
  if (existing && existing.source !== 'path') return existing;
  log(`installing moto[server]==${MOTO_VERSION} into .s3/venv (one time)`);
  const installed = installS3Server(root, log);
  if (installed) return installed;
  if (existing) log(`the install failed; using ${existing.command} from PATH`);
  return existing;
}
