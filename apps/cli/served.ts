/**
 * The agents a CLI process serves: the demo agents, or the user's (`--agents <file>`). Their names are
 * known without loading worker code for the demo, so client-only commands stay light.
 */
import type { AnyAgent } from '../../src/entry/index';
import type { ModelRef } from '../../src/entry/client';
import type { ModelProvider } from '../../src/entry/index';
import { loadAgentsModule } from './agents-module';
import type * as DemoModule from './demo';

/** Name of the demo agent (the demo module's `DEMO_AGENT`; kept here so naming it loads no model SDK). */
export const DEMO_AGENT_NAME = 'assistant';

/** What a worker hosting the served agents needs. */
export interface WorkerAgents {
  agents: AnyAgent[];
  providers: Record<string, ModelProvider>;
  /** Demo only: the offline scripted model is in use, and the model the demo agents call. */
  demo?: { offline: boolean; model: ModelRef };
}

/** The agents this CLI process serves. */
export interface ServedAgents {
  /** `demo agents` or the module's path, for messages. */
  readonly label: string;
  readonly names: readonly string[];
  /** The agents and providers, for a worker. */
  load(): WorkerAgents;
}

/** The demo agents (loaded on first use). */
export function demoAgents(): ServedAgents {
  let loaded: WorkerAgents | undefined;
  return {
    label: 'the demo agents',
    names: [DEMO_AGENT_NAME],
    load() {
      if (!loaded) {
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- the demo pulls in model SDKs: only for a worker
        const { demoWorkerConfig } = require('./demo') as typeof DemoModule;
        const demo = demoWorkerConfig();
        loaded = { agents: demo.agents, providers: demo.providers, demo: { offline: demo.offline, model: demo.model } };
      }
      return loaded;
    },
  };
}

/** The agents of `--agents <file>` when given, else the demo agents. @throws {CliError} for a bad module. */
export async function servedAgents(file: string | undefined): Promise<ServedAgents> {
  if (!file) return demoAgents();
  const mod = await loadAgentsModule(file);
  return { label: file, names: mod.agents.map((a) => a.name), load: () => ({ agents: mod.agents, providers: mod.providers }) };
}

/** The demo agents on the tiny local model served at `baseURL` (`run --local-model`). */
export function localModelDemoAgents(baseURL: string): ServedAgents {
  let loaded: WorkerAgents | undefined;
  return {
    label: 'the demo agents (tiny local model)',
    names: [DEMO_AGENT_NAME],
    load() {
      if (!loaded) {
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- the demo pulls in model SDKs: only for a worker
        const { demoLocalModelConfig } = require('./demo') as typeof DemoModule;
        const demo = demoLocalModelConfig(baseURL);
        loaded = { agents: demo.agents, providers: demo.providers, demo: { offline: false, model: demo.model } };
      }
      return loaded;
    },
  };
}
