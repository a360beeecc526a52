/**
 * What the API accepts: ids in paths, cursors, and the JSON bodies of its POST routes, checked with zod
 * before anything reaches a run. A refusal names the field at fault.
 */
import { msToNumber } from '@temporalio/common';
import type { Context } from 'hono';
import { z } from 'zod';
import type { RunFilter, RunPolicy } from '../../src/entry/client';
import { MAX_RUNS_LIMIT, policyValueProblem } from '../../src/entry/client';
import { HttpError } from './errors';

/** Ids (workflow ids, call ids): 1 to 255 characters, none of them whitespace or a control character. */
const ID = /^[^\s\p{Cc}]{1,255}$/u;

/**
 * `value` checked as an id.
 * @throws {HttpError} 400 naming `field`.
 */
export function checkId(value: string, field: string): string {
  if (!ID.test(value))
    throw new HttpError(400, 'invalid_request', `${field} must be 1 to 255 characters without whitespace or control characters`, field);
  return value;
}

/**
 * A durable-event cursor (`?after=` or `Last-Event-ID`): the `seq` of the last event the caller has.
 * @throws {HttpError} 400 naming `field`.
 */
export function checkSeq(value: string, field: string): number {
  const n = Number(value);
  if (!/^\d{1,15}$/.test(value.trim()) || !Number.isSafeInteger(n))
    throw new HttpError(400, 'invalid_request', `${field} must be an event's seq (a non-negative integer)`, field);
  return n;
}

const id = z.string().regex(ID, 'must be 1 to 255 characters without whitespace or control characters');

const duration = z.union([z.string(), z.number()]).refine(
  (d) => {
    try {
      return msToNumber(d as Parameters<typeof msToNumber>[0]) > 0;
    } catch {
      return false;
    }
  },
  { message: "must be a positive duration: milliseconds, or a string such as '30m'" },
);

/** The body of `POST /runs`. */
export const StartBody = z
  .strictObject({
    agent: z.string().trim().min(1, 'must name the agent to run'),
    input: z.string().min(1, "must be the user's request").optional(),
    workflowId: id.optional(),
    maxSteps: z.number().int().positive().optional(),
    // A tool's value: allow | ask | deny, or entries on its arguments `[{ when?, action, id? }]` (checked like the workflow does).
    policy: z
      .record(z.string().min(1), z.unknown())
      .superRefine((policy, ctx) => {
        for (const [tool, value] of Object.entries(policy)) {
          const problem = policyValueProblem(tool, value);
          if (problem) ctx.addIssue({ code: 'custom', message: problem, path: [tool] });
        }
      })
      .transform((policy) => policy as RunPolicy)
      .optional(),
    budget: z
      .strictObject({
        maxTokens: z.number().int().positive().optional(),
        maxCostUsd: z.number().positive().optional(),
        timeout: duration.optional(),
        maxTurns: z.number().int().positive().optional(),
      })
      .optional(),
    session: z.union([z.boolean(), z.strictObject({ idleTimeout: duration.optional() })]).optional(),
  })
  .refine((b) => b.input !== undefined || (b.session !== undefined && b.session !== false), {
    message: "is required (the user's request): only a session may start without one",
    path: ['input'],
  });
/** A checked `POST /runs` body. */
export type StartBody = z.infer<typeof StartBody>;

/** The body of `POST /runs/:id/messages`. The sender is the caller's identity, never the body's. */
export const MessageBody = z.strictObject({
  text: z.string().refine((t) => t.trim().length > 0, 'must be a non-empty string'),
  /** Prompt layers to set with the message (`defineAgent({ layers })`), by name; `null` clears one. The run checks the names. */
  context: z.record(z.string(), z.string().nullable()).optional(),
});
/** A checked `POST /runs/:id/messages` body. */
export type MessageBody = z.infer<typeof MessageBody>;

/** The body of `POST /runs/:id/approvals/:callId`. The approver is the caller's identity, never the body's. */
export const DecisionBody = z.strictObject({
  decision: z.enum(['approve', 'deny', 'skip']),
  reason: z.string().max(2000).optional(),
  /** `session`/`agent`: also a standing rule (needs the `rules` permission, and an editor). */
  scope: z.enum(['call', 'tool', 'run', 'session', 'agent']).optional(),
  /** With scope `run`, `session` or `agent`: every later call of the tool, or only those with the same arguments. */
  match: z.enum(['tool', 'args']).optional(),
  /** With scope `session` or `agent`: the standing rule ends after this long (e.g. `'8h'`). */
  for: duration.optional(),
  extendBy: z.number().positive().optional(),
});
/** A checked decision body. */
export type DecisionBody = z.infer<typeof DecisionBody>;

/** `POST /runs/:id/approvals/:callId/defer`: until when (ISO date-time), and why. */
export const DeferBody = z.strictObject({
  until: z.iso.datetime({ offset: true }),
  reason: z.string().max(2000).optional(),
});
/** A checked defer body. */
export type DeferBody = z.infer<typeof DeferBody>;

