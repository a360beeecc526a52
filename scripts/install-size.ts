/**
 * What a team installs: the package count and disk size of `npm install` into an empty project, for two
 * uses of durable-agent, and for Temporal's own packages with zod as the reference (docs/install-size.md).
 *
 *   npx tsx scripts/install-size.ts                       # packs this checkout (npm pack runs the build)
 *   npx tsx scripts/install-size.ts --checkout <dir>      # packs another checkout (e.g. a git worktree)
 *   npx tsx scripts/install-size.ts --tarball <file.tgz>  # an existing tarball
 *   add --no-reference to skip the Temporal + zod row
 *
 * - worker: the tarball, zod, and what a typical worker adds when the package lists them as peer
 *   dependencies: `@temporalio/worker` and a model SDK (`@anthropic-ai/sdk`);
 * - client only: the tarball alone (a web backend that starts runs and decides approvals);
 * - reference: @temporalio/{client,worker,workflow,activity,common,envconfig,plugin} and zod.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { InstallSize, PackageJson } from './package-install';
import { installProject, installSize, npmPack, peerSpecs, run } from './package-install';

/** What a typical worker imports besides durable-agent and zod. */
export const WORKER_PEERS = ['@temporalio/worker', '@anthropic-ai/sdk'];
/** Temporal's own packages a durable-agent install cannot do without (with zod: the reference). */
export const TEMPORAL_PACKAGES = ['client', 'worker', 'workflow', 'activity', 'common', 'envconfig', 'plugin'].map(
  (p) => `@temporalio/${p}`,
);

/** The package.json inside a tarball. */
async function tarballPackageJson(tarball: string): Promise<PackageJson> {
  return JSON.parse(await run('tar', ['-xzOf', tarball, 'package/package.json'], { cwd: tmpdir() })) as PackageJson;
}

/** Install `specs` into a fresh empty project and measure it (the project is removed afterwards). */
async function measure(specs: string[]): Promise<InstallSize> {
  const dir = mkdtempSync(join(tmpdir(), 'durable-agent-size-'));
  try {
    await installProject(dir, specs);
    return installSize(dir);
  } finally {
    // Hundreds of MB: removed in the background (a detached `rm`) while the next install runs.
    if (process.platform === 'win32') rmSync(dir, { recursive: true, force: true });
    else spawn('rm', ['-rf', dir], { detached: true, stdio: 'ignore' }).unref();
  }
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { checkout: { type: 'string' }, tarball: { type: 'string' }, 'no-reference': { type: 'boolean' } },
  });
  const packDir = mkdtempSync(join(tmpdir(), 'durable-agent-pack-'));
  try {
    const tarball = values.tarball ? resolve(values.tarball) : await npmPack(resolve(values.checkout ?? join(__dirname, '..')), packDir);
    const pkg = await tarballPackageJson(tarball);
    const range = (name: string) => pkg.peerDependencies?.[name] ?? pkg.dependencies?.[name] ?? 'latest';
    const rows: Array<[string, string[]]> = [
      [
        `${pkg.name} ${pkg.version}: worker (+ zod, ${WORKER_PEERS.join(', ')})`,
        [tarball, `zod@${range('zod')}`, ...peerSpecs(pkg, WORKER_PEERS)],
      ],
      [`${pkg.name} ${pkg.version}: client only`, [tarball]],
    ];
    if (!values['no-reference'])
      rows.push(['reference: Temporal packages + zod', [...TEMPORAL_PACKAGES.map((p) => `${p}@${range(p)}`), `zod@${range('zod')}`]]);
    console.log(`tarball: ${tarball}\n`);
    console.log('| install | packages | MB on disk |\n| --- | ---: | ---: |');
    for (const [label, specs] of rows) {
      const size = await measure(specs);
      console.log(`| ${label} | ${size.packages} | ${mb(size.bytes)} |`);
    }
  } finally {
    rmSync(packDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
