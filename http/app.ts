/**
 * The HTTP API's routes, on Hono, built on the public client API only (`AgentClient`, `AgentRun`). Every
 * data route needs a bearer token; every error is JSON naming what was wrong (see `errors.ts`).
 *
 * | Route                                  | Does                                                             |
 * |----------------------------------------|------------------------------------------------------------------|
 * | `POST /runs`                           | start a run → 201 `{ workflowId, runId }`                        |
 * | `GET /runs/:id`                        | its snapshot (and result once it has ended)                     |
 * | `GET /runs/:id/events`                 | its stream as server-sent events (resumable: `Last-Event-ID`)   |
 * | `POST /runs/:id/messages`              | send it a message `{ text }` → the inbox receipt                 |
 * | `POST /runs/:id/cancel`                | request its cancellation → 202                                   |
 * | `GET /me`                              | the caller: `{ identity, approve }`                              |
 * | `GET /runs?agent=&status=&since=&limit=`| agent runs, newest first → `{ runs: ListedRun[] }`              |
 * | `GET /runs/:id/report`                 | its report once ended, else what its snapshot tells              |
 * | `GET /approvals`                       | every tool call waiting for a person, across runs, with context  |
 * | `GET /approvals/events`                | the same inbox, live, as server-sent `inbox` events             |
 * | `GET /`, `GET /console/*`              | the web console's files (no token needed: they hold no data)     |
 * | `POST /runs/:id/approvals/:callId`     | decide one `{ decision, reason?, scope?, extendBy? }` → receipt  |
 * | `GET /metrics`                         | Prometheus gauges: approvals waiting and their age, runs by phase (no token with `metricsPublic`) |
 */
import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { Hono } from 'hono';
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { AgentClient, AgentRun, StartOptions } from '../client';
import { readRunReport, RunNotFoundError } from '../client';
import type { RunFilter } from '../client';
import type { AuthVariables, TokenAuth } from './auth';
import { approverOf, requireToken } from './auth';
import { HttpError, toHttpError } from './errors';
import { addConsoleRoutes, defaultConsoleDir } from './console-static';
import { ApprovalInbox, inboxFor, InboxPoller } from './inbox';
import { metricsResponse, ServeMetrics } from './metrics';
import { streamInbox } from './inbox-events';
import { StreamTracker, streamRun } from './sse';
import { checkId, checkSeq, DecisionBody, MessageBody, parseBody, runFilterOf, StartBody } from './validation';
import type { RunView } from '../core/run-views';

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
}

/** The API: its Hono app (mount it, or serve it with `serveHttpApi`) and its open event streams. */
export interface HttpApi {
  app: Hono<{ Variables: AuthVariables }>;
  streams: StreamTracker;
  /** The one poller of the approval inbox behind every `GET /approvals/events` stream. */
  inbox: InboxPoller;
}


/** The run's Temporal description; an unknown id is {@link RunNotFoundError}. */
async function describe(run: AgentRun): Promise<{ runId: string; status: string; running: boolean }> {
  try {
    const d = await run.handle.describe();
    return { runId: d.runId, status: d.status.name.toLowerCase(), running: d.status.name === 'RUNNING' };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new RunNotFoundError(run.workflowId, { cause: err });
    throw err;
  }
}

/**
 * The run, checked to be running (so that nothing is sent to a run that cannot take it).
 * @throws {HttpError} 404 unknown run, 409 ended.
 */
async function runningRun(client: AgentClient, id: string): Promise<AgentRun> {
  const run = client.get(id);
  const d = await describe(run);
  if (!d.running) throw new HttpError(409, 'run_ended', `run "${id}" has already ended (${d.status})`, 'id', d.status);
  return run;
}

