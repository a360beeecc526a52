// The end of a CI run's output, from vitest's JSON report (default .ci/out/vitest.json, or the path given):
// the failed tests first (file > test, the first lines of the error and where it was thrown), so a red run
// shows its failures at the end without scrolling; then the skipped count if any; the last line is exactly
// `N passed, N failed`.
const fs = require('fs');
const path = require('path');

const MAX_LISTED = 30;
const MAX_MESSAGE_LINES = 4;
const MAX_LINE = 240;

const file = process.argv[2] || '.ci/out/vitest.json';
if (!fs.existsSync(file)) {
  console.log('tests did not run (type-check or lint failed: see above)');
  console.log('0 passed, 1 failed');
  process.exit(0);
}
const r = JSON.parse(fs.readFileSync(file, 'utf8'));

const clip = (line) => (line.length > MAX_LINE ? `${line.slice(0, MAX_LINE - 1)}…` : line);
const relative = (p) => (path.isAbsolute(p) ? path.relative(process.cwd(), p) : p);

/** The first lines of an error (before its stack), then the first stack frame outside node_modules. */
function excerpt(text) {
  const lines = String(text).split('\n');
  const stackAt = lines.findIndex((l) => /^\s+at /.test(l));
  const message = (stackAt < 0 ? lines : lines.slice(0, stackAt)).filter((l) => l.trim() !== '');
  const shown = message.slice(0, MAX_MESSAGE_LINES).map((l) => `    ${clip(l.trimEnd())}`);
  if (message.length > MAX_MESSAGE_LINES) shown.push(`    … (${message.length - MAX_MESSAGE_LINES} more lines)`);
  const frame =
    stackAt < 0 ? undefined : lines.slice(stackAt).find((l) => /^\s+at /.test(l) && !l.includes('node_modules') && !l.includes('node:'));
  if (frame) shown.push(`    ${clip(frame.trim().replace(process.cwd() + path.sep, ''))}`);
  return shown;
}

const failures = [];
let fileFailures = 0;
// Checks .ci/run ran outside vitest (the package build, publint, attw): each failed one counts as a failed test.
const outside = (process.env.CI_FAILED_CHECKS || '').split(',').filter(Boolean);
for (const check of outside) failures.push([`✗ ${check} (see its output above)`]);
for (const f of r.testResults || []) {
  const name = relative(f.name || '');
  let listed = false;
  for (const a of f.assertionResults || []) {
    if (a.status !== 'failed') continue;
    listed = true;
    failures.push([
      `✗ ${[name, ...(a.ancestorTitles || []), a.title].join(' > ')}`,
      ...excerpt((a.failureMessages || [])[0] || 'failed (no message)'),
    ]);
  }
  // A file that failed on its own (an import error, a failed beforeAll/afterAll): its message.
  if (f.status === 'failed' && (f.message || !listed)) {
    failures.push([`✗ ${name}`, ...excerpt(f.message || 'failed (no message)')]);
    // A file that failed before any of its tests could (no test of it failed): counted as one failed test.
    if (!listed) fileFailures++;
  }
}

if (failures.length > 0) {
  console.log('');
  console.log(`Failed (${failures.length}):`);
  for (const lines of failures.slice(0, MAX_LISTED)) console.log(lines.join('\n'));
  if (failures.length > MAX_LISTED) console.log(`… and ${failures.length - MAX_LISTED} more (see above, or ${file})`);
  console.log('');
}
const skipped = (r.numPendingTests || 0) + (r.numTodoTests || 0);
if (skipped) console.log(`${skipped} skipped`);
console.log(`${r.numPassedTests} passed, ${r.numFailedTests + outside.length + fileFailures} failed`);
