/**
 * Global setup of the `integration` project: the run's one dev server (shared with any other project that
 * lists this file); test files get its address and the CLI's path through `inject`.
 */
import type { TestProject } from 'vitest/node' with { 'resolution-mode': 'import' };
import './provided';
import { holdDevServer } from './resources';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await holdDevServer();
  project.provide('temporalAddress', server.value.address);
  project.provide('temporalCliPath', server.value.cliPath);
  return server.release;
}
