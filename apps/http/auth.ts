/**
 * Who is calling: bearer tokens from configuration, each naming an identity and its permissions (see
 * `permissions.ts`). Tokens are kept only as SHA-256 digests once loaded, and never appear in a message or a log.
 *
 * The configuration is JSON:
 * ```json
 * { "tokens": { "<token>": { "identity": "ops:alice", "permissions": ["read", "start", "message", "cancel", "decide"] },
 *               "<another token>": { "identity": "dashboard", "permissions": ["read"] },
 *               "<a third>": { "identity": "ops:bob", "approve": true } } }
 * ```
 * Without `permissions` a token holds `read`, `start`, `message` and `cancel` (its own runs), plus `decide`
 * with `"approve": true` (the legacy spelling of `decide`).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { MiddlewareHandler } from 'hono';
import { z } from 'zod';
import { HttpError } from './errors';
import type { Permission } from './permissions';
import { holds, isPermission, PERMISSIONS, permissionsOf } from './permissions';

/** The shortest token accepted: shorter ones are too easy to guess. */
export const MIN_TOKEN_LENGTH = 16;

/** What a token stands for. */
export interface Caller {
  /** Who calls, e.g. `ops:alice`: the approver of its decisions, the sender of its messages, the starter of its runs. */
  identity: string;
  /** What it may do (`admin` implies every other). */
  permissions: readonly Permission[];
}

/** Checks bearer tokens. Build one with {@link loadTokens} or {@link parseTokens}. */
export class TokenAuth {
  private readonly byDigest: ReadonlyMap<string, Caller>;

  private constructor(byDigest: Map<string, Caller>) {
    this.byDigest = byDigest;
  }

  /** @internal built by {@link parseTokens}. */
  static fromEntries(entries: ReadonlyArray<[token: string, caller: Caller]>): TokenAuth {
    return new TokenAuth(new Map(entries.map(([token, caller]) => [digest(token), caller])));
  }

  /** How many tokens are configured. */
  get size(): number {
    return this.byDigest.size;
  }

  /** The caller of an `Authorization` header value, or undefined when it carries no known token. */
  caller(authorization: string | undefined): Caller | undefined {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    return match ? this.byDigest.get(digest(match[1]!)) : undefined;
  }
}

function digest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

const CallerSchema = z.strictObject({
  identity: z.string().trim().min(1, 'must name who the token stands for, e.g. "ops:alice"'),
  approve: z.boolean().optional(),
  permissions: z
    .array(
      z
        .string()
        .refine(isPermission, { error: (issue) => `unknown permission ${JSON.stringify(issue.input)} (known: ${PERMISSIONS.join(', ')})` }),
    )
    .optional(),
});

/**
 * Token configuration from its JSON text. `source` names where it came from in error messages, which
 * name a bad entry by its position, never by its token.
 *
 * @throws {Error} malformed JSON, no tokens, a token shorter than {@link MIN_TOKEN_LENGTH}, a bad entry.
 * @example
 * ```ts
 * const auth = parseTokens('{"tokens":{"s3cret-token-for-alice":{"identity":"ops:alice","approve":true}}}', 'inline');
 * ```
 */
export function parseTokens(text: string, source: string): TokenAuth {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // Not the parser's message: it quotes the text, tokens included.
    throw new Error(`${source}: not valid JSON`);
  }
  const tokens = (json as { tokens?: unknown } | null)?.tokens;
  if (!tokens || typeof tokens !== 'object' || Array.isArray(tokens) || Object.keys(json as object).some((k) => k !== 'tokens')) {
    throw new Error(`${source}: expected { "tokens": { "<token>": { "identity": "ops:alice", "approve": true } } }`);
  }
  const entries = Object.entries(tokens as Record<string, unknown>);
  if (!entries.length) throw new Error(`${source}: no tokens configured (every request would be refused)`);
  const parsed = entries.map(([token, value], i): [string, Caller] => {
    if (token.length < MIN_TOKEN_LENGTH || /\s/.test(token))
      throw new Error(`${source}: token #${i + 1} must be at least ${MIN_TOKEN_LENGTH} characters, without whitespace`);
    const caller = CallerSchema.safeParse(value);
    if (!caller.success) {
      const issue = caller.error.issues[0];
      const field = issue?.code === 'unrecognized_keys' ? issue.keys[0] : issue?.path.join('.');
      throw new Error(
        `${source}: token #${i + 1} (${field ?? 'entry'}): ${issue?.message ?? 'malformed'}; expected { "identity": "ops:alice", "permissions": ["read", "start"] }`,
      );
    }
    const { identity, approve, permissions } = caller.data as { identity: string; approve?: boolean; permissions?: Permission[] };
    if (approve === false && permissions?.includes('decide'))
      throw new Error(`${source}: token #${i + 1} (approve): "approve": false contradicts "decide" in its permissions; remove one`);
    return [token, { identity, permissions: permissionsOf({ permissions, approve }) }];
  });
  return TokenAuth.fromEntries(parsed);
}

/** Where token configuration may come from. */
export interface TokenSources {
  /** A JSON file (`--tokens <file>` or `DURABLE_AGENT_HTTP_TOKENS_FILE`). */
  file?: string;
  /** The JSON itself (`DURABLE_AGENT_HTTP_TOKENS`), when no file is given. */
  inline?: string;
}

/**
 * Token configuration from a file, else inline JSON.
 * @throws {Error} neither given, the file unreadable, or the configuration malformed (see {@link parseTokens}).
 */
export function loadTokens(sources: TokenSources): TokenAuth {
  if (sources.file) {
    let text: string;
    try {
      text = readFileSync(sources.file, 'utf8');
    } catch (err) {
      throw new Error(`cannot read the token file ${sources.file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, {
        cause: err,
      });
    }
    return parseTokens(text, `token file ${sources.file}`);
  }
  if (sources.inline?.trim()) return parseTokens(sources.inline, 'DURABLE_AGENT_HTTP_TOKENS');
  throw new Error(
    'no bearer tokens configured: pass --tokens <file.json> (or set DURABLE_AGENT_HTTP_TOKENS_FILE, or DURABLE_AGENT_HTTP_TOKENS to the JSON)',
  );
}

/** Variables the auth middleware sets on the request context. */
export interface AuthVariables {
  caller: Caller;
}

/**
 * Middleware refusing requests without a known bearer token (401, with `WWW-Authenticate: Bearer`) and
 * setting `c.var.caller` for the others.
 */
export function requireToken(auth: TokenAuth): MiddlewareHandler<{ Variables: AuthVariables }> {
  return async (c, next) => {
    const header = c.req.header('Authorization');
    const caller = auth.caller(header);
    if (!caller) {
      c.header('WWW-Authenticate', 'Bearer');
      throw new HttpError(
        401,
        'unauthorized',
        header ? 'the bearer token is not valid' : 'missing bearer token: send Authorization: Bearer <token>',
        'Authorization',
      );
    }
    c.set('caller', caller);
    await next();
  };
}

/**
 * Check that the caller holds `permission`.
 * @throws {HttpError} 403 `forbidden` naming the missing permission; nothing is done.
 */
export function requirePermission(caller: Caller, permission: Permission, doing: string): void {
  if (!holds(caller, permission)) {
    throw new HttpError(
      403,
      'forbidden',
      `"${caller.identity}" may not ${doing}: its token lacks the "${permission}" permission`,
      undefined,
      permission,
    );
  }
}
