/**
 * How long the `durable-agent` command takes to start, for commands that only talk to the server:
 * `--version` and `approvals --help`, against a `node -e 0` baseline measured in the same run (taken in
 * turn, A B A B ..., so the ratio holds when the machine's speed drifts). Whole-process wall time,
 * start to exit. It asserts nothing; it prints medians and ratios.
 *
 *   npx tsx bench/cli-start.ts [--runs 15] [--source]
 *
 * By default the CLI runs as users run it: bin/durable-agent.js picks the dist/ build when it is up to
 * date (`npm run build`), else the sources through tsx. `--source` forces the sources
 * (DURABLE_AGENT_FROM_SOURCE=1), to see what running from a checkout costs.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { num, spread, table } from './stats';

const { values } = parseArgs({
  options: { runs: { type: 'string', short: 'n', default: '15' }, source: { type: 'boolean', default: false } },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs must be a positive integer');

const bin = resolve(__dirname, '..', 'apps', 'cli', 'bin', 'durable-agent.js');
const env = { ...process.env, DURABLE_AGENT_FROM_SOURCE: values.source ? '1' : '' };
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the launcher is plain CommonJS
const { chooseEntry } = require('../apps/cli/bin/entry.js') as { chooseEntry(root: string, env?: NodeJS.ProcessEnv): { kind: string } };

/** Wall milliseconds of one run of `node ...args`. */
function time(args: string[]): number {
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { env, stdio: 'ignore' });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}`);
  return ms;
}

const commands: Array<[string, string[]]> = [
  ['durable-agent --version', [bin, '--version']],
  ['durable-agent approvals --help', [bin, 'approvals', '--help']],
];
const baseline = ['-e', '0'];

console.log(`CLI start time: ${runs} runs each, build: ${chooseEntry(resolve(__dirname, '..'), env).kind}, node ${process.version}`);
for (const [, args] of commands) time(args); // warm-up (file cache)
time(baseline);

const rows: string[][] = [['command', 'median ms', 'min ms', 'max ms', 'baseline median ms', 'ratio median (pairwise)']];
for (const [name, args] of commands) {
  const a: number[] = [];
  const b: number[] = [];
  const ratios: number[] = [];
  for (let i = 0; i < runs; i++) {
    const ta = time(args);
    const tb = time(baseline);
    a.push(ta);
    b.push(tb);
    ratios.push(ta / tb);
  }
  const sa = spread(a);
  rows.push([name, num(sa.median), num(sa.min), num(sa.max), num(spread(b).median), `${num(spread(ratios).median, 2)}x`]);
}
console.log(table(rows));
