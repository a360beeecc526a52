/**
 * One resource (the dev server, the workflow bundle) shared by the global setups of several vitest
 * projects in one run: vitest runs each project's global setup files once per project, in the main
 * process but each through the project's own module runner, so module state is not shared between them;
 * this registry lives on `globalThis`. The first project to ask starts the resource; it is stopped after
 * the last one has released it (vitest tears down global setups when the whole run closes).
 */

/** A started resource: its value and how to stop it. */
export interface Started<T> {
  value: T;
  stop: () => Promise<void>;
}

/** A project's hold on a shared resource. */
export interface Held<T> {
  value: T;
  /** Give up this hold; the resource stops when no hold is left. Calling it twice does nothing more. */
  release: () => Promise<void>;
}

interface Entry {
  started: Promise<Started<unknown>>;
  holders: number;
}

const REGISTRY = Symbol.for('durable-agent.test.shared-resources');

function registry(): Map<string, Entry> {
  const slot = globalThis as { [REGISTRY]?: Map<string, Entry> };
  slot[REGISTRY] ??= new Map();
  return slot[REGISTRY];
}

/**
 * Hold the resource named `key`, starting it with `start` if no one holds it yet. A failed start is
 * forgotten, so the next project to ask tries again (and fails with its own error).
 */
export async function acquire<T>(key: string, start: () => Promise<Started<T>>): Promise<Held<T>> {
  const resources = registry();
  let entry = resources.get(key);
  if (!entry) {
    entry = { started: start(), holders: 0 };
    resources.set(key, entry);
  }
  const held = entry;
  held.holders += 1;
  let started: Started<unknown>;
  try {
    started = await held.started;
  } catch (err) {
    held.holders -= 1;
    if (resources.get(key) === held) resources.delete(key);
    throw err;
  }
  let released = false;
  return {
    value: started.value as T,
    release: async () => {
      if (released) return;
      released = true;
      held.holders -= 1;
      if (held.holders > 0) return;
      if (resources.get(key) === held) resources.delete(key);
      await started.stop();
    },
  };
}

/** How many projects hold `key` now (0 when it is not running). */
export function holders(key: string): number {
  return registry().get(key)?.holders ?? 0;
}
