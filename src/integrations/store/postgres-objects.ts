/**
 * Objects as rows of one PostgreSQL table, shared by every worker that uses the same database: the store
 * for a fleet. `pg` is loaded when the store is made, so workers that never use PostgreSQL never load it
 * (and one without `pg` installed fails at startup, naming the package).
 */
import type * as Pg from 'pg';
import type { Pool, PoolClient, PoolConfig } from 'pg';
import { DurableAgentError } from '../../core/run/errors';
import { loadPeer, PEERS } from '../optional-peer';
import type { ObjectKind, ObjectStore } from './objects';
import { StoreConfigError, redact } from './config-error';

/** Options of a {@link PostgresObjectStore}; each may also be given in the URL's query (`?schema=…&table=…&max=…`). */
export interface PostgresObjectStoreOptions {
  /** The schema holding the table (created if missing). Default `public`. */
  schema?: string;
  /** The table's name. Default `durable_agent_objects`. */
  table?: string;
  /** Most connections the pool opens. Default 10. */
  max?: number;
  /** How long to wait for a connection before failing, in ms. Default 10,000. */
  connectTimeoutMs?: number;
}

/** The store's own URL query parameters, removed from the connection string handed to `pg`. */
const OWN_PARAMS = ['schema', 'table', 'max', 'connectTimeoutMs'] as const;

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * A PostgreSQL store that cannot reach its server or whose query failed (code `storage_error`). It keeps
 * no reference to `pg`'s error, whose connection parameters hold the password.
 */
export class PostgresStoreError extends DurableAgentError {
  constructor(
    message: string,
    /** The server's SQLSTATE or the socket's error code (`ECONNREFUSED`), when there is one. */
    readonly reason?: string,
  ) {
    super('storage_error', message);
  }
}

/**
 * Objects in one table of a PostgreSQL database (`kind`, `name`, `data bytea`, primary key `(kind, name)`),
 * created on first use. Connections come from a pool (at most `max`, default 10), opened lazily: creating
 * the store does not connect. `create` is an `INSERT … ON CONFLICT DO NOTHING`, so of concurrent creators
 * on any number of machines exactly one wins.
 *
 * @example
 * ```ts
 * const store = new AgentStore(new PostgresObjectStore('postgres://agent:secret@db:5432/agents'));
 * await createWorker({ agents, store });
 * ```
 * @throws StoreConfigError from the constructor for a connection string or option it cannot use.
 * Operations reject with a `PostgresStoreError` naming the server (never the password) and the fix.
 */
export class PostgresObjectStore implements ObjectStore {
  readonly shared = true;
  /** `postgres://host:port/db`: no user, no password. */
  readonly location: string;
  /** The table, schema-qualified and quoted, as used in SQL. */
  private readonly qualified: string;
  private readonly schema: string;
  private readonly table: string;
  private readonly config: PoolConfig;
  private readonly password: string;
  private readonly pg = loadPeer<typeof Pg>(PEERS.postgres);
  private pool: Pool | undefined;
  private ready: Promise<void> | undefined;
  private closed = false;

