/**
 * The HTTP API's routes, on Hono, built on the public client API only (`AgentClient`, `AgentRun`). Every
 * data route needs a bearer token; every error is JSON naming what was wrong (see `errors.ts`).
 *
 * | Route                                  | Does                                                             |
 * |----------------------------------------|------------------------------------------------------------------|
 * | `POST /runs`                           | start a run → 201 `{ workflowId, runId }`                        |
 * | `GET /runs/:id`                        | its snapshot (and result once it has ended)                     |
 * | `GET /runs/:id/events`                 | its stream as server-sent events (resumable: `Last-Event-ID`)   |
 * | `POST /runs/:id/messages`              | send it a message `{ text, context? }` → the inbox receipt       |
 * | `POST /runs/:id/end`                   | end a session once it has answered → 202                         |
 * | `POST /runs/:id/cancel`                | request its cancellation → 202                                   |
 * | `GET /me`                              | the caller: `{ identity, approve, permissions }` (any valid token) |
 * | `GET /runs?agent=&status=&since=&limit=`| agent runs, newest first → `{ runs: ListedRun[] }`              |
 * | `GET /runs/:id/report`                 | its report once ended, else what its snapshot tells              |
 * | `GET /approvals`                       | every tool call waiting for a person, across runs, with context  |
 * | `GET /approvals/events`                | the same inbox, live, as server-sent `inbox` events             |
 * | `GET /`, `GET /console/*`              | the web console's files (no token needed: they hold no data)     |
 * | `POST /runs/:id/approvals/:callId`     | decide one `{ decision, reason?, scope?, extendBy? }` → receipt  |
 * | `POST /runs/:id/approvals/:callId/defer` | defer one `{ until, reason? }` ("not now", `decide`) → receipt |
 * | `POST /runs/:id/approvals/:callId/delegate` | delegate one `{ to, reason? }` (`decide`) → receipt          |
 * | `GET /rules`, `GET /rules/history`     | the standing approval rules `{ version, rules, editors }`; their change log (`read`) |
 * | `POST /rules`, `PUT /rules/:id`, `DELETE /rules/:id`, `PUT /rules/editors` | change them (`rules`, and an editor) |
 * | `GET /metrics`                         | Prometheus gauges: approvals waiting and their age, runs by phase (no token with `metricsPublic`) |
 * | `POST /api/chat`                       | `useChat`'s chat (`durable-agent/chat`): send-or-start the chat's session and stream the answer (UI message stream); or decide the approvals answered in it |
 * | `GET /api/chat/:chatId/stream`         | the chat's turn in progress (204 when none; `?after=`, `?wait=decision`)                          |
 * | `GET /api/chat/:chatId/messages`       | the chat's messages `{ messages }` (UI messages)                                                  |
 *
 * Each data route needs a permission of the token (`permissions.ts`): `read` for the reads (runs, events,
 * reports, the inbox), `start`, `message` (messages and end) and `cancel` (on the caller's own runs unless `admin`), `decide`,
 * `metrics`; the chat routes: `read` to read a chat, `start` and `message` to send in one, `decide` to answer its
 * approvals — on the token identity's own chats (the agent: the body's `agent`, else the only agent of `agents`). A refusal is 403 `forbidden` with `missing: <permission>`, checked before anything is sent to
 * the run. Every answer carries the security headers (`security-headers.ts`).
 */
import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { Hono } from 'hono';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { AnyAgent } from '../../src/entry/client';
import type { AgentClient, AgentRun } from '../../src/entry/client';
import { readRunReport, RunNotFoundError } from '../../src/entry/client';
import type { RunFilter } from '../../src/entry/client';
import type { AuthVariables, Caller, TokenAuth } from './auth';
import { requirePermission, requireToken } from './auth';
import { holds, mayActOnRun } from './permissions';
import { addRulesRoutes } from './rules-routes';
import type { Permission } from './permissions';
import { securityHeaders } from './security-headers';
import { startOptions } from './start-options';
import { STARTED_BY_MEMO } from '../../src/entry/client';
import { createChatHandler } from '../../src/entry/chat';
import { HttpError, toHttpError } from './errors';
import { addConsoleRoutes, defaultConsoleDir } from './console-static';
import { ApprovalInbox, inboxFor, InboxPoller } from './approval-inbox';
import { metricsResponse, ServeMetrics } from './metrics';
import { streamInbox } from './inbox-events';
import { StreamTracker, streamRun } from './sse';
import { checkId, checkSeq, DecisionBody, DeferBody, DelegateBody, MessageBody, parseBody, runFilterOf, StartBody } from './validation';
import type { RunView } from '../../src/entry/client';

