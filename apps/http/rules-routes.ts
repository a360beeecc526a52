/**
 * The standing approval rules over HTTP (`client.rules`): read them with `read`; change them with `rules`
 * — and the token's identity must also be one of the rules entity's editors (the entity checks; a
 * refusal is 403 `rule_refused`). The maker of a change is the token's identity, never the body's.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { AgentClient, RuleChangeOptions, RuleInput } from '../../src/entry/client';
import type { AuthVariables } from './auth';
import type { Permission } from './permissions';
import { checkId, checkSeq, EditorsBody, parseBody, RuleBody } from './validation';

type Need = (permission: Permission, doing: string) => MiddlewareHandler<{ Variables: AuthVariables }>;

const BY_REFUSED = { by: 'the maker of a change is the identity of your token: remove "by" from the body' };

/** Who changes, and how: `http`, or `console` when the console says so in its header. */
function changeOf(
  c: Context<{ Variables: AuthVariables }>,
  extra: { reason?: string | undefined; expectedVersion?: number | undefined },
): RuleChangeOptions {
  return {
    by: c.var.caller.identity,
    path: c.req.header('x-durable-agent-client') === 'console' ? 'console' : 'http',
    ...(extra.reason !== undefined ? { reason: extra.reason } : {}),
    ...(extra.expectedVersion !== undefined ? { expectedVersion: extra.expectedVersion } : {}),
  };
}

/** Adds `GET /rules`, `GET /rules/history`, `POST /rules`, `PUT /rules/:id`, `DELETE /rules/:id` and `PUT /rules/editors`. */
export function addRulesRoutes(app: Hono<{ Variables: AuthVariables }>, client: AgentClient, need: Need): void {
  const read = need('read', 'read the approval rules');
  const change = need('rules', 'change the approval rules');
  app.get('/rules', read, async (c) => c.json(await client.rules.list()));
  app.get('/rules/history', read, async (c) => {
    const after = c.req.query('after');
    return c.json({ changes: await client.rules.history(after !== undefined ? checkSeq(after, 'after') : undefined) });
  });
  app.post('/rules', change, async (c) => {
    const { expectedVersion, ...rule } = await parseBody(c, RuleBody, BY_REFUSED);
    // `when` is checked by the rules entity (the condition parser and its limits).
    return c.json(await client.rules.put(rule as RuleInput, changeOf(c, { reason: rule.reason, expectedVersion })), 201);
  });
  app.put('/rules/editors', change, async (c) => {
    const { editors, reason, expectedVersion } = await parseBody(c, EditorsBody, BY_REFUSED);
    return c.json(await client.rules.setEditors(editors, changeOf(c, { reason, expectedVersion })));
  });
  app.put('/rules/:id', change, async (c) => {
    const id = checkId(c.req.param('id'), 'id');
    const { expectedVersion, ...rule } = await parseBody(c, RuleBody, BY_REFUSED);
    return c.json(await client.rules.put({ ...(rule as RuleInput), id }, changeOf(c, { reason: rule.reason, expectedVersion })));
  });
  app.delete('/rules/:id', change, async (c) => {
    const id = checkId(c.req.param('id'), 'id');
    const version = c.req.query('expectedVersion');
    const expectedVersion = version !== undefined ? checkSeq(version, 'expectedVersion') : undefined;
    return c.json(await client.rules.remove(id, changeOf(c, { reason: c.req.query('reason'), expectedVersion })));
  });
}
