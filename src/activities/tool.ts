import { hostname } from 'node:os';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { z } from 'zod';
import type { RunToolInput, RunToolOutput, ToolFailureDetails } from '../core/run/contract';
import { jsonBytes, preview, utf8Bytes } from '../core/messages/json';
import type { ToolOutput } from '../core/messages/messages';
import type { AgentRegistry } from '../agents/registry';
import { ToolError } from '../agents/define';
import { MAX_TOOL_ACTIVITY_RESULT_BYTES, MAX_TOOL_RESULT_INLINE_BYTES } from '../agents/limits';
import type { TranscriptStore } from '../integrations/store/transcript-store';
import type { ClaimStore } from '../integrations/store/blob-store';
import { errorMessage, keepAlive } from './heartbeat';
import type { LiveOptions } from './model';
import { ToolLive } from './tool-live';
import { withStore } from './storage';
import type { RedactorSource } from './redaction';
import { NO_SECRETS } from './redaction';
import type { McpCatalog } from '../integrations/mcp/tools';
import { mcpToolOf } from '../integrations/mcp/activity';
import { fenceUntrusted } from '../core/tool-calls/fence';
import type { ToolHookContext } from '../agents/hooks';
import { afterToolCall, beforeToolCall } from '../agents/hooks';
import type { ToolHookNote } from '../core/tool-calls/tool-hooks';
import { ToolAttemptNotes } from './tool-attempt';
import { toolLayers } from './prompt-layers';

/**
 * Render a tool's return value as the text the model reads: strings as they are, anything else as
 * indented JSON.
 *
 * @throws {@link UnrepresentableValueError} for a value JSON would silently turn into something else
 * (`undefined` returned, a Symbol, a function, NaN or ±Infinity, a Map, Set, WeakMap, WeakSet or
 * Promise anywhere in it); what `JSON.stringify` throws for a value JSON cannot encode (a BigInt, a
 * circular object) or too large for a string. {@link recordToolValue} turns either into a reason.
 */
export function renderToolValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) throw new UnrepresentableValueError('it returned undefined (no value)');
  return JSON.stringify(value, faithful, 2);
}

/** A tool value JSON cannot represent faithfully; the message says what and where. */
export class UnrepresentableValueError extends Error {
  override name = 'UnrepresentableValueError';
}

/** What JSON would silently drop or change, by its name; undefined for a value JSON keeps as it is. */
function lossyKind(value: unknown): string | undefined {
  switch (typeof value) {
    case 'symbol':
      return `a Symbol (${String(value)})`;
    case 'function':
      return 'a function';
    case 'number':
      return Number.isFinite(value) ? undefined : `the number ${String(value)}`;
    case 'object':
      if (value instanceof Map) return 'a Map';
      if (value instanceof Set) return 'a Set';
      if (value instanceof WeakMap) return 'a WeakMap';
      if (value instanceof WeakSet) return 'a WeakSet';
      if (value instanceof Promise) return 'a Promise (not awaited)';
      return undefined;
    default:
      return undefined;
  }
}

/** `JSON.stringify` replacer that refuses what JSON would silently drop or change (see {@link lossyKind}). */
function faithful(this: unknown, key: string, value: unknown): unknown {
  const kind = lossyKind(value);
  if (kind === undefined) return value;
  const where =
    key === '' ? 'it is' : Array.isArray(this) ? `it contains, at index ${key},` : `it contains, under the key ${JSON.stringify(key)},`;
  throw new UnrepresentableValueError(`${where} ${kind}, which JSON cannot represent`);
}

/** The text of a tool's return value, or why it cannot be recorded. Never throws. */
export function recordToolValue(value: unknown): { ok: true; text: string } | { ok: false; reason: string } {
  try {
    return { ok: true, text: renderToolValue(value) };
  } catch (err) {
    return { ok: false, reason: err instanceof UnrepresentableValueError ? err.message : unrecordableReason(err) };
  }
}

