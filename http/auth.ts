/**
 * Who is calling: bearer tokens from configuration, each naming an identity and whether it may decide
 * approvals. Tokens are kept only as SHA-256 digests once loaded, and never appear in a message or a log.
 *
 * The configuration is JSON:
 * ```json
 * { "tokens": { "<token>": { "identity": "ops:alice", "approve": true },
 *               "<another token>": { "identity": "dashboard" } } }
 * ```
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { MiddlewareHandler } from 'hono';
import { z } from 'zod';
import { HttpError } from './errors';

/** The shortest token accepted: shorter ones are too easy to guess. */
export const MIN_TOKEN_LENGTH = 16;

/** What a token stands for. */
export interface Caller {
  /** Who calls, e.g. `ops:alice`: the approver of its decisions and the sender of its messages. */
  identity: string;
  /** May it decide approvals (`POST /runs/:id/approvals/:callId`)? */
  approve: boolean;
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
    if (token.length < MIN_TOKEN_LENGTH || /\s/.test(token)) throw new Error(`${source}: token #${i + 1} must be at least ${MIN_TOKEN_LENGTH} characters, without whitespace`);
    const caller = CallerSchema.safeParse(value);
    if (!caller.success) {
      const issue = caller.error.issues[0];
      const field = issue?.code === 'unrecognized_keys' ? issue.keys[0] : issue?.path.join('.');
      throw new Error(`${source}: token #${i + 1} (${field ?? 'entry'}): ${issue?.message ?? 'malformed'}; expected { "identity": "ops:alice", "approve": true }`);
    }
    return [token, { identity: caller.data.identity, approve: caller.data.approve ?? false }];
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
      throw new Error(`cannot read the token file ${sources.file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err });
    }
    return parseTokens(text, `token file ${sources.file}`);
  }
  if (sources.inline?.trim()) return parseTokens(sources.inline, 'DURABLE_AGENT_HTTP_TOKENS');
  throw new Error('no bearer tokens configured: pass --tokens <file.json> (or set DURABLE_AGENT_HTTP_TOKENS_FILE, or DURABLE_AGENT_HTTP_TOKENS to the JSON)');
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
      throw new HttpError(401, 'unauthorized', header ? 'the bearer token is not valid' : 'missing bearer token: send Authorization: Bearer <token>', 'Authorization');
    }
    c.set('caller', caller);
    await next();
  };
}

/**
 * The caller, checked to be allowed to decide approvals.
 * @throws {HttpError} 403 when its token may not approve.
 */
export function approverOf(caller: Caller): string {
  if (!caller.approve) throw new HttpError(403, 'forbidden', `"${caller.identity}" may not decide approvals (its token has no "approve": true)`);
  return caller.identity;
}
