/** Cycle finding for the acyclic import checks. */

/** The modules of `graph` that lie on a cycle. */
export function modulesOnCycles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const onCycle: string[] = [];
  for (const start of graph.keys()) {
    const seen = new Set<string>();
    const todo = [...(graph.get(start) ?? [])];
    while (todo.length) {
      const next = todo.pop() as string;
      if (next === start) {
        onCycle.push(start);
        break;
      }
      if (seen.has(next)) continue;
      seen.add(next);
      todo.push(...(graph.get(next) ?? []));
    }
  }
  return onCycle.sort();
}
