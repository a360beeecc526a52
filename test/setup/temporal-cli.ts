/**
 * Global setup of the `restart` project: the Temporal CLI's path through `inject` (its files start
 * servers of their own), without starting the shared dev server.
 */
import type { TestProject } from 'vitest/node' with { 'resolution-mode': 'import' };
import './provided';
import { holdTemporalCli } from './resources';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cli = await holdTemporalCli();
  project.provide('temporalCliPath', cli.value?.path ?? '');
  return cli.release;
}
