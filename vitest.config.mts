import { defineConfig } from 'vitest/config';
import { sharedTestOptions as shared } from './test/setup/shared-options.mjs';

export default defineConfig({
  test: {
    // One dev server and one workflow bundle for the whole run (test/setup/global-setup.ts): the root's
    // global setup runs once, and every project inherits what it provides (`inject`).
    globalSetup: ['test/setup/global-setup.ts'],
    // Two test files at a time, whatever the core count (vitest's default is cores − 1: one on a 2-core
    // machine). The files mostly wait on Temporal, timers and child processes, so two overlap well: the
    // whole run took 454 s instead of 803 s on the shared 2-core machine, with the same results.
    maxWorkers: 2,
    // CI: a dot per test (a green run is a few lines; failures, their logs and the summary as usual), and the
    // JSON report .ci/summary.js reads (per-file and per-test durations are there). Locally: a line per file.
    reporters: process.env.CI ? ['dot', ['json', { outputFile: '.ci/out/vitest.json' }]] : ['default'],
    projects: [
      {
        test: {
          ...shared,
          name: 'default',
          include: ['test/**/*.test.ts'],
          exclude: ['test/restart/**', '**/node_modules/**'],
          // Files run in parallel on the shared dev server.
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...shared,
          name: 'server-restart',
          include: ['test/restart/**/*.test.ts'],
          // These files stop and restart a Temporal server: that cannot happen on the shared server while
          // other files use it, so each file starts a file-backed server of its own
          // (test/helpers/restartable-server.ts). The group runs after all the others, one file at a time.
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
