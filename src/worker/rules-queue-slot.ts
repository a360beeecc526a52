/**
 * Which namespaces' rules queue a worker already polls, per connection a caller shares between workers.
 * Temporal's runtime allows one worker per namespace and task queue on a connection, so a second
 * `createWorker` given the same connection (other agents, another task queue) leaves the rules queue to
 * the first one. A worker with a connection of its own always polls it.
 */
import type { NativeConnection } from '@temporalio/worker';

const held = new WeakMap<NativeConnection, Set<string>>();

/** Take the rules queue of `namespace` on a shared `connection`; false when a worker on it polls the queue already. */
export function claimRulesQueue(connection: NativeConnection | undefined, namespace: string): boolean {
  if (!connection) return true;
  const namespaces = held.get(connection) ?? new Set<string>();
  held.set(connection, namespaces);
  if (namespaces.has(namespace)) return false;
  namespaces.add(namespace);
  return true;
}

/** The worker that claimed the rules queue stopped (or was never created): another worker on the connection may take it. */
export function releaseRulesQueue(connection: NativeConnection | undefined, namespace: string): void {
  if (connection) held.get(connection)?.delete(namespace);
}
