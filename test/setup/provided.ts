/**
 * What the global setups give test files through `inject` (test/setup/dev-server.ts,
 * workflow-bundle.ts, temporal-cli.ts). Only the projects that list those setups in vitest.config.mts get
 * the values: the `unit` project starts nothing and gets none.
 */
export {};

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared dev server's address (`integration`). */
    temporalAddress: string;
    /** The workflow bundle built for the run, with its manifest beside it (`integration`, `restart`). */
    workflowBundlePath: string;
    /** The Temporal CLI binary, or '' when only the SDK's download is available (`integration`, `restart`). */
    temporalCliPath: string;
  }
}
