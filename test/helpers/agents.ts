import type { AgentConfig, Agent } from '../../src/agents/define';
import { defineAgent } from '../../src/agents/define';
import type { Script } from '../../src/integrations/providers/scripted';
import { ScriptedProvider } from '../../src/integrations/providers/scripted';
import { allTools } from './tools';

/** Collects scripted agents for one test file: each agent gets a script of its own. */
export class ScriptedAgents {
  readonly provider = new ScriptedProvider();
  readonly agents: Agent[] = [];

  /** Define an agent named `name` replying from `script`, with every test tool unless `tools` is given. */
  add(name: string, script: Script, config: Partial<AgentConfig> = {}): Agent {
    this.provider.set(name, script);
    const agent = defineAgent({
      name,
      model: { provider: 'scripted', model: name },
      tools: allTools,
      modelRetry: { maximumAttempts: 3, initialInterval: '50ms', maximumInterval: '200ms' },
      ...config,
    });
    this.agents.push(agent);
    return agent;
  }
}