  constructor(connectionString: string, options: PostgresObjectStoreOptions = {}) {
    let url: URL;
    try {
      url = new URL(connectionString);
    } catch {
      throw new StoreConfigError(
        `cannot parse the PostgreSQL store URL ${JSON.stringify(redact(connectionString))}: write it as postgres://user:password@host:5432/database (percent-encode special characters of the password)`,
      );
    }
    if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
      throw new StoreConfigError(
        `not a PostgreSQL URL: ${JSON.stringify(redact(connectionString))}: write it as postgres://user:password@host:5432/database`,
      );
    }
    const fromQuery = Object.fromEntries(OWN_PARAMS.flatMap((p) => (url.searchParams.has(p) ? [[p, url.searchParams.get(p) ?? '']] : [])));
    for (const p of OWN_PARAMS) url.searchParams.delete(p);
    this.password = decodeURIComponent(url.password);
    this.schema = identifier('schema', options.schema ?? fromQuery.schema ?? 'public');
    this.table = identifier('table', options.table ?? fromQuery.table ?? 'durable_agent_objects');
    this.qualified = `"${this.schema}"."${this.table}"`;
    const max = count('max', options.max ?? fromQuery.max, 10);
    const connectTimeoutMs = count('connectTimeoutMs', options.connectTimeoutMs ?? fromQuery.connectTimeoutMs, 10_000);
    // A socket directory may be given as ?host=/run/postgresql instead of a host name.
    const host = url.hostname ? decodeURIComponent(url.hostname) : (url.searchParams.get('host') ?? 'localhost');
    const database = decodeURIComponent(url.pathname.replace(/^\//, '')) || decodeURIComponent(url.username) || 'postgres';
    this.location = `postgres://${host.startsWith('/') ? encodeURIComponent(host) : url.hostname || host}:${url.port || url.searchParams.get('port') || '5432'}/${encodeURIComponent(database)}`;
    this.config = {
      connectionString: url.toString(),
      max,
      connectionTimeoutMillis: connectTimeoutMs,
      idleTimeoutMillis: 10_000,
      allowExitOnIdle: true,
    };
  }

  async read(kind: ObjectKind, name: string): Promise<Uint8Array | undefined> {
    const result = await this.query<{ data: Buffer }>(`SELECT data FROM ${this.qualified} WHERE kind = $1 AND name = $2`, [kind, name]);
    return result.rows[0]?.data;
  }

  async write(kind: ObjectKind, name: string, data: Uint8Array): Promise<void> {
    // Equal blob names hold equal content: an existing blob stays. A claim is replaced (settled).
    const onConflict = kind === 'blob' ? 'DO NOTHING' : 'DO UPDATE SET data = EXCLUDED.data';
    await this.query(`INSERT INTO ${this.qualified} (kind, name, data) VALUES ($1, $2, $3) ON CONFLICT (kind, name) ${onConflict}`, [
      kind,
      name,
      toBuffer(data),
    ]);
  }

  async create(kind: ObjectKind, name: string, data: Uint8Array): Promise<boolean> {
    const result = await this.query(
      `INSERT INTO ${this.qualified} (kind, name, data) VALUES ($1, $2, $3) ON CONFLICT (kind, name) DO NOTHING`,
      [kind, name, toBuffer(data)],
    );
    return result.rowCount === 1;
  }

  async remove(kind: ObjectKind, name: string): Promise<void> {
    await this.query(`DELETE FROM ${this.qualified} WHERE kind = $1 AND name = $2`, [kind, name]);
  }

  /** End the pool's connections; further operations reject. Closing twice is fine. */
  async close(): Promise<void> {
    this.closed = true;
    const pool = this.pool;
    this.pool = undefined;
    if (pool) await pool.end();
  }

  private async query<R extends object = Record<string, unknown>>(
    sql: string,
    params: unknown[],
  ): Promise<{ rows: R[]; rowCount: number | null }> {
    const pool = this.connect();
    await this.ensureTable(pool);
    try {
      return await pool.query<R>(sql, params);
    } catch (err) {
      throw this.failure(err, 'query failed');
    }
  }

  private connect(): Pool {
    if (this.closed) throw new PostgresStoreError(`the PostgreSQL store ${this.location} is closed`);
    if (!this.pool) {
      this.pool = new this.pg.Pool(this.config);
      // An idle connection dropped by the server (restart, failover) must not crash the worker: the pool
      // discards it and the next query opens a new one.
      this.pool.on('error', () => undefined);
    }
    return this.pool;
  }

  /** Create the schema and table once per store; concurrent creators (other workers) are serialized. */
  private ensureTable(pool: Pool): Promise<void> {
    this.ready ??= this.createTable(pool).catch((err: unknown) => {
      this.ready = undefined; // try again on the next operation
      throw err;
    });
    return this.ready;
  }

  private async createTable(pool: Pool): Promise<void> {
    let client: PoolClient;
    try {
      client = await pool.connect();
    } catch (err) {
      throw this.failure(err, 'cannot connect');
    }
    try {
      const found = await client.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [this.qualified]);
      if (found.rows[0]?.t) return;
      // CREATE … IF NOT EXISTS is not safe against itself (two sessions can both decide to create and one
      // fails on a catalog unique index): a transaction-scoped advisory lock lets one worker at a time in.
      await client.query('BEGIN');
      try {
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`durable-agent schema ${this.qualified}`]);
        const schema = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [this.schema]);
        if (schema.rowCount === 0) await client.query(`CREATE SCHEMA IF NOT EXISTS "${this.schema}"`);
        await client.query(
          `CREATE TABLE IF NOT EXISTS ${this.qualified} (
            kind text NOT NULL,
            name text NOT NULL,
            data bytea NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (kind, name)
          )`,
        );
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    } catch (err) {
      throw this.failure(err, `cannot create the table ${this.schema}.${this.table}`);
    } finally {
      client.release();
    }
  }

  /** A {@link PostgresStoreError} for `err`, naming the server and the likely fix, never the password. */
  private failure(err: unknown, doing: string): PostgresStoreError {
    if (err instanceof PostgresStoreError) return err;
    const e = err as { code?: string; message?: string };
    const reason = this.scrub(e.message || String(err));
    const code = e.code ?? '';
    let fix: string;
    if (
      ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ECONNRESET'].includes(code) ||
      /timeout|terminated/i.test(reason)
    ) {
      doing = 'cannot connect';
      fix =
        'check that the PostgreSQL server is running and reachable at that host and port (DURABLE_AGENT_STORE=postgres://user:password@host:5432/database)';
    } else if (code === '28P01' || code === '28000') {
      doing = 'cannot connect';
      fix = "check the user and password in DURABLE_AGENT_STORE (percent-encode special characters) and the server's pg_hba.conf";
    } else if (code === '3D000') {
      doing = 'cannot connect';
      fix = 'create the database (CREATE DATABASE …) or name an existing one in DURABLE_AGENT_STORE';
    } else if (code === '42501') {
      fix = `grant the store's user CREATE on the database or schema, or create ${this.schema}.${this.table} for it beforehand`;
    } else {
      fix = '';
    }
    return new PostgresStoreError(
      `PostgreSQL store ${this.location}: ${doing}: ${reason}${code ? ` (${code})` : ''}${fix ? `: ${fix}` : ''}`,
      code || undefined,
    );
  }

  private scrub(message: string): string {
    if (!this.password) return message;
    return message.split(this.password).join('***').split(encodeURIComponent(this.password)).join('***');
  }
}

function identifier(what: string, value: string): string {
  if (!IDENTIFIER.test(value))
    throw new StoreConfigError(
      `PostgreSQL store ${what} ${JSON.stringify(value)} is not a plain identifier: use lower-case letters, digits and _ (at most 63, not starting with a digit)`,
    );
  return value;
}

function count(what: string, value: string | number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new StoreConfigError(`PostgreSQL store ?${what}=${JSON.stringify(value)} is not a positive whole number`);
  return n;
}

function toBuffer(data: Uint8Array): Buffer {
  return Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}
