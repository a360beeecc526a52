/**
 * The vitest options every project shares (written out rather than inherited with `extends: true`, which
 * would also inherit the root's options). Also used by
 * the quiet-run fixture's config (test/fixtures/quiet-run), so that test runs with these same options.
 */
export const sharedTestOptions = {
  testTimeout: 60_000,
  hookTimeout: 120_000,
  pool: 'forks' as const,
  // The Temporal runtime's log is kept per test and printed only for a test that fails
  // (test/helpers/test-logs.ts; DURABLE_AGENT_TEST_LOGS=1 prints it all).
  setupFiles: ['test/setup/test-logs.ts'],
  env: {
    // The AWS SDK's notice that its future versions need Node 22 (printed once per process on Node 20, in
    // test processes and the CLI processes they start): the engines field says what this package needs.
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  },
};
