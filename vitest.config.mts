import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One dev server and one workflow bundle for the whole run (test/setup/global-setup.ts).
    globalSetup: ['test/setup/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: process.env.CI ? ['default', ['json', { outputFile: '.ci/out/vitest.json' }]] : ['default'],
  },
});