/** `POST /runs/:id/approvals/:callId/delegate`: to whom, and why. */
export const DelegateBody = z.strictObject({
  to: z.string().trim().min(1).max(200),
  reason: z.string().max(2000).optional(),
});
/** A checked delegate body. */
export type DelegateBody = z.infer<typeof DelegateBody>;

/** The body of `POST /rules` and `PUT /rules/:id` (the id from the path): a standing rule; the rules entity checks `when` and the scope's fields. */
export const RuleBody = z.strictObject({
  scope: z.enum(['session', 'agent', 'namespace']),
  session: z.string().trim().min(1).max(200).optional(),
  agent: z.string().trim().min(1).max(200).optional(),
  tool: z.string().trim().min(1).max(200),
  /** A condition on the call's arguments (`Cond`, JSON). */
  when: z.json().optional(),
  action: z.enum(['allow', 'ask', 'deny']),
  until: z.iso.datetime({ offset: true }).optional(),
  reason: z.string().max(1000).optional(),
  /** Refuse the change (409 `rule_conflict`) unless the rules are at this version. */
  expectedVersion: z.number().int().nonnegative().optional(),
});
/** A checked rule body. */
export type RuleBody = z.infer<typeof RuleBody>;

/** The body of `PUT /rules/editors`: who may change the rules from now on. */
export const EditorsBody = z.strictObject({
  editors: z.array(z.string().trim().min(1).max(200)).min(1).max(100),
  reason: z.string().max(1000).optional(),
  expectedVersion: z.number().int().nonnegative().optional(),
});
/** A checked editors body. */
export type EditorsBody = z.infer<typeof EditorsBody>;

/** The first problem of a zod error as an API error naming its field. */
function fieldError(error: z.ZodError): HttpError {
  const issue = error.issues[0];
  if (!issue) return new HttpError(400, 'invalid_request', 'the body is malformed');
  if (issue.code === 'unrecognized_keys') {
    const field = [...issue.path.map(String), issue.keys[0] ?? ''].join('.');
    return new HttpError(400, 'invalid_request', `${field}: unknown field`, field);
  }
  const field = issue.path.map(String).join('.');
  if (!field) return new HttpError(400, 'invalid_request', `the body must be a JSON object: ${issue.message}`);
  return new HttpError(400, 'invalid_request', `${field}: ${issue.message}`, field);
}

/**
 * The request's JSON body checked against `schema`. Fields in `refused` (e.g. `by`, which comes from the
 * token) are refused with `why`.
 *
 * @throws {HttpError} 400 `invalid_json` for a body that is not JSON, 400 `invalid_request` naming the field.
 */
export async function parseBody<S extends z.ZodType>(c: Context, schema: S, refused: Record<string, string> = {}): Promise<z.infer<S>> {
  let body: unknown;
  try {
    body = JSON.parse(await c.req.text());
  } catch {
    throw new HttpError(400, 'invalid_json', 'the body must be JSON (Content-Type: application/json)');
  }
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    for (const [field, why] of Object.entries(refused)) {
      if (Object.prototype.hasOwnProperty.call(body, field)) throw new HttpError(400, 'invalid_request', `${field}: ${why}`, field);
    }
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw fieldError(parsed.error);
  return parsed.data;
}

/** Query parameters of `GET /runs`. */
const RUN_FILTER_PARAMS = ['agent', 'status', 'since', 'limit'] as const;

/**
 * The run filter of a `GET /runs` request's query (`agent`, `status`, `since`, `limit`); the client checks
 * the values (a bad one is its `RunFilterError`, answered 400 naming the parameter).
 * @throws {HttpError} 400 naming an unknown or repeated parameter, or a `limit` that is not a number.
 */
export function runFilterOf(c: Context): RunFilter {
  const query = c.req.queries();
  const filter: RunFilter = {};
  for (const [name, values] of Object.entries(query)) {
    if (!(RUN_FILTER_PARAMS as readonly string[]).includes(name)) {
      throw new HttpError(400, 'invalid_request', `${name}: unknown query parameter; use ${RUN_FILTER_PARAMS.join(', ')}`, name);
    }
    if (values.length !== 1) throw new HttpError(400, 'invalid_request', `${name}: give it once`, name);
  }
  const one = (name: (typeof RUN_FILTER_PARAMS)[number]) => query[name]?.[0];
  const agent = one('agent');
  const status = one('status');
  const since = one('since');
  const limit = one('limit');
  if (agent !== undefined) filter.agent = agent;
  if (status !== undefined) filter.status = status;
  if (since !== undefined) filter.since = since;
  if (limit !== undefined) {
    if (!/^\d{1,9}$/.test(limit))
      throw new HttpError(400, 'invalid_request', `limit "${limit}" must be a whole number from 1 to ${MAX_RUNS_LIMIT}`, 'limit');
    filter.limit = Number(limit);
  }
  return filter;
}
