/**
 * Tool hooks: code an agent runs around each tool call, in the worker, inside the `runTool` activity.
 * `beforeToolCall` may block a call (the model reads the reason; the tool never runs) or rewrite its
 * arguments (they must still satisfy the tool's schema; what ran is recorded). `afterToolCall` may
 * transform the output (redact secrets, say) before it is rendered, size-checked and recorded. A hook
 * that throws is an error result the model reads, never a crashed run.
 */
import { z } from 'zod';
import { DefinitionError } from '../core/run/errors';
import type { JsonObject } from '../core/messages/json';
import type { ToolHookNote } from '../core/tool-calls/tool-hooks';
import { blockedText, hookFailedText } from '../core/tool-calls/tool-hooks';
import { describeValue } from './describe-value';

/** What a hook gets about the call. */
export interface ToolHookContext {
  /** The tool's name. */
  tool: string;
  /** `beforeToolCall`: the arguments the model sent (valid for the tool). `afterToolCall`: the arguments that ran. */
  args: JsonObject;
  callId: string;
  agent: string;
  workflowId: string;
  runId: string;
  step: number;
  /** 1-based attempt of the call (a throwing tool is retried; hooks run on every attempt). */
  attempt: number;
  signal: AbortSignal;
}

/** What `beforeToolCall` decides: run as asked (nothing), block with a reason, or run with other arguments. */
export type BeforeToolCallResult = void | undefined | { block: string } | { args: JsonObject };

/** What `afterToolCall` decides: keep the output (nothing), or replace it with `result`. */
export type AfterToolCallResult = void | undefined | { result: unknown };

/** An agent's tool hooks. */
export interface ToolHooks {
  /** Runs before each call, with arguments that passed the tool's schema: block it, or change its arguments. */
  beforeToolCall?(call: ToolHookContext): BeforeToolCallResult | Promise<BeforeToolCallResult>;
  /** `result` is what the tool's `execute` returned. */
  afterToolCall?(call: ToolHookContext & { result: unknown }): AfterToolCallResult | Promise<AfterToolCallResult>;
}

/**
 * Check an agent's `hooks` option.
 *
 * @throws {DefinitionError} naming the agent and the hook.
 */
export function checkHooks(agent: string, value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new DefinitionError(`agent "${agent}": hooks must be an object { beforeToolCall?, afterToolCall? }, got ${describeValue(value)}`);
  }
  for (const [key, fn] of Object.entries(value)) {
    if (key !== 'beforeToolCall' && key !== 'afterToolCall')
      throw new DefinitionError(`agent "${agent}": hooks has an unknown hook "${key}" (known: beforeToolCall, afterToolCall)`);
    if (fn !== undefined && typeof fn !== 'function')
      throw new DefinitionError(`agent "${agent}": hooks.${key} must be a function, got ${describeValue(fn)}`);
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message || err.name : String(err);
}

/** An error result from the hooks (the activity adds latency and attempt). */
export interface HookStop {
  text: string;
  notes: ToolHookNote[];
}

/**
 * Run `beforeToolCall` on a call whose arguments `args` passed `schema`: the arguments to run it with
 * (validated again when rewritten), or the error result the model reads instead.
 */
export async function beforeToolCall(
  hooks: ToolHooks | undefined,
  schema: z.ZodType,
  call: ToolHookContext,
): Promise<{ run: true; data?: unknown; ranArgs?: JsonObject; notes: ToolHookNote[] } | ({ run: false } & HookStop)> {
  if (!hooks?.beforeToolCall) return { run: true, notes: [] };
  let decided: BeforeToolCallResult;
  try {
    decided = await hooks.beforeToolCall(call);
  } catch (err) {
    const reason = message(err);
    return {
      run: false,
      text: hookFailedText(call.tool, 'beforeToolCall', reason),
      notes: [{ hook: 'beforeToolCall', action: 'failed', reason }],
    };
  }
  if (decided === undefined || decided === null) return { run: true, notes: [] };
  if (typeof decided === 'object' && 'block' in decided) {
    const reason = typeof decided.block === 'string' ? decided.block : String(decided.block);
    return { run: false, text: blockedText(call.tool, reason), notes: [{ hook: 'beforeToolCall', action: 'blocked', reason }] };
  }
  if (
    typeof decided === 'object' &&
    'args' in decided &&
    decided.args &&
    typeof decided.args === 'object' &&
    !Array.isArray(decided.args)
  ) {
    let ranArgs: JsonObject;
    try {
      ranArgs = JSON.parse(JSON.stringify(decided.args)) as JsonObject;
    } catch (err) {
      const reason = `it rewrote the arguments to a value JSON cannot encode (${message(err)})`;
      return {
        run: false,
        text: hookFailedText(call.tool, 'beforeToolCall', reason),
        notes: [{ hook: 'beforeToolCall', action: 'failed', reason }],
      };
    }
    const parsed = schema.safeParse(ranArgs);
    if (!parsed.success) {
      const reason = `it rewrote the arguments to ones the tool's schema refuses:\n${z.prettifyError(parsed.error)}`;
      return {
        run: false,
        text: hookFailedText(call.tool, 'beforeToolCall', reason),
        notes: [{ hook: 'beforeToolCall', action: 'failed', reason }],
      };
    }
    return { run: true, data: parsed.data, ranArgs, notes: [{ hook: 'beforeToolCall', action: 'rewritten' }] };
  }
  const reason = `it returned ${describeValue(decided)}; return nothing, { block: reason } or { args }`;
  return {
    run: false,
    text: hookFailedText(call.tool, 'beforeToolCall', reason),
    notes: [{ hook: 'beforeToolCall', action: 'failed', reason }],
  };
}

/** Run `afterToolCall` on what the tool returned: the value to record, or the error result the model reads instead. */
export async function afterToolCall(
  hooks: ToolHooks | undefined,
  call: ToolHookContext,
  result: unknown,
): Promise<{ ok: true; value: unknown; notes: ToolHookNote[] } | ({ ok: false } & HookStop)> {
  if (!hooks?.afterToolCall) return { ok: true, value: result, notes: [] };
  let decided: AfterToolCallResult;
  try {
    decided = await hooks.afterToolCall({ ...call, result });
  } catch (err) {
    const reason = message(err);
    return {
      ok: false,
      text: hookFailedText(call.tool, 'afterToolCall', reason),
      notes: [{ hook: 'afterToolCall', action: 'failed', reason }],
    };
  }
  if (decided === undefined || decided === null) return { ok: true, value: result, notes: [] };
  if (typeof decided === 'object' && 'result' in decided)
    return { ok: true, value: decided.result, notes: [{ hook: 'afterToolCall', action: 'transformed' }] };
  const reason = `it returned ${describeValue(decided)}; return nothing or { result }`;
  return {
    ok: false,
    text: hookFailedText(call.tool, 'afterToolCall', reason),
    notes: [{ hook: 'afterToolCall', action: 'failed', reason }],
  };
}
