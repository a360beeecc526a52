#!/usr/bin/env node
// Runs the CLI from source when developing in this repository (tsx present), else from the build.
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const source = join(__dirname, '..', 'cli', 'main.ts');
let fromSource = false;
if (existsSync(source)) {
  try {
    require('tsx/cjs');
    fromSource = true;
  } catch {
    // no tsx: use the compiled build
  }
}
const { cli } = require(fromSource ? source : join(__dirname, '..', 'dist', 'cli', 'main.js'));
void cli(process.argv);