export type { RunView };

/** The largest request body accepted. */
const MAX_BODY_BYTES = 1024 * 1024;
/** How long `GET /runs/:id` waits for a worker to answer the snapshot of a running run. */
export const SNAPSHOT_WAIT_MS = 3_000;

/** Options of {@link createHttpApi}. */
export interface HttpApiOptions {
  /** Talks to Temporal; the API never closes it. */
  client: AgentClient;
  /** Who may call, and who may decide approvals. */
  auth: TokenAuth;
  /** Failures that are the server's own (answered 500 with a generic message). Default: `console.error`. */
  onError?: (err: unknown) => void;
  /** The folder of the web console's built files. Default: the package's `console/dist/`. */
  consoleDir?: string;
  /**
   * `GET /metrics` answers without a token (for a Prometheus that cannot send one). Default false: it
   * needs a token like every data route (Prometheus: `authorization: { credentials_file: … }`).
   */
  metricsPublic?: boolean;
  /**
   * Definitions of the agents runs are started for (`serve --agents`): a `POST /runs` body's `policy` is
   * checked against the agent's tools before the run starts (400 naming `policy.<key>`). Other agents'
   * runs check it themselves (they end `invalid_input`).
   */
  agents?: readonly AnyAgent[];
}

/** The API: its Hono app (mount it, or serve it with `serveHttpApi`) and its open event streams. */
export interface HttpApi {
  app: Hono<{ Variables: AuthVariables }>;
  streams: StreamTracker;
  /** The one poller of the approval inbox behind every `GET /approvals/events` stream. */
  inbox: InboxPoller;
}

/** The run's Temporal description and who started it (its memo); an unknown id is {@link RunNotFoundError}. */
async function describe(run: AgentRun): Promise<{ runId: string; status: string; running: boolean; startedBy: string | undefined }> {
  try {
    const d = await run.handle.describe();
    const startedBy = d.memo?.[STARTED_BY_MEMO];
    return {
      runId: d.runId,
      status: d.status.name.toLowerCase(),
      running: d.status.name === 'RUNNING',
      startedBy: typeof startedBy === 'string' ? startedBy : undefined,
    };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new RunNotFoundError(run.workflowId, { cause: err });
    throw err;
  }
}

/**
 * The run, checked to be running (so that nothing is sent to a run that cannot take it) and, when `own`
 * names a permission, to be the caller's own (it started it) unless the caller holds `admin`.
 * @throws {HttpError} 404 unknown run, 409 ended, 403 `missing: 'admin'` someone else's run.
 */
async function runningRun(client: AgentClient, id: string, caller?: Caller, own?: { doing: string }): Promise<AgentRun> {
  const run = client.get(id);
  const d = await describe(run);
  if (!d.running) throw new HttpError(409, 'run_ended', `run "${id}" has already ended (${d.status})`, 'id', undefined, d.status);
  if (caller && own && !mayActOnRun(caller, d.startedBy)) {
    const whose = d.startedBy === undefined ? 'no starter is recorded for it' : `it was started by "${d.startedBy}"`;
    throw new HttpError(
      403,
      'forbidden',
      `"${caller.identity}" may not ${own.doing} run "${id}": ${whose}, and only its starter or a token with the "admin" permission may`,
      'id',
      'admin',
    );
  }
  return run;
}

/** Middleware refusing callers without `permission` (403 naming it). */
function need(permission: Permission, doing: string): MiddlewareHandler<{ Variables: AuthVariables }> {
  return async (c, next) => {
    requirePermission(c.var.caller, permission, doing);
    await next();
  };
}

/** The durable-event cursor of an events request: `Last-Event-ID` (a reconnection) over `?after=`; the next seq to send. */
function streamFrom(c: Context): number {
  const lastId = c.req.header('Last-Event-ID');
  if (lastId !== undefined && lastId.trim() !== '') return checkSeq(lastId, 'Last-Event-ID') + 1;
  const after = c.req.query('after');
  if (after !== undefined) return checkSeq(after, 'after') + 1;
  return 0;
}

/**
 * The HTTP API over `client`, with bearer-token auth.
 *
 * @example
 * ```ts
 * const client = await AgentClient.connect();
 * const { app } = createHttpApi({ client, auth: loadTokens({ file: 'tokens.json' }) });
 * const server = await serveHttpApi(app, { port: 8080 });
 * ```
 */
