/**
 * The prebuilt bundle of the agent workflows (`dist/workflow-bundle.js`, written by `npm run build` and so
 * on install), and whether it is current. A worker that runs only the agent workflows starts from it
 * instead of bundling them at start (webpack, seconds); a missing or stale bundle falls back to bundling.
 *
 * Beside the bundle, a manifest (`workflow-bundle.json`) records what it was built from: the SHA-256 of
 * every file of this package it holds (the compiled `.js` under `dist/`) and of the TypeScript source each
 * came from (when the sources were there), and the version of every package it holds (`@temporalio/workflow`…).
 * The bundle is current when every recorded file still hashes the same, every recorded source that
 * exists does too (a checkout whose sources changed since the build is stale), and every package has the
 * recorded version.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';

/** Environment variable: the path of a prebuilt agent workflow bundle to use, or `off` to always bundle at start. */
export const WORKFLOW_BUNDLE_ENV = 'DURABLE_AGENT_WORKFLOW_BUNDLE';

/** File name of the prebuilt bundle in `dist/`. */
export const BUNDLE_FILE = 'workflow-bundle.js';

/** What the manifest beside a bundle records. */
export interface BundleManifest {
  /** Format version of this manifest. */
  version: 1;
  /** SHA-256 of the bundle itself. */
  bundle: string;
  /** Files of this package in the bundle, by path relative to the package root: their SHA-256. */
  files: Record<string, string>;
  /** The TypeScript source of each of those files that existed at build time, by path: its SHA-256. */
  sources: Record<string, string>;
  /** Packages from `node_modules` in the bundle: their versions. */
  packages: Record<string, string>;
}

/** Where a worker's workflow code comes from. */
export type WorkflowCodeSource =
  /** A prebuilt bundle that is current. */
  | { kind: 'prebuilt'; path: string }
  /** Bundled at start: `reason` says why no prebuilt bundle was used. */
  | { kind: 'bundled'; reason: string }
  /** A bundle the caller gave (`workflowBundle`). */
  | { kind: 'given' };

/** The package root: the folder holding `dist/` (this module runs from `dist/src/worker/` or from `src/worker/`). */
export function packageRootOf(dir = __dirname): string {
  const up = dirname(dirname(dir));
  return basename(up) === 'dist' ? dirname(up) : up;
}

/** Default path of the prebuilt bundle: `dist/workflow-bundle.js` of this package. */
export function defaultBundlePath(): string {
  return join(packageRootOf(), 'dist', BUNDLE_FILE);
}

/** Path of the manifest beside the bundle at `bundlePath`. */
export function manifestPath(bundlePath: string): string {
  return bundlePath.replace(/\.js$/, '') + '.json';
}

