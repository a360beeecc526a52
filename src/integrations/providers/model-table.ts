/**
 * Tables keyed by model id (prices, context windows): a model is matched by its exact id, then by the
 * longest id prefix ending at a separator (so dated snapshots such as `claude-sonnet-4-20250514` find
 * their family, and `o1` matches `o1-2024-12-17` but not `o10`), then the same after a `vendor/` prefix
 * (`openai/gpt-4o`).
 */

/** The entry of `table` for `model`, or undefined. */
export function modelEntry<T>(table: Readonly<Record<string, T>>, model: string): T | undefined {
  const lookup = (id: string): T | undefined => {
    if (Object.hasOwn(table, id)) return table[id];
    let best: string | undefined;
    for (const key of Object.keys(table)) {
      if (id.startsWith(key) && /^[-_.:@]/.test(id.slice(key.length)) && (!best || key.length > best.length)) best = key;
    }
    return best ? table[best] : undefined;
  };
  const slash = model.lastIndexOf('/');
  return lookup(model) ?? (slash >= 0 ? lookup(model.slice(slash + 1)) : undefined);
}
