/** The agents other agents run as sub-agents, found through their agent tools (a worker serves them too). */
import type { AnyAgent } from './define';

/** Every agent reachable from `agents` through agent and consolidate tools (depth first, each once), not counting `agents` themselves. */
export function subAgentsOf(agents: readonly AnyAgent[]): AnyAgent[] {
  const seen = new Set<string>(agents.map((a) => a.name));
  const found: AnyAgent[] = [];
  const visit = (agent: AnyAgent) => {
    for (const tool of agent.tools ?? []) {
      const children = tool.subAgent ? [tool.subAgent.definition] : (tool.consolidate?.definitions ?? []);
      for (const child of children) {
        if (!child || seen.has(child.name)) continue;
        seen.add(child.name);
        found.push(child);
        visit(child);
      }
    }
  };
  agents.forEach(visit);
  return found;
}