/** SHA-256 (hex) of a file's bytes. */
export function fileHash(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** The package a path inside `node_modules` belongs to (`@scope/name` or `name`), or undefined. */
export function packageOf(path: string): { name: string; dir: string } | undefined {
  const parts = path.split(sep);
  const at = parts.lastIndexOf('node_modules');
  if (at < 0) return undefined;
  const scoped = parts[at + 1]?.startsWith('@');
  const nameParts = parts.slice(at + 1, at + (scoped ? 3 : 2));
  return { name: nameParts.join('/'), dir: parts.slice(0, at + 1 + nameParts.length).join(sep) };
}

/** Version of `name` as this package resolves it now, or undefined when it cannot be found. */
function installedVersion(name: string, root: string): string | undefined {
  let dir = root;
  for (;;) {
    const pkg = join(dir, 'node_modules', name, 'package.json');
    if (existsSync(pkg)) {
      try {
        return (JSON.parse(readFileSync(pkg, 'utf8')) as { version?: string }).version;
      } catch {
        return undefined;
      }
    }
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/**
 * The manifest of the bundle `code` holding `modules` (absolute paths of the files webpack bundled), for a package at `root`.
 */
export function manifestFor(modules: readonly string[], root: string, code: string): BundleManifest {
  const manifest: BundleManifest = {
    version: 1,
    bundle: createHash('sha256').update(code).digest('hex'),
    files: {},
    sources: {},
    packages: {},
  };
  for (const file of [...new Set(modules)].sort()) {
    const pkg = packageOf(file);
    if (pkg) {
      if (!(pkg.name in manifest.packages)) {
        const version = (JSON.parse(readFileSync(join(pkg.dir, 'package.json'), 'utf8')) as { version?: string }).version;
        manifest.packages[pkg.name] = version ?? 'unknown';
      }
      continue;
    }
    const rel = relative(root, file).split(sep).join('/');
    if (rel.startsWith('..') || !existsSync(file)) continue; // generated by the bundler (its entry point), not a file
    manifest.files[rel] = fileHash(file);
    const source = join(root, rel.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
    if (rel.startsWith('dist/') && existsSync(source))
      manifest.sources[rel.replace(/^dist\//, '').replace(/\.js$/, '.ts')] = fileHash(source);
  }
  return manifest;
}

/**
 * Why the bundle at `bundlePath` is not current (missing, stale, unreadable manifest), or undefined when it
 * is. `root` is the package root the manifest's paths are relative to (default: this package's).
 */
export function staleReason(bundlePath: string, root = packageRootOf()): string | undefined {
  if (!existsSync(bundlePath)) return `no prebuilt workflow bundle at ${bundlePath} (npm run build writes it)`;
  let manifest: BundleManifest;
  try {
    manifest = JSON.parse(readFileSync(manifestPath(bundlePath), 'utf8')) as BundleManifest;
  } catch {
    return `the prebuilt workflow bundle's manifest ${manifestPath(bundlePath)} is missing or unreadable (npm run build writes it)`;
  }
  if (manifest.version !== 1 || !manifest.files || !manifest.sources || !manifest.packages)
    return `the prebuilt workflow bundle's manifest ${manifestPath(bundlePath)} has an unknown format`;
  if (fileHash(bundlePath) !== manifest.bundle)
    return `the prebuilt workflow bundle ${bundlePath} is not the one its manifest describes (npm run build)`;
  for (const [rel, hash] of Object.entries(manifest.files)) {
    const path = join(root, rel);
    if (!existsSync(path) || fileHash(path) !== hash)
      return `the prebuilt workflow bundle is stale: ${rel} changed since it was built (npm run build)`;
  }
  for (const [rel, hash] of Object.entries(manifest.sources)) {
    const path = join(root, rel);
    if (existsSync(path) && fileHash(path) !== hash)
      return `the prebuilt workflow bundle is stale: ${rel} changed since it was built (npm run build)`;
  }
  for (const [name, version] of Object.entries(manifest.packages)) {
    const now = installedVersion(name, root);
    if (now !== version)
      return `the prebuilt workflow bundle is stale: it holds ${name} ${version}, ${now ? `${now} is installed` : 'which is not installed'} (npm run build)`;
  }
  return undefined;
}

/**
 * Where the agent workflows of a worker come from when it is given no bundle: the prebuilt bundle
 * (`DURABLE_AGENT_WORKFLOW_BUNDLE`, else `dist/workflow-bundle.js`) when it is current and the worker
 * needs nothing it lacks, else bundling at start, with the reason.
 */
export function agentWorkflowCode(options: { tracing: boolean; stackTraceSources?: boolean; env?: NodeJS.ProcessEnv }): WorkflowCodeSource {
  const setting = (options.env ?? process.env)[WORKFLOW_BUNDLE_ENV];
  if (setting === 'off') return { kind: 'bundled', reason: `${WORKFLOW_BUNDLE_ENV}=off` };
  if (options.stackTraceSources)
    return { kind: 'bundled', reason: 'showStackTraceSources is on, and the prebuilt workflow bundle holds no source text' };
  if (options.tracing)
    return { kind: 'bundled', reason: 'tracing is on, and the prebuilt workflow bundle holds no OpenTelemetry workflow interceptors' };
  const path = setting || defaultBundlePath();
  const stale = staleReason(path);
  return stale ? { kind: 'bundled', reason: stale } : { kind: 'prebuilt', path };
}
