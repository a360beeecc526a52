/**
 * `durable-agent/postgres`: a blob and claim store in one PostgreSQL table, shared by a fleet of workers.
 * Needs the optional package `pg` (`npm install pg`), loaded at the first operation. The setting
 * `DURABLE_AGENT_STORE=postgres://…` (or `createWorker({ store: 'postgres://…' })`) uses it without
 * importing this entry.
 *
 * @example
 * ```ts
 * import { AgentStore, createWorker } from 'durable-agent/worker';
 * import { PostgresObjectStore } from 'durable-agent/postgres';
 *
 * const store = new AgentStore({ objects: new PostgresObjectStore('postgres://agents@db/agents') });
 * ```
 */
export { PostgresObjectStore, PostgresStoreError } from '../integrations/store/postgres-objects';
export type { PostgresObjectStoreOptions } from '../integrations/store/postgres-objects';
