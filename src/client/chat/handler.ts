/**
 * The server side of `useChat` over a durable session: a Web-standard `(request: Request) => Promise<Response>`
 * handler (a Next.js route handler, a Hono route, Express through an adapter) speaking the AI SDK's UI
 * message stream protocol.
 *
 * | Route                          | Does                                                                                   |
 * |--------------------------------|----------------------------------------------------------------------------------------|
 * | `POST {base}`                  | send the user's message to the chat's session (send-or-start) and stream the answer; or decide the approvals the user answered and stream the continuation |
 * | `GET {base}/{chatId}/stream`   | 204 when no turn is in progress; else the turn from its start, live (`?after=<cursor>`: only what follows; `?wait=decision`: while the turn waits for a person, wait (up to 25 s, then 204 with `x-durable-chat-waiting: 1`) for a decision, then the turn from its start — also when it was decided, or answered, before the request came) |
 * | `GET {base}/{chatId}/messages` | `{ messages }`: the conversation as UI messages (an unknown chat: none)                |
 *
 * Every route needs an identity (`identify`, else 401). A chat's session belongs to who started it: its
 * workflow id is derived from the chat id and the owner (`sessionId`), and its `startedBy` memo is checked
 * too, so another identity reaches nothing (404, nothing sent to the run).
 */
import type { Duration } from '@temporalio/common';
import { STARTED_BY_MEMO } from '../../core/run/definition';
import { RUN_STATUS } from '../../workflows/search-attributes';
import { parseCursor } from '../../core/chat/cursor';
import { chatHistory, lastTurnStatus } from '../../core/chat/history';
import type { CursoredChunk } from '../../core/chat/ui-message-chunks';
import type { AgentEvent } from '../../core/events/events';
import type { AnyAgent } from '../../agents/define';
import { DurableAgentError } from '../../core/run/errors';
import type { AgentClient, RunOptions } from '../index';
import type { AgentRun } from '../run';
import { ApprovalRefusedError, MessageRefusedError, NoWorkerError, RunEndedError, RunNotFoundError } from '../errors';
import { sleep } from '../abortable';
import { ChatRequestError, CHAT_ID_PATTERN, MAX_CHAT_BODY_BYTES, parseChatRequest } from './request';
import { sseStream, UI_MESSAGE_STREAM_HEADERS } from './sse';
import { allEvents, turnChunks } from './turn-stream';

/** Who is asking (from the host app's own authentication). */
export interface ChatIdentity {
  /** A stable identity such as `user:42`: the owner of the chats it starts and the approver of its decisions. */
  identity: string;
}

/** What a request is about, for the hooks. */
export interface ChatRequestContext {
  request: Request;
  identity: string;
  chatId: string;
}

/** Run options of a chat's session, chosen per request (when its first message starts it). */
export type ChatRunOptions = Omit<RunOptions, 'workflowId' | 'startedBy'> & {
  /** End the session after this long without a message (e.g. `'1h'`). */
  idleTimeout?: Duration;
};

/** Options of {@link createChatHandler}. */
export interface ChatHandlerOptions {
  /** Talks to Temporal (the handler never closes it). */
  client: AgentClient;
  /**
   * The agent answering a chat's first message: its definition or name, or a function choosing it per
   * request (it gets the POST body, e.g. an `agent` field the page sends as the transport's `body`).
   */
  agent: AnyAgent | string | ((ctx: ChatRequestContext & { body: unknown }) => AnyAgent | string | Promise<AnyAgent | string>);
  /**
   * May `identity` do `action` (`read` a chat, `send` a message, `decide` approvals)? Return why not (403
   * naming it), or undefined. Default: every identity may do all three (on its own chats).
   */
  authorize?: (ctx: ChatRequestContext & { action: ChatAction }) => string | undefined | Promise<string | undefined>;
  /** The identity of a request (the host app's session, cookie, token…); null: 401. */
  identify: (request: Request) => ChatIdentity | null | Promise<ChatIdentity | null>;
  /** Where the routes live. Default `/api/chat`. */
  basePath?: string;
  /**
   * The session's workflow id for a chat. Default `chat:<identity, URI-encoded>:<chatId>`: scoped by owner, so two
   * identities never share a session, whatever ids they pick.
   */
  sessionId?: (ctx: { chatId: string; identity: string }) => string;
  /** May `identity` use a chat `owner` started? Default: only the owner. */
  mayAccess?: (ctx: ChatRequestContext & { owner: string }) => boolean | Promise<boolean>;
  /** Options of a session a message starts: policy, budget, idle timeout… */
  runOptions?: (ctx: ChatRequestContext) => ChatRunOptions | Promise<ChatRunOptions>;
  /** Failures that are the server's own (answered 500 with a generic message). Default `console.error`. */
  onError?: (err: unknown) => void;
}

