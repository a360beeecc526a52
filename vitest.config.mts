import { defineConfig } from 'vitest/config';
import { sharedTestOptions as shared } from './test/setup/shared-options.mjs';

/** Files that need no server of any kind but are slow or start big processes: in `integration`. */
const NOT_UNIT = [
  // One llama.cpp server with the local model for the file (~570 MB).
  'test/providers/ai-sdk-local-model.test.ts',
];

// The run's one dev server and one workflow bundle (test/setup/resources.ts) are started by the global
// setups of the projects that need them, only when one of those projects has files to run, and shared by
// all of them through one registry (test/setup/shared-resource.ts): `vitest run` starts one dev server and
// builds one bundle, `vitest run --project unit` starts neither. The root has no global setup: vitest
// runs the root's for every run, whichever projects are selected.
export default defineConfig({
  test: {
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
          name: 'unit',
          // Pure tests: no Temporal server, no bundle, no `inject` (test/unit/test-projects.test.ts).
          include: ['test/unit/**/*.test.ts', 'test/types/**/*.test.ts', 'test/providers/**/*.test.ts'],
          exclude: [...NOT_UNIT, '**/node_modules/**'],
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...shared,
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/replay/**/*.test.ts', ...NOT_UNIT],
          globalSetup: ['test/setup/dev-server.ts', 'test/setup/workflow-bundle.ts'],
          // Files run in parallel on the shared dev server, beside the unit files.
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...shared,
          name: 'package',
          // The packed package installed into empty projects (npm registry), its quickstart run on the
          // shared dev server: test/package/pack-install.test.ts.
          include: ['test/package/**/*.test.ts'],
          globalSetup: ['test/setup/dev-server.ts'],
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...shared,
          name: 'restart',
          include: ['test/restart/**/*.test.ts'],
          // The CLI and the bundle, not the shared dev server: these files stop and restart a Temporal
          // server, which cannot happen on the shared server while other files use it, so each file starts
          // a file-backed server of its own (test/helpers/restartable-server.ts). The group runs after all
          // the others, one file at a time.
          globalSetup: ['test/setup/temporal-cli.ts', 'test/setup/workflow-bundle.ts'],
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