function unrecordableReason(err: unknown): string {
  const message = errorMessage(err).split('\n')[0]?.trim().replace(/\.$/, '') ?? '';
  if (/bigint/i.test(message)) return 'it contains a BigInt, which JSON cannot encode';
  if (/circular/i.test(message)) return 'it contains a circular reference, which JSON cannot encode';
  if (err instanceof RangeError) return `it is too large to render as text (${message})`;
  return message ? `rendering it as JSON failed (${message})` : 'rendering it as JSON failed';
}

/** The result the model reads when a tool ran but its output cannot be recorded. The tool is not run again. */
export function unrecordableResult(reason: string, latencyMs: number, attempt: number): RunToolOutput {
  const text = `The tool ran, but its output could not be recorded: ${reason}. It was not run again.`;
  return { output: { type: 'text', text }, isError: true, error: text, latencyMs, attempt };
}

/**
 * The activity result for a tool's return value: rendered, stored in the blob store when over the
 * inline limit (clamped to {@link MAX_TOOL_RESULT_INLINE_BYTES}), and never larger than
 * {@link MAX_TOOL_ACTIVITY_RESULT_BYTES}. Runs after the tool has returned and outside its retried
 * part: a value that cannot be recorded becomes an error result, never a failed attempt.
 *
 * @throws a non-retryable `StorageError` failure when the blob store cannot store the output.
 */
export async function toolResult(
  store: TranscriptStore,
  value: unknown,
  inlineLimitBytes: number,
  latencyMs: number,
  attempt: number,
  /** Set for an untrusted tool (its name): the text is fenced as data (`core/fence.ts`) before the size check. */
  untrusted?: string,
): Promise<RunToolOutput> {
  const rendered = recordToolValue(value);
  if (!rendered.ok) return unrecordableResult(rendered.reason, latencyMs, attempt);
  const text = untrusted !== undefined ? fenceUntrusted(untrusted, rendered.text) : rendered.text;
  const bytes = utf8Bytes(text);
  let output: ToolOutput;
  if (bytes <= Math.min(inlineLimitBytes, MAX_TOOL_RESULT_INLINE_BYTES)) {
    output = { type: 'text', text };
  } else {
    const ref = await withStore('store the tool output', () => store.blobs.put(text));
    output = { type: 'stored', ref, bytes, preview: preview(text, 500) };
  }
  return fitted({ output, isError: false, latencyMs, attempt });
}

/**
 * `result`, or an error result if it is too large to return from an activity. The error result keeps
 * the attempt's metrics and last progress (bounded, far smaller than the margin over the inline limit).
 */
export function fitted(result: RunToolOutput): RunToolOutput {
  const size = jsonBytes(result);
  if (size <= MAX_TOOL_ACTIVITY_RESULT_BYTES) return result;
  return {
    ...unrecordableResult(
      `its result is ${size} bytes, over the ${MAX_TOOL_ACTIVITY_RESULT_BYTES}-byte limit of a recorded result`,
      result.latencyMs,
      result.attempt,
    ),
    ...(result.metrics ? { metrics: result.metrics } : {}),
    ...(result.lastProgress ? { lastProgress: result.lastProgress } : {}),
  };
}

/** The claim store behind a transcript store, when its blob store keeps claims. */
export function claimsOf(store: TranscriptStore): ClaimStore | undefined {
  const b = store.blobs as Partial<ClaimStore>;
  return typeof b.claim === 'function' && typeof b.settle === 'function' && typeof b.release === 'function' ? (b as ClaimStore) : undefined;
}

/** The claim key of an at-most-once call: its idempotency key, and which rerun a person allowed. */
export function claimKey(idempotencyKey: string, rerun: number | undefined): string {
  return rerun ? `${idempotencyKey}#rerun-${rerun}` : idempotencyKey;
}

/** The text the model reads for an at-most-once call found claimed without a result. */
export function outcomeUnknownText(tool: string, claimedAt: string): string {
  const when = claimedAt ? ` (claimed ${claimedAt})` : '';
  return (
    `Outcome unknown: this call of "${tool}" may or may not have taken effect. An earlier attempt started it${when} ` +
    'but its worker was lost before the result was recorded, and this tool runs at most once, so it was not run again. ' +
    'Check whether it took effect before calling it again.'
  );
}

