/**
 * Global setup of the projects whose tests run workers or replay histories (`integration`, `restart`):
 * the run's one workflow bundle, built once whichever of them run; its path through `inject`.
 */
import type { TestProject } from 'vitest/node' with { 'resolution-mode': 'import' };
import './provided';
import { holdWorkflowBundle } from './resources';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const bundle = await holdWorkflowBundle();
  project.provide('workflowBundlePath', bundle.value);
  return bundle.release;
}