/** What a chat request does, for {@link ChatHandlerOptions.authorize}. */
export type ChatAction = 'read' | 'send' | 'decide';

/** A Web-standard request handler. */
export type ChatHandler = (request: Request) => Promise<Response>;

/** Header of a 204 answering `?wait=decision` when the turn still waits for a person (ask again). */
export const STILL_WAITING_HEADER = 'x-durable-chat-waiting';

/** How long `?wait=decision` holds a request for a decision before answering 204 (ask again). */
export const DECISION_WAIT_MS = 25_000;

class HttpFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } });
}

/** The default session id of a chat: scoped by its owner. */
export function defaultChatSessionId({ chatId, identity }: { chatId: string; identity: string }): string {
  // The identity encoded (no ":" left in it), so that no two (identity, chat id) pairs give one id.
  return `chat:${encodeURIComponent(identity)}:${chatId}`;
}

/**
 * Make the chat handler (see the module comment for its routes).
 *
 * @example
 * ```ts
 * // app/api/chat/[[...path]]/route.ts (Next.js)
 * const handler = createChatHandler({ client, agent: 'assistant', identify: async (req) => ({ identity: await userOf(req) }) });
 * export { handler as GET, handler as POST };
 * ```
 */
export function createChatHandler(options: ChatHandlerOptions): ChatHandler {
  const base = (options.basePath ?? '/api/chat').replace(/\/+$/, '');
  if (typeof options.agent !== 'function' && typeof (typeof options.agent === 'string' ? options.agent : options.agent?.name) !== 'string')
    throw new DurableAgentError(
      'invalid_input',
      'createChatHandler(options): options.agent must be an agent definition, a name or a function choosing one',
    );
  /** The name of the agent answering this request. */
  async function agentNameOf(ctx: ChatRequestContext & { body: unknown }): Promise<string> {
    const agent = typeof options.agent === 'function' ? await options.agent(ctx) : (options.agent as AnyAgent | string);
    const name = typeof agent === 'string' ? agent : agent?.name;
    if (typeof name !== 'string' || !name.trim())
      throw new HttpFailure(400, 'invalid_request', 'agent: name the agent that answers this chat', { field: 'agent' });
    return name;
  }
  async function authorized(request: Request, identity: string, chatId: string, action: ChatAction): Promise<void> {
    const why = options.authorize ? await options.authorize({ request, identity, chatId, action }) : undefined;
    if (why) throw new HttpFailure(403, 'forbidden', why, { action });
  }
  const sessionOf = options.sessionId ?? defaultChatSessionId;
  const report = options.onError ?? ((err: unknown) => console.error(err));

  /** The chat's run for `identity`, and whether it exists and runs; 404 when it is someone else's. */
  async function access(
    request: Request,
    identity: string,
    chatId: string,
  ): Promise<{ run: AgentRun; exists: boolean; running: boolean; idle?: boolean }> {
    const run = options.client.get(sessionOf({ chatId, identity })) as unknown as AgentRun;
    let d;
    try {
      d = await run.handle.describe();
    } catch (err) {
      if ((err as { name?: string }).name === 'WorkflowNotFoundError') return { run, exists: false, running: false };
      throw err;
    }
    const owner = d.memo?.[STARTED_BY_MEMO];
    if (owner !== identity) {
      const allowed =
        typeof owner === 'string' && options.mayAccess ? await options.mayAccess({ request, identity, chatId, owner }) : false;
      if (!allowed) throw new HttpFailure(404, 'not_found', `no chat "${chatId}"`);
    }
    // A session waiting for a message with nothing new to process: idle, known without asking a worker.
    const idle = d.typedSearchAttributes.get(RUN_STATUS) === 'awaiting_message' && !d.raw.pendingWorkflowTask;
    return { run, exists: true, running: d.status.name === 'RUNNING', idle };
  }

  function stream(chunks: AsyncIterable<CursoredChunk>, stop: AbortController): Response {
    const body = sseStream(chunks, stop, (err) => {
      report(err);
      return 'the stream failed';
    });
    return new Response(body, { status: 200, headers: UI_MESSAGE_STREAM_HEADERS });
  }

  async function post(request: Request, identity: string): Promise<Response> {
    const length = Number(request.headers.get('content-length') ?? '0');
    if (length > MAX_CHAT_BODY_BYTES) throw new HttpFailure(413, 'too_large', `the body is larger than ${MAX_CHAT_BODY_BYTES} bytes`);
    const text = await request.text();
    if (text.length > MAX_CHAT_BODY_BYTES) throw new HttpFailure(413, 'too_large', `the body is larger than ${MAX_CHAT_BODY_BYTES} bytes`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new HttpFailure(400, 'invalid_request', 'the body must be JSON', { field: 'body' });
    }
    const req = parseChatRequest(body);
    await authorized(request, identity, req.chatId, req.kind === 'message' ? 'send' : 'decide');
    const { run, exists, running } = await access(request, identity, req.chatId);
    const stop = new AbortController();
    request.signal?.addEventListener('abort', () => stop.abort(), { once: true });
    if (req.kind === 'message') {
      const from = running ? await eventCount(run) : 0;
      const ctx = { request, identity, chatId: req.chatId };
      const runOptions = options.runOptions ? await options.runOptions(ctx) : {};
      const agent = await agentNameOf({ ...ctx, body });
      const message = { text: req.text, by: identity, ...(req.messageId ? { id: req.messageId } : {}) };
      await options.client.send(run.workflowId, message, { ...runOptions, agent, startedBy: identity });
      return stream(turnChunks(run, req.chatId, { locate: { ...message, from } }, stop.signal), stop);
    }
    if (!exists || !running) throw new HttpFailure(409, 'not_waiting', `chat "${req.chatId}" has no run waiting for a decision`);
    const status = lastTurnStatus(req.chatId, await allEvents(run));
    const pause = status.lastPause ? parseCursor(status.lastPause) : undefined;
    if (!status.turn || !pause) throw new HttpFailure(409, 'not_waiting', `chat "${req.chatId}" has no call waiting for a decision`);
    for (const d of req.decisions) {
      try {
        await run.decide({
          callId: d.callId,
          decision: d.approved ? 'approve' : 'deny',
          by: identity,
          path: 'chat',
          ...(d.reason ? { reason: d.reason } : {}),
        });
      } catch (err) {
        if (err instanceof ApprovalRefusedError)
          throw new HttpFailure(403, 'approval_refused', `the decision on call "${d.callId}" was refused: ${err.message}`, {
            callId: d.callId,
          });
        throw err;
      }
    }
    return stream(turnChunks(run, req.chatId, { turnStart: status.turn.start, after: pause }, stop.signal), stop);
  }

  async function getStream(request: Request, identity: string, chatId: string, url: URL): Promise<Response> {
    const { run, running, idle } = await access(request, identity, chatId);
    const stop = new AbortController();
    request.signal?.addEventListener('abort', () => stop.abort(), { once: true });
    const afterText = url.searchParams.get('after');
    if (afterText !== null) {
      const after = parseCursor(afterText);
      if (!after) throw new HttpFailure(400, 'invalid_request', 'after: not a cursor of this chat', { field: 'after' });
      if (
        !(await run.handle.describe().then(
          () => true,
          () => false,
        ))
      )
        return new Response(null, { status: 204 });
      return stream(turnChunks(run, chatId, { turnStart: after.turnStart, after }, stop.signal), stop);
    }
    const waitForDecision = url.searchParams.get('wait') === 'decision';
    if (!running || (idle && !waitForDecision)) return new Response(null, { status: 204 });
    let status = lastTurnStatus(chatId, await eventsOrUnavailable(run, request.signal));
    if (waitForDecision) {
      // Wait for a decision (made anywhere), then replay the turn, which goes on from there.
      const deadline = Date.now() + DECISION_WAIT_MS;
      while (status.state === 'paused' && Date.now() < deadline && !request.signal?.aborted) {
        await sleep(300, request.signal);
        status = lastTurnStatus(chatId, await allEvents(run, request.signal));
      }
      if (status.state === 'paused') return new Response(null, { status: 204, headers: { [STILL_WAITING_HEADER]: '1' } });
      // Decided (and maybe answered) before this request came: the page still shows the paused turn, so replay it.
      const decidedTurn = status.state === 'running' || (status.state === 'answered' && status.lastPause !== undefined);
      if (!decidedTurn || !status.turn) return new Response(null, { status: 204 });
      return stream(turnChunks(run, chatId, { turnStart: status.turn.start }, stop.signal), stop);
    }
    if (status.state !== 'running' || !status.turn) return new Response(null, { status: 204 });
    return stream(turnChunks(run, chatId, { turnStart: status.turn.start }, stop.signal), stop);
  }

  async function getMessages(request: Request, identity: string, chatId: string): Promise<Response> {
    const { run, exists } = await access(request, identity, chatId);
    if (!exists) return json(200, { messages: [] });
    return json(200, { messages: chatHistory(chatId, await allEvents(run, request.signal)) });
  }

  return async (request: Request): Promise<Response> => {
    try {
      const url = new URL(request.url);
      const path = url.pathname.replace(/\/+$/, '');
      if (path !== base && !path.startsWith(`${base}/`))
        throw new HttpFailure(404, 'not_found', `no route ${request.method} ${url.pathname}`);
      const rest = path.slice(base.length);
      const who = await options.identify(request);
      if (!who || typeof who.identity !== 'string' || !who.identity.trim()) throw new HttpFailure(401, 'unauthorized', 'sign in first');
      const identity = who.identity.trim();
      if (rest === '' && request.method === 'POST') return await post(request, identity);
      const m = /^\/([^/]+)\/(stream|messages)$/.exec(rest);
      if (m && request.method === 'GET') {
        const chatId = safeDecode(m[1]!);
        if (!CHAT_ID_PATTERN.test(chatId)) throw new HttpFailure(400, 'invalid_request', 'chatId: not a chat id', { field: 'chatId' });
        await authorized(request, identity, chatId, 'read');
        return m[2] === 'stream' ? await getStream(request, identity, chatId, url) : await getMessages(request, identity, chatId);
      }
      throw new HttpFailure(
        m || rest === '' ? 405 : 404,
        m || rest === '' ? 'method_not_allowed' : 'not_found',
        `no route ${request.method} ${url.pathname}`,
      );
    } catch (err) {
      if (err instanceof HttpFailure) return json(err.status, { error: err.code, message: err.message, ...err.extra });
      if (err instanceof ChatRequestError) return json(400, { error: 'invalid_request', field: err.field, message: err.message });
      if (err instanceof MessageRefusedError) return json(409, { error: 'message_refused', message: err.message });
      if (err instanceof RunEndedError) return json(409, { error: 'run_ended', message: err.message });
      if (err instanceof RunNotFoundError) return json(404, { error: 'not_found', message: 'no such chat' });
      if (err instanceof NoWorkerError)
        return json(503, { error: 'no_worker', message: "no worker is running for this chat's agent: try again shortly" });
      if (err instanceof DurableAgentError && err.code === 'invalid_input')
        return json(400, { error: 'invalid_request', message: err.message });
      report(err);
      return json(500, { error: 'internal', message: 'internal error' });
    }
  };
}

/** The run's events; a run whose worker does not answer (it is down) is a 503 `no_worker`, to ask again. */
async function eventsOrUnavailable(run: AgentRun, signal: AbortSignal | undefined): Promise<AgentEvent[]> {
  try {
    return await allEvents(run, signal);
  } catch (err) {
    if (err instanceof RunNotFoundError || err instanceof HttpFailure) throw err;
    throw new HttpFailure(503, 'no_worker', "no worker answers for this chat's session: try again shortly");
  }
}

/** A path segment decoded; a malformed one stays as it is (and fails the chat id check). */
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** How many events the run has logged (its next `seq`); 0 when no worker answers within 3 s. */
async function eventCount(run: AgentRun): Promise<number> {
  const stop = new AbortController();
  try {
    const asked = run.snapshot().then(
      (s) => s.events,
      () => 0,
    );
    return await Promise.race([asked, sleep(3_000, stop.signal).then(() => 0)]);
  } finally {
    stop.abort();
  }
}