/**
 * Run one tool call: validate the arguments with the tool's zod schema (invalid arguments become an
 * error result the model can correct), execute it while heartbeating, and store outputs too large for
 * history in the blob store. A throwing tool fails the attempt so the retry policy applies; once
 * the tool has returned, nothing fails the attempt any more (so a tool that succeeded is never re-run
 * for its output): see {@link toolResult}.
 *
 * At-least-once, like every activity: a worker lost after the tool's effect and before its result is
 * recorded runs the call again. An `atMostOnce` tool claims the call in the store first: an attempt
 * that finds the claim settled returns the recorded result, one that finds it unsettled does not execute
 * and returns an "outcome unknown" error result (`outcomeUnknown`).
 *
 * Known secrets in the tool's output and heartbeat details are redacted before they are stored or sent.
 */
export function runToolActivity(
  registry: AgentRegistry,
  store: TranscriptStore,
  mcp?: McpCatalog,
  redact: RedactorSource = NO_SECRETS,
  live: LiveOptions = {},
) {
  return async function runTool(input: RunToolInput): Promise<RunToolOutput> {
    const ctx = Context.current();
    const attempt = input.attempt ?? ctx.info.attempt;
    // This attempt's metrics and last progress: on every result and failure once the tool has run.
    const notes = new ToolAttemptNotes(redact);
    let tool;
    try {
      tool = registry.tool(input.agent, input.tool);
    } catch (err) {
      throw ApplicationFailure.create({
        message: errorMessage(err),
        type: 'UnknownAgent',
        nonRetryable: true,
        details: [{ attempt, latencyMs: 0 }],
      });
    }
    tool ??= await mcpToolOf(registry.get(input.agent), input.tool, mcp, { attempt, latencyMs: 0 }, ctx);
    if (!tool) {
      throw ApplicationFailure.create({
        message: `Unknown tool "${input.tool}" on this worker's agent "${input.agent}"`,
        type: 'UnknownTool',
        nonRetryable: true,
        details: [{ attempt, latencyMs: 0 } satisfies ToolFailureDetails],
      });
    }
    const parsed = tool.input.safeParse(input.args);
    if (!parsed.success) {
      const message = `Invalid arguments for tool "${tool.name}":\n${z.prettifyError(parsed.error)}`;
      return fitted({ output: { type: 'text', text: message }, isError: true, error: message, latencyMs: 0, attempt });
    }
    const info = ctx.info.workflowExecution;
    const workflowId = info?.workflowId ?? '';
    // Scheduled by older workflow code without a key: the old form.
    const idempotencyKey = input.idempotencyKey ?? `${workflowId}/${input.callId}`;
    // The agent's hooks: block or rewrite the call before anything runs (or is claimed).
    const hooks = registry.get(input.agent).hooks;
    const hookCall: ToolHookContext = {
      tool: tool.name,
      args: input.args,
      callId: input.callId,
      agent: input.agent,
      workflowId,
      runId: info?.runId ?? '',
      step: input.step,
      attempt,
      signal: ctx.cancellationSignal,
    };
    const beating = keepAlive(ctx);
    const before = await beforeToolCall(hooks, tool.input, hookCall).finally(beating);
    if (!before.run)
      return fitted({
        output: { type: 'text', text: before.text },
        isError: true,
        error: before.text,
        latencyMs: 0,
        attempt,
        hooks: before.notes,
        ...notes.snapshot(),
      });
    const args = before.ranArgs ? (before.data as typeof parsed.data) : parsed.data;
    const hooked = (notes: ToolHookNote[]): Partial<RunToolOutput> => ({
      ...(before.ranArgs ? { ranArgs: before.ranArgs } : {}),
      ...(notes.length ? { hooks: notes } : {}),
    });
    let claim: { claims: ClaimStore; key: string } | undefined;
    if (tool.atMostOnce) {
      const claims = claimsOf(store);
      if (!claims) {
        throw ApplicationFailure.create({
          message: `Tool "${tool.name}" runs at most once, but this worker's store keeps no claims: give createWorker a store built on an ObjectStore (FileBlobStore, openStore(…)) rather than a bare BlobStore`,
          type: 'StoreWithoutClaims',
          nonRetryable: true,
          details: [{ attempt, latencyMs: 0 } satisfies ToolFailureDetails],
        });
      }
      const key = claimKey(idempotencyKey, input.rerun);
      const found = await claimCall(claims, key, attempt, `${hostname()}/${process.pid}`);
      if (found.kind === 'settled') return { ...(JSON.parse(found.result) as RunToolOutput), attempt };
      if (found.kind === 'in_doubt') {
        const text = outcomeUnknownText(tool.name, found.claim.at);
        return { output: { type: 'text', text }, isError: true, error: text, latencyMs: 0, attempt, outcomeUnknown: true };
      }
      claim = { claims, key };
    }
    const toolLive = new ToolLive(ctx, { step: input.step, attempt, callId: input.callId, tool: tool.name }, live, redact);
    const stopBeats = keepAlive(ctx, toolLive.details);
    const stop = () => {
      toolLive.stop();
      stopBeats();
    };
    const started = Date.now();
    const layers = toolLayers(registry.get(input.agent));
    try {
      let value: unknown;
      try {
        value = await tool.execute(args, {
          signal: ctx.cancellationSignal,
          heartbeat: toolLive.heartbeat,
          progress: (p) => toolLive.progress(notes.setProgress(p)),
          idempotencyKey,
          callId: input.callId,
          attempt,
          agent: input.agent,
          workflowId,
          runId: info?.runId ?? '',
          step: input.step,
          metrics: notes.metrics,
          context: layers.context,
        });
      } catch (err) {
        const latencyMs = Date.now() - started;
        if (ctx.cancellationSignal.aborted) throw new CancelledFailure('tool call cancelled', [], err as Error);
        // The tool reported failure, which means no effect: a retry may claim the call again.
        if (claim) await claim.claims.release(claim.key).catch(() => undefined);
        throw ApplicationFailure.create({
          message: errorMessage(err),
          type: err instanceof Error ? err.name : 'Error',
          nonRetryable: err instanceof ToolError && !err.retryable,
          details: [{ attempt, latencyMs, ...notes.snapshot() } satisfies ToolFailureDetails],
        });
      }
      const latencyMs = Date.now() - started;
      // The output as the agent's afterToolCall hook leaves it (redacted, say), before it is rendered and recorded.
      const after = await afterToolCall(hooks, { ...hookCall, args: before.ranArgs ?? input.args }, value);
      const hookNotes = [...before.notes, ...after.notes];
      const result = fitted(
        after.ok
          ? {
              ...(await toolResult(
                store,
                redact().value(after.value),
                input.inlineLimitBytes,
                latencyMs,
                attempt,
                tool.untrusted ? tool.name : undefined,
              )),
              ...hooked(hookNotes),
              ...notes.snapshot(),
              ...redact().value(layers.updates()),
            }
          : {
              output: { type: 'text', text: after.text },
              isError: true,
              error: after.text,
              latencyMs,
              attempt,
              ...hooked(hookNotes),
              ...notes.snapshot(),
            },
      );
      // Best effort: if it fails and this attempt's completion is lost too, the next attempt reports "unknown".
      if (claim) await claim.claims.settle(claim.key, JSON.stringify(result)).catch(() => undefined);
      return result;
    } finally {
      stop();
    }
  };
}

/**
 * Take the claim of an at-most-once call. A store that cannot answer fails the attempt (retryable:
 * nothing has run yet).
 */
async function claimCall(claims: ClaimStore, key: string, attempt: number, holder: string) {
  try {
    return await claims.claim(key, { attempt, holder });
  } catch (err) {
    throw ApplicationFailure.create({
      message: `could not claim the at-most-once call in the store (nothing ran): ${errorMessage(err)}`,
      type: 'ClaimFailed',
      details: [{ attempt, latencyMs: 0 } satisfies ToolFailureDetails],
    });
  }
}
