/**
 * Packing durable-agent and installing it into empty projects, as a team would: shared by the
 * pack-and-install test (test/package/) and the install-size report (scripts/install-size.ts).
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** The package.json fields this module reads. */
export interface PackageJson {
  name: string;
  version: string;
  files?: string[];
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/** Read `<dir>/package.json`. */
export function readPackageJson(dir: string): PackageJson {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson;
}

/** Run a command; on failure the error names the command and carries its output. Resolves with stdout. */
export async function run(
  cmd: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<string> {
  try {
    const { stdout } = await execFileAsync(cmd, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      timeout: options.timeoutMs ?? 600_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  } catch (err) {
    const e = err as Error & { stdout?: string; stderr?: string };
    throw new Error(`${cmd} ${args.join(' ')} (in ${options.cwd}) failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`.trim(), {
      cause: err,
    });
  }
}

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const QUIET = ['--no-audit', '--no-fund', '--loglevel=error'];

/**
 * `env` without what npm tells the scripts it runs about its project (`npm_package_*`, `npm_lifecycle_*`,
 * `npm_config_local_prefix`, `npm_command`): an npm started from `npm test` then works on the project it
 * runs in. Settings (`npm_config_registry`, …) stay.
 */
export function withoutNpmSettings(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([key]) => !/^npm_(package_|lifecycle_|config_local_prefix$|command$)/i.test(key)));
}

/** `npm pack` of the package in `dir` into `dest` (npm runs its `prepare`, the build, unless `ignoreScripts`). Returns the tarball's path. */
export async function npmPack(dir: string, dest: string, options: { ignoreScripts?: boolean } = {}): Promise<string> {
  mkdirSync(dest, { recursive: true });
  const out = await run(
    NPM,
    ['pack', '--json', '--pack-destination', dest, ...(options.ignoreScripts ? ['--ignore-scripts'] : []), ...QUIET],
    { cwd: dir, env: withoutNpmSettings() },
  );
  const [packed] = JSON.parse(out.slice(out.indexOf('['))) as Array<{ filename: string }>;
  if (!packed) throw new Error(`npm pack in ${dir} printed no tarball: ${out}`);
  return join(dest, packed.filename);
}

/**
 * Pack the checkout at `root` without writing its `dist/`: the package's files are copied into `stage`,
 * compiled there (`tsc -p tsconfig.build.json --outDir <stage>/dist`, then the prebuilt workflow bundle,
 * as `npm run build` does) and packed from there into `dest`. Returns the tarball's path.
 */
export async function packCheckout(root: string, stage: string, dest: string): Promise<string> {
  mkdirSync(stage, { recursive: true });
  const pkg = readPackageJson(root);
  const extras = readdirSync(root).filter((f) => /^(readme|license|licence|changelog)/i.test(f));
  for (const entry of [...new Set(['package.json', ...extras, ...(pkg.files ?? [])])]) {
    if (entry !== 'dist' && existsSync(join(root, entry))) cpSync(join(root, entry), join(stage, entry), { recursive: true });
  }
  // The build resolves the dependencies from the checkout's node_modules (npm pack leaves node_modules out).
  symlinkSync(resolve(root, 'node_modules'), join(stage, 'node_modules'), 'dir');
  await run(
    process.execPath,
    [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json'), '--outDir', join(stage, 'dist')],
    { cwd: root },
  );
  await run(process.execPath, [join(stage, 'dist', 'src', 'worker', 'build-bundle.js')], { cwd: stage });
  return npmPack(stage, dest, { ignoreScripts: true });
}

/**
 * A project in `dir` (created empty: a package.json, ESM) with `specs` installed by `npm install`
 * (tarball paths or `name@range`), the way a team adds the package to its own project.
 */
export async function installProject(dir: string, specs: string[], options: { env?: NodeJS.ProcessEnv } = {}): Promise<void> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }, null, 2) + '\n',
  );
  await run(NPM, ['install', ...QUIET, '--prefer-offline', ...specs], { cwd: dir, env: withoutNpmSettings(options.env) });
}

/**
 * What a team that uses `names` must install beside the package: `name@range` for each that the package
 * lists as a peer dependency, nothing for one it depends on (npm installs it). Throws for a name the
 * package does not list at all.
 */
export function peerSpecs(pkg: PackageJson, names: readonly string[]): string[] {
  return names.flatMap((name) => {
    const peer = pkg.peerDependencies?.[name];
    if (peer) return [`${name}@${peer}`];
    if (pkg.dependencies?.[name]) return [];
    throw new Error(`${pkg.name} lists ${name} neither as a dependency nor as a peer dependency`);
  });
}

/** Packages installed in a project and their size on disk. */
export interface InstallSize {
  /** Installed packages (folders with a package.json under node_modules, nested ones included). */
  packages: number;
  /** Bytes on disk (allocated blocks) of node_modules. */
  bytes: number;
}

/** Count the packages under `<project>/node_modules` and the disk space it takes. */
export function installSize(project: string): InstallSize {
  let packages = 0;
  let bytes = 0;
  const walk = (dir: string, inNodeModules: boolean) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const st = lstatSync(path);
      bytes += st.blocks * 512;
      if (!st.isDirectory()) continue;
      const isPackage = inNodeModules && !name.startsWith('.') && !name.startsWith('@') && existsSync(join(path, 'package.json'));
      if (isPackage) packages += 1;
      walk(path, name === 'node_modules' || (inNodeModules && name.startsWith('@')));
    }
  };
  const modules = join(project, 'node_modules');
  if (existsSync(modules)) walk(modules, true);
  return { packages, bytes };
}