export function createHttpApi(options: HttpApiOptions): HttpApi {
  const { client, auth } = options;
  const report = options.onError ?? ((err: unknown) => console.error('durable-agent http: internal error:', err));
  const streams = new StreamTracker();
  const app = new Hono<{ Variables: AuthVariables }>();

  app.onError((err, c) => {
    const error = toHttpError(err);
    if (error.code === 'internal') report(err);
    return c.json(error.body(), error.status);
  });
  app.notFound((c) => c.json(new HttpError(404, 'not_found', `no route ${c.req.method} ${c.req.path}`).body(), 404));

  app.use('*', securityHeaders());
  // The console's files first: they answer without a token (the data routes below all need one).
  addConsoleRoutes(app, options.consoleDir ?? defaultConsoleDir());
  const metrics = new ServeMetrics(client);
  if (options.metricsPublic) app.get('/metrics', (c) => metricsResponse(c, metrics));
  app.use('*', requireToken(auth));
  if (!options.metricsPublic) app.get('/metrics', need('metrics', 'read the metrics'), (c) => metricsResponse(c, metrics));
  app.use(
    '*',
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) => c.json(new HttpError(413, 'invalid_request', `the body must be at most ${MAX_BODY_BYTES} bytes`).body(), 413),
    }),
  );

  // The chat of `useChat` (durable-agent/chat), as the token's identity.
  const chatCallers = new WeakMap<Request, Caller>();
  const chat = createChatHandler({
    client,
    basePath: '/api/chat',
    agent: ({ body }) => {
      const named = (body as { agent?: unknown } | null)?.agent;
      if (typeof named === 'string' && named.trim()) return options.agents?.find((a) => a.name === named) ?? named;
      return options.agents?.length === 1 ? options.agents[0]! : '';
    },
    identify: (request) => {
      const caller = chatCallers.get(request);
      return caller ? { identity: caller.identity } : null;
    },
    authorize: ({ request, action }) => {
      const caller = chatCallers.get(request);
      const needs: Permission[] = action === 'read' ? ['read'] : action === 'send' ? ['start', 'message'] : ['decide'];
      const missing = needs.find((p) => !caller || !holds(caller, p));
      return missing
        ? `"${caller?.identity}" may not ${action === 'read' ? 'read' : action === 'send' ? 'send in' : 'decide in'} this chat: the token lacks the "${missing}" permission`
        : undefined;
    },
    mayAccess: ({ request }) => {
      const caller = chatCallers.get(request);
      return Boolean(caller && holds(caller, 'admin'));
    },
    onError: report,
  });
  const chatRoute = (c: Context<{ Variables: AuthVariables }>) => {
    chatCallers.set(c.req.raw, c.var.caller);
    return chat(c.req.raw);
  };
  app.post('/api/chat', chatRoute);
  app.get('/api/chat/:chatId/stream', chatRoute);
  app.get('/api/chat/:chatId/messages', chatRoute);

  app.get('/me', (c) => {
    const { identity, permissions } = c.var.caller;
    return c.json({ identity, approve: holds(c.var.caller, 'decide'), permissions });
  });

  const read = need('read', 'read runs');
  app.get('/runs', read, async (c) => {
    const filter: RunFilter = runFilterOf(c);
    return c.json({ runs: await client.listRuns(filter) });
  });

  app.post('/runs', need('start', 'start runs'), async (c) => {
    const body = await parseBody(c, StartBody);
    const definition = options.agents?.find((a) => a.name === body.agent);
    const opts = startOptions(body, c.var.caller);
    const run = definition ? await client.start(definition, opts) : await client.start(body.agent, opts);
    const { runId } = await describe(run);
    c.header('Location', `/runs/${encodeURIComponent(run.workflowId)}`);
    return c.json({ workflowId: run.workflowId, runId }, 201);
  });

  app.get('/runs/:id', read, async (c) => {
    const id = checkId(c.req.param('id'), 'id');
    const run = client.get(id);
    const d = await describe(run);
    const view: RunView = {
      workflowId: id,
      runId: d.runId,
      status: d.status,
      ...(d.startedBy !== undefined ? { startedBy: d.startedBy } : {}),
    };
    // A running run answers its snapshot through a worker: without one the query would wait, so the
    // answer goes without the snapshot after SNAPSHOT_WAIT_MS (Temporal's status still says where it is).
    const snapshot = run.snapshot();
    snapshot.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    try {
      const answered = await Promise.race([
        snapshot,
        new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), SNAPSHOT_WAIT_MS))),
      ]);
      if (answered === 'late')
        view.note = `No worker answered within ${SNAPSHOT_WAIT_MS} ms: the snapshot is left out (is a worker running on the run's task queue?).`;
      else view.snapshot = answered;
    } catch (err) {
      if (d.running) throw err;
    } finally {
      clearTimeout(timer);
    }
    if (!d.running) {
      try {
        view.result = await run.result();
      } catch (err) {
        if (!(err instanceof WorkflowFailedError)) throw err;
        view.failure = err.cause?.message ?? err.message;
      }
    }
    return c.json(view);
  });

  app.get('/runs/:id/report', read, async (c) => {
    const id = checkId(c.req.param('id'), 'id');
    return c.json(await readRunReport(client.get(id), { snapshotWaitMs: SNAPSHOT_WAIT_MS }));
  });

  app.get('/runs/:id/audit', read, async (c) => {
    const id = checkId(c.req.param('id'), 'id');
    const run = client.get(id);
    await describe(run); // 404 for an unknown run
    const children = c.req.query('children') === 'true';
    return c.json({ workflowId: id, records: await run.audit({ children }) });
  });

  app.get('/runs/:id/events', read, async (c) => {
    const id = checkId(c.req.param('id'), 'id');
    const from = streamFrom(c);
    const run = client.get(id);
    await describe(run); // 404 before the stream begins
    return streamRun(c, run, from, streams, report);
  });

  app.post('/runs/:id/messages', need('message', 'send messages'), async (c) => {
    const id = checkId(c.req.param('id'), 'id');
    const body = await parseBody(c, MessageBody, { by: 'the sender is the identity of your token: remove "by" from the body' });
    const run = await runningRun(client, id, c.var.caller, { doing: 'send messages to' });
    return c.json(await run.send({ text: body.text, by: c.var.caller.identity, ...(body.context ? { context: body.context } : {}) }));
  });

  app.post('/runs/:id/end', need('message', 'end sessions'), async (c) => {
    const id = checkId(c.req.param('id'), 'id');
    const run = await runningRun(client, id, c.var.caller, { doing: 'end' });
    await run.end();
    return c.json({ workflowId: id, endRequested: true }, 202);
  });

  app.post('/runs/:id/cancel', need('cancel', 'cancel runs'), async (c) => {
    const id = checkId(c.req.param('id'), 'id');
    const run = await runningRun(client, id, c.var.caller, { doing: 'cancel' });
    await run.cancel();
    return c.json({ workflowId: id, cancelRequested: true }, 202);
  });

  const approvals = new ApprovalInbox(client);
  const inbox = new InboxPoller(approvals, report);
  app.get('/approvals', read, async (c) => c.json(inboxFor(await approvals.read(), c.var.caller)));
  app.get('/approvals/events', read, (c) => streamInbox(c, c.var.caller, inbox, streams));

  app.post('/runs/:id/approvals/:callId', need('decide', 'decide approvals'), async (c) => {
    const id = checkId(c.req.param('id'), 'id');
    const callId = checkId(c.req.param('callId'), 'callId');
    const by = c.var.caller.identity;
    const body = await parseBody(c, DecisionBody, { by: 'the approver is the identity of your token: remove "by" from the body' });
    const run = await runningRun(client, id);
    // The console says so in a header (audit path `console`); any other caller is `http`.
    const path = c.req.header('x-durable-agent-client') === 'console' ? 'console' : 'http';
    return c.json(await run.decide({ callId, by, ...body, path }));
  });

  // Defer ("not now") and delegation: the sender is the token's identity; it must be allowed to decide the call.
  app.post('/runs/:id/approvals/:callId/defer', need('decide', 'defer approvals'), async (c) => {
    const id = checkId(c.req.param('id'), 'id');
    const callId = checkId(c.req.param('callId'), 'callId');
    const body = await parseBody(c, DeferBody, { by: 'the sender is the identity of your token: remove "by" from the body' });
    const run = await runningRun(client, id);
    return c.json(await run.defer({ callId, by: c.var.caller.identity, path: 'http', ...body }));
  });
  app.post('/runs/:id/approvals/:callId/delegate', need('decide', 'delegate approvals'), async (c) => {
    const id = checkId(c.req.param('id'), 'id');
    const callId = checkId(c.req.param('callId'), 'callId');
    const body = await parseBody(c, DelegateBody, { by: 'the sender is the identity of your token: remove "by" from the body' });
    const run = await runningRun(client, id);
    return c.json(await run.delegate({ callId, by: c.var.caller.identity, path: 'http', ...body }));
  });

  addRulesRoutes(app, client, need);

  return { app, streams, inbox };
}
