// Part of `npm run check:package` (after `npm run build`): the type declarations of each entry point
// (dist/src/entry/*.d.ts and every declaration file they lead to) import no optional peer dependency
// but the entry's own, so a TypeScript project type-checks `durable-agent/client` (or any entry)
// without installing the packages of the parts it does not use, even with `skipLibCheck: false`.
const { existsSync, readFileSync } = require('node:fs');
const { dirname, join, relative, resolve } = require('node:path');
const ts = require('typescript');

const ROOT = resolve(__dirname, '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const peers = new Set(Object.keys(pkg.peerDependencies));
/** The optional peers an entry's declarations may import. */
const OWN = {
  worker: ['@temporalio/worker'],
  anthropic: ['@anthropic-ai/sdk'],
  openai: ['openai'],
  'ai-sdk': ['@ai-sdk/provider'],
  redis: ['ioredis'],
  s3: ['@aws-sdk/client-s3'],
  postgres: ['pg'],
  mcp: ['@modelcontextprotocol/sdk'],
};

/** Optional peers imported by the declarations reachable from `file`: package → declaration files. */
function peersOf(file) {
  const seen = new Set();
  const found = new Map();
  const walk = (f) => {
    if (seen.has(f)) return;
    seen.add(f);
    for (const { fileName: spec } of ts.preProcessFile(readFileSync(f, 'utf8'), true, true).importedFiles) {
      if (spec.startsWith('.')) {
        const base = resolve(dirname(f), spec);
        const next = [`${base}.d.ts`, join(base, 'index.d.ts'), base.replace(/\.js$/, '.d.ts')].find((c) => existsSync(c));
        if (next) walk(next);
        continue;
      }
      const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
      if (peers.has(name)) found.set(name, [...(found.get(name) ?? []), relative(ROOT, f)]);
    }
  };
  walk(file);
  return found;
}

let failed = false;
for (const [key, target] of Object.entries(pkg.exports)) {
  if (typeof target === 'string') continue;
  const entry = key === '.' ? 'index' : key.slice(2);
  const allowed = OWN[entry] ?? [];
  for (const [name, files] of peersOf(join(ROOT, target.types))) {
    if (allowed.includes(name)) continue;
    failed = true;
    process.stderr.write(
      `durable-agent${key === '.' ? '' : key.slice(1)}: its declarations import the optional peer ${name} (${[...new Set(files)].join(', ')})\n`,
    );
  }
}
if (failed) process.exit(1);
process.stdout.write('declarations: each entry imports only its own optional peers\n');
