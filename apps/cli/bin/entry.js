// Which build of the CLI apps/cli/bin/durable-agent.js runs: the compiled one in dist/ when it is there and not
// older than the sources, else the TypeScript sources through tsx (a checkout being developed).
const { existsSync, readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');

/** The source folders and files the build compiles (tsconfig.build.json). */
const SOURCES = ['src', 'apps/cli', 'apps/http'];

/** Newest modification time (ms) of the .ts files under `path`; 0 when there are none. */
function newestSource(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return path.endsWith('.ts') ? stat.mtimeMs : 0;
  let newest = 0;
  for (const name of readdirSync(path)) newest = Math.max(newest, newestSource(join(path, name)));
  return newest;
}

/**
 * The entry module to load from package root `root`: `{ kind: 'dist' | 'source', path }`.
 * `DURABLE_AGENT_FROM_SOURCE=1` forces the sources (the tests use it, so they always run what is in the
 * tree), `=0` forces dist/.
 * @param {string} root
 * @param {NodeJS.ProcessEnv} env
 */
function chooseEntry(root, env = process.env) {
  const source = join(root, 'apps', 'cli', 'main.ts');
  const dist = join(root, 'dist', 'apps', 'cli', 'main.js');
  const hasSource = existsSync(source);
  const hasDist = existsSync(dist);
  const force = env.DURABLE_AGENT_FROM_SOURCE;
  if (force === '1' && hasSource) return { kind: 'source', path: source };
  if (force === '0' && hasDist) return { kind: 'dist', path: dist };
  if (hasDist && (!hasSource || statSync(dist).mtimeMs >= Math.max(...SOURCES.map((s) => newestSource(join(root, s)))))) {
    return { kind: 'dist', path: dist };
  }
  if (hasSource) return { kind: 'source', path: source };
  return { kind: 'dist', path: dist };
}

module.exports = { chooseEntry, SOURCES };