/** The `POST /runs` body as client options. */
function startOptions(body: StartBody): StartOptions {
  const common = {
    ...(body.workflowId !== undefined ? { workflowId: body.workflowId } : {}),
    ...(body.maxSteps !== undefined ? { maxSteps: body.maxSteps } : {}),
    ...(body.policy !== undefined ? { policy: body.policy } : {}),
    ...(body.budget !== undefined ? { budget: body.budget } : {}),
  };
  if (body.session === undefined || body.session === false) return { ...common, input: body.input ?? '' };
  const session = body.session === true || body.session.idleTimeout === undefined ? true : { idleTimeout: body.session.idleTimeout };
  return { ...common, session, ...(body.input !== undefined ? { input: body.input } : {}) };
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

  // The console's files first: they answer without a token (the data routes below all need one).
  addConsoleRoutes(app, options.consoleDir ?? defaultConsoleDir());
  const metrics = new ServeMetrics(client);
  if (options.metricsPublic) app.get('/metrics', (c) => metricsResponse(c, metrics));
  app.use('*', requireToken(auth));
  if (!options.metricsPublic) app.get('/metrics', (c) => metricsResponse(c, metrics));
  app.use(
    '*',
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) => c.json(new HttpError(413, 'invalid_request', `the body must be at most ${MAX_BODY_BYTES} bytes`).body(), 413),
    }),
  );

  app.get('/me', (c) => c.json({ identity: c.var.caller.identity, approve: c.var.caller.approve }));

  app.get('/runs', async (c) => {
    const filter: RunFilter = runFilterOf(c);
    return c.json({ runs: await client.listRuns(filter) });
  });

  app.post('/runs', async (c) => {
    const body = await parseBody(c, StartBody);
    const run = await client.start(body.agent, startOptions(body));
    const { runId } = await describe(run);
    c.header('Location', `/runs/${encodeURIComponent(run.workflowId)}`);
    return c.json({ workflowId: run.workflowId, runId }, 201);
  });

  app.get('/runs/:id', async (c) => {
    const id = checkId(c.req.param('id'), 'id');
    const run = client.get(id);
    const d = await describe(run);
    const view: RunView = { workflowId: id, runId: d.runId, status: d.status };
    // A running run answers its snapshot through a worker: without one the query would wait, so the
    // answer goes without the snapshot after SNAPSHOT_WAIT_MS (Temporal's status still says where it is).
    const snapshot = run.snapshot();
    snapshot.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    try {
      const answered = await Promise.race([snapshot, new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), SNAPSHOT_WAIT_MS)))]);
      if (answered === 'late') view.note = `No worker answered within ${SNAPSHOT_WAIT_MS} ms: the snapshot is left out (is a worker running on the run's task queue?).`;
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

  app.get('/runs/:id/report', async (c) => {
    const id = checkId(c.req.param('id'), 'id');
    return c.json(await readRunReport(client.get(id), { snapshotWaitMs: SNAPSHOT_WAIT_MS }));
  });

  app.get('/runs/:id/events', async (c) => {
    const id = checkId(c.req.param('id'), 'id');
    const from = streamFrom(c);
    const run = client.get(id);
    await describe(run); // 404 before the stream begins
    return streamRun(c, run, from, streams, report);
  });

  app.post('/runs/:id/messages', async (c) => {
    const id = checkId(c.req.param('id'), 'id');
    const body = await parseBody(c, MessageBody, { by: 'the sender is the identity of your token: remove "by" from the body' });
    const run = await runningRun(client, id);
    return c.json(await run.send({ text: body.text, by: c.var.caller.identity }));
  });

  app.post('/runs/:id/cancel', async (c) => {
    const id = checkId(c.req.param('id'), 'id');
    const run = await runningRun(client, id);
    await run.cancel();
    return c.json({ workflowId: id, cancelRequested: true }, 202);
  });

  const approvals = new ApprovalInbox(client);
  const inbox = new InboxPoller(approvals, report);
  app.get('/approvals', async (c) => c.json(inboxFor(await approvals.read(), c.var.caller)));
  app.get('/approvals/events', (c) => streamInbox(c, c.var.caller, inbox, streams));

  app.post('/runs/:id/approvals/:callId', async (c) => {
    const id = checkId(c.req.param('id'), 'id');
    const callId = checkId(c.req.param('callId'), 'callId');
    const by = approverOf(c.var.caller);
    const body = await parseBody(c, DecisionBody, { by: 'the approver is the identity of your token: remove "by" from the body' });
    const run = await runningRun(client, id);
    return c.json(await run.decide({ callId, by, ...body }));
  });

  return { app, streams, inbox };
}
