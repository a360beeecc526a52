/**
 * Builds the prebuilt agent workflow bundle and its manifest (see `prebuilt-bundle.ts`). `npm run build`
 * runs it after compiling: `node dist/worker/build-bundle.js` writes `dist/workflow-bundle.js` from the
 * compiled workflows, so workers start without bundling.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import type { BundleOptions } from '@temporalio/worker';
import type { BundleManifest } from './prebuilt-bundle';
import { defaultBundlePath, manifestFor, manifestPath, packageRootOf } from './prebuilt-bundle';
import { WORKFLOWS_PATH, withAgentPreload } from './workflows-entry';

/** The little of webpack's compiler this module uses. */
interface Compiler {
  hooks: { done: { tap(name: string, fn: (stats: { compilation: { modules: Iterable<{ resource?: string }> } }) => void): void } };
}
type WebpackConfig = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];

const noop = () => undefined;
const quietLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: (m: string) => console.error(m) };

/**
 * Bundle the agent workflows (`entry`, default durable-agent's own) into `outPath`, with the manifest
 * beside it (`.json`) recording what it holds. Written atomically (workers starting meanwhile read the old
 * bundle or the new one, never half of one).
 *
 * @returns the manifest written.
 * @throws the bundler's error when the workflow code does not bundle.
 */
export async function buildAgentBundle(
  outPath = defaultBundlePath(),
  options: { entry?: string; root?: string } = {},
): Promise<BundleManifest> {
  const modules: string[] = [];
  const collect = {
    apply(compiler: Compiler) {
      compiler.hooks.done.tap('durable-agent-manifest', (stats) => {
        for (const m of stats.compilation.modules) if (m.resource) modules.push(m.resource.split('?')[0] as string);
      });
    },
  };
  const { code: full } = await bundleWorkflowCode({
    workflowsPath: options.entry ?? WORKFLOWS_PATH,
    preloadModules: withAgentPreload(),
    logger: quietLogger,
    webpackConfigHook: (config: WebpackConfig) => ({ ...config, plugins: [...(config.plugins ?? []), collect as never] }),
  });
  const code = withoutSourcesContent(full);
  if (modules.length === 0) throw new Error('durable-agent: the bundler reported no modules; cannot write the workflow bundle manifest');
  const manifest = manifestFor(modules, options.root ?? packageRootOf(), code);
  mkdirSync(dirname(outPath), { recursive: true });
  const writeAtomically = (path: string, text: string) => {
    const partial = `${path}.${process.pid}.tmp`;
    writeFileSync(partial, text);
    renameSync(partial, path);
  };
  // The bundle first: a worker reading the new bundle beside the old manifest finds it stale, never the reverse.
  writeAtomically(outPath, code);
  writeAtomically(manifestPath(outPath), JSON.stringify(manifest, null, 2) + '\n');
  return manifest;
}

/**
 * `code` with its inline source map stripped of the sources' text (`sourcesContent`): stack traces are
 * still mapped to the sources (the mappings stay), and the bundle is about half the size, which the
 * worker reads, decodes and parses at every start.
 */
export function withoutSourcesContent(code: string): string {
  const at = code.lastIndexOf('//# sourceMappingURL=data:');
  const base64 = at < 0 ? -1 : code.indexOf('base64,', at);
  if (base64 < 0) return code;
  const map = JSON.parse(Buffer.from(code.slice(base64 + 'base64,'.length).trimEnd(), 'base64').toString()) as { sourcesContent?: unknown };
  delete map.sourcesContent;
  return code.slice(0, base64 + 'base64,'.length) + Buffer.from(JSON.stringify(map)).toString('base64') + '\n';
}

if (require.main === module) {
  const out = process.argv[2] ?? defaultBundlePath();
  const started = Date.now();
  buildAgentBundle(out).then(
    (manifest) =>
      console.log(
        `durable-agent: wrote ${out} (${Object.keys(manifest.files).length} workflow files, ${Object.keys(manifest.packages).join(', ')}) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      ),
    (err: unknown) => {
      console.error(`durable-agent: could not build the workflow bundle: ${(err as Error).message}`);
      process.exit(1);
    },
  );
}
