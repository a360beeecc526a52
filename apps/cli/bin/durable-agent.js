#!/usr/bin/env node
// Runs the compiled CLI (dist/, built by `npm run build` and on install) when it is up to date with the
// sources; otherwise the TypeScript sources through tsx (see entry.js).
const { join } = require('node:path');
const { chooseEntry } = require('./entry');
const { missingCliPeers, missingPeersLine } = require('./peers');

const missing = missingCliPeers();
if (missing.length) {
  process.stderr.write(`${missingPeersLine(missing)}\n`);
  process.exit(1);
}

const entry = chooseEntry(join(__dirname, '..', '..', '..'));
if (entry.kind === 'source') {
  try {
    require('tsx/cjs');
  } catch {
    process.stderr.write(
      'error: the compiled CLI (dist/) is missing or older than the sources, and tsx is not installed to run them: run npm run build\n',
    );
    process.exit(1);
  }
}
const { cli } = require(entry.path);
void cli(process.argv);
