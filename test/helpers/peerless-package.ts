/**
 * A copy of durable-agent's sources in a temporary folder whose `node_modules` holds only the package's
 * base `dependencies` (symlinks to this checkout's), none of its optional peers: what a team gets that
 * installs `durable-agent` and nothing else. Code run from it (through tsx) resolves every package from
 * that folder, so a peer the code loads is missing there, for real.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const ROOT = resolve(__dirname, '..', '..');

/** The temporary package: its root, a way to run a script in it, and its removal. */
export interface PeerlessPackage {
  readonly root: string;
  /** Run a CommonJS script (TypeScript modules load through tsx) in a fresh Node process, cwd the package. */
  run(script: string, env?: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string; code: number }>;
  /** Run a file of the package with plain Node (no tsx), e.g. the CLI's `bin`. */
  node(file: string, args: string[], env?: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string; code: number }>;
  remove(): void;
}

/** Make the package: `src/`, `apps/cli`, `apps/http`, `package.json`, and the base dependencies only. */
export function peerlessPackage(): PeerlessPackage {
  const root = mkdtempSync(join(tmpdir(), 'durable-agent-peerless-'));
  for (const dir of ['src', 'apps/cli', 'apps/http']) cpSync(join(ROOT, dir), join(root, dir), { recursive: true });
  const manifest = readFileSync(join(ROOT, 'package.json'), 'utf8');
  writeFileSync(join(root, 'package.json'), manifest);
  cpSync(join(ROOT, 'tsconfig.json'), join(root, 'tsconfig.json'));
  const { dependencies } = JSON.parse(manifest) as { dependencies: Record<string, string> };
  for (const name of Object.keys(dependencies)) {
    const link = join(root, 'node_modules', name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(realpathSync(join(ROOT, 'node_modules', name)), link, 'dir');
  }
  const tsx = pathToFileURL(join(realpathSync(join(ROOT, 'node_modules', 'tsx')), 'dist', 'loader.mjs')).href;
  const spawn = async (args: string[], env: NodeJS.ProcessEnv = {}) => {
    try {
      const { stdout, stderr } = await exec(process.execPath, args, { cwd: root, timeout: 60_000, env: { ...process.env, ...env } });
      return { stdout, stderr, code: 0 };
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string; code?: unknown };
      if (typeof e.code !== 'number') throw err;
      return { stdout: e.stdout ?? '', stderr: e.stderr ?? '', code: e.code };
    }
  };
  return {
    root,
    run: (script, env) => spawn(['--import', tsx, '-e', script], env),
    node: (file, args, env) => spawn([join(root, file), ...args], env),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}
