/**
 * A scripted model: replies from a fixed list, for tests, benchmarks and the offline demo. It is not an
 * LLM. Each step's reply is picked by the step number (the count of assistant messages so far), so a
 * run resumed on another worker continues the script where it was.
 */
import type { JsonValue } from '../../core/messages/json';
import type { AssistantContent, ToolUseBlock } from '../../core/messages/messages';
import type { ModelRequest, ModelResponse, StopReason } from '../../core/output/native-output';
import type { Usage } from '../../core/budget/usage';
import { abortableSleep } from './abortable';
import { parseArguments } from './tool-arguments';
import type { ModelCallContext, ModelProvider, ProviderErrorKind } from './types';
import { ProviderError } from './types';

/** A tool call in a scripted reply. */
export interface ScriptedToolCall {
  name: string;
  /** The arguments the model sends: normally an object; any other JSON value makes an invalid call. */
  args: JsonValue;
  /**
   * The argument text exactly as the model sends it, overriding `args`: text that is not valid JSON
   * (e.g. `'{"amount": 5'`) makes a call with `inputError`, as a provider's stream assembler would.
   */
  rawArgs?: string;
  /** Call id; defaults to `call_<step>_<index>`. */
  id?: string;
  /** Mark the call as cut off mid-arguments (only meaningful with stopReason `max_tokens`). */
  incomplete?: boolean;
}

/** A failure injected into an attempt of a scripted reply. */
export interface ScriptedFailure {
  message: string;
  kind?: ProviderErrorKind;
  retryable?: boolean;
  status?: number;
  type?: string;
  retryAfterMs?: number;
  /** Fail only after streaming the reply's deltas (a failure mid-answer), instead of before. */
  afterStreaming?: boolean;
}

/** How a scripted reply streams: its text and tool-call arguments in pieces, over time. */
export interface ScriptedStreaming {
  /** Pieces the text (and each call's argument JSON) is cut into. Default 10. */
  chunks?: number;
  /** Time between pieces. Default 0. */
  intervalMs?: number;
  /**
   * Stream the tool calls before the text (the text, slowly, after them), so a call is complete while
   * the answer still streams. Default false: text first, as models usually answer. The answer's content
   * keeps this order too.
   */
  callsFirst?: boolean;
  /** With `callsFirst`: time between the text's pieces (default `intervalMs`). */
  textIntervalMs?: number;
}

/** One scripted reply. */
export interface ScriptedTurn {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /** Defaults to `tool_use` when there are tool calls, `end_turn` otherwise. */
  stopReason?: StopReason;
  /** Defaults to an estimate from text sizes (4 characters a token). */
  usage?: Partial<Usage>;
  /** Time the reply takes (abortable, heartbeating). */
  delayMs?: number;
  /** Attempt `k` (1-based) fails with `failures[k-1]`; later attempts succeed. */
  failures?: ScriptedFailure[];
  /** Stream the reply in pieces to `ctx.onDelta` (the way real providers stream). */
  stream?: ScriptedStreaming;
}

/** A script: replies by step, or a function of the request. */
export type Script = readonly ScriptedTurn[] | ((request: ModelRequest, ctx: ModelCallContext) => ScriptedTurn | Promise<ScriptedTurn>);

/** Options of a {@link ScriptedProvider}. */
export interface ScriptedProviderOptions {
  /**
   * Context windows (tokens) by script name: a request estimated (4 characters a token) above its window
   * fails as a real API does: HTTP 400 "prompt is too long: N tokens > W maximum", not retryable.
   */
  windows?: Record<string, number>;
  /**
   * Say the provider supports native structured output (`request.output`), as OpenAI's does: agents with an
   * output schema then ask it for JSON text instead of a `final_answer` tool call. Default false.
   */
  nativeOutput?: boolean;
}

/**
 * A provider that serves scripts by model name: `{ provider: 'scripted', model: '<script name>' }`.
 * Compaction summaries (`ctx.purpose === 'summary'`) go to a function script, which may answer them
 * (return `{ text }`); otherwise, and for list scripts, the model answers with an extract of the text.
 */
export class ScriptedProvider implements ModelProvider {
  private readonly scripts = new Map<string, Script>();
  private readonly windows: Record<string, number>;
  /** The largest request (estimated tokens) each script was sent, summaries included. */
  readonly largestRequest = new Map<string, number>();
  /** See {@link ScriptedProviderOptions.nativeOutput}. */
  readonly nativeOutput: boolean;

  constructor(scripts: Record<string, Script> = {}, options: ScriptedProviderOptions = {}) {
    for (const [name, script] of Object.entries(scripts)) this.scripts.set(name, script);
    this.windows = { ...options.windows };
    this.nativeOutput = options.nativeOutput ?? false;
  }

  /** Set the context window of a script (see {@link ScriptedProviderOptions.windows}). */
  setWindow(model: string, tokens: number): this {
    this.windows[model] = tokens;
    return this;
  }

  /** Add or replace a script. */
  set(model: string, script: Script): this {
    this.scripts.set(model, script);
    return this;
  }

  async generate(request: ModelRequest, ctx: ModelCallContext): Promise<ModelResponse> {
    const script = this.scripts.get(request.model);
    if (!script) {
      throw new ProviderError(`scripted model "${request.model}" has no script on this worker`, {
        kind: 'not_found',
        retryable: false,
        status: 404,
        type: 'not_found_error',
      });
    }
    const inputChars = JSON.stringify(request.messages).length + (request.system?.length ?? 0) + JSON.stringify(request.tools).length;
    const inputTokens = Math.ceil(inputChars / 4);
    this.largestRequest.set(request.model, Math.max(this.largestRequest.get(request.model) ?? 0, inputTokens));
    const window = this.windows[request.model];
    if (window !== undefined && inputTokens > window) {
      throw new ProviderError(`prompt is too long: ${inputTokens} tokens > ${window} maximum`, {
        kind: 'context_overflow',
        retryable: false,
        status: 400,
        type: 'invalid_request_error',
      });
    }
    if (ctx.purpose === 'summary') return this.summarize(script, request, ctx, inputTokens);
    // The step picks the reply (a compacted view holds fewer assistant messages than the run has had).
    const index = ctx.step >= 1 ? ctx.step - 1 : request.messages.filter((m) => m.role === 'assistant').length;
    const turn = typeof script === 'function' ? await script(request, ctx) : script[index];
    if (!turn) {
      throw new ProviderError(
        `scripted model "${request.model}" has no reply for step ${index + 1} (script has ${(script as readonly ScriptedTurn[]).length})`,
        {
          kind: 'invalid_request',
          retryable: false,
          type: 'script_exhausted',
        },
      );
    }
    if (turn.delayMs) await abortableSleep(turn.delayMs, ctx.signal, () => ctx.heartbeat());
    const failure = turn.failures?.[ctx.attempt - 1];
    const fail = (f: ScriptedFailure) =>
      new ProviderError(f.message, {
        kind: f.kind ?? 'server',
        retryable: f.retryable ?? true,
        ...(f.status !== undefined ? { status: f.status } : {}),
        ...(f.type !== undefined ? { type: f.type } : {}),
        ...(f.retryAfterMs !== undefined ? { retryAfterMs: f.retryAfterMs } : {}),
      });
    if (failure && !failure.afterStreaming) throw fail(failure);
    const content: AssistantContent[] = [];
    const callsFirst = turn.stream?.callsFirst === true;
    if (turn.text && !callsFirst) content.push({ type: 'text', text: turn.text });
    (turn.toolCalls ?? []).forEach((c, i) => {
      const { input, inputError } = c.rawArgs !== undefined ? parseArguments(c.rawArgs) : { input: c.args, inputError: undefined };
      content.push({
        type: 'tool_use',
        id: c.id ?? `call_${index + 1}_${i}`,
        name: c.name,
        input,
        ...(inputError !== undefined ? { inputError } : {}),
        ...(c.incomplete ? { incomplete: true as const } : {}),
      });
    });
    if (turn.text && callsFirst) content.push({ type: 'text', text: turn.text });
    if (turn.stream) await streamPieces(content, turn.stream, ctx);
    // Without streaming, calls are complete at once: a listener hears of them before the answer returns.
    else reportCalls(content, ctx);
    if (failure) throw fail(failure);
    const stopReason = turn.stopReason ?? (turn.toolCalls?.length ? 'tool_use' : 'end_turn');
    const outputChars = JSON.stringify(content).length;
    return {
      message: { role: 'assistant', content },
      stopReason,
      usage: {
        inputTokens,
        outputTokens: Math.ceil(outputChars / 4),
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        ...turn.usage,
      },
      model: request.model,
    };
  }

  /** A compaction summary: the script's, when a function script gives one, else an extract of the text. */
  private async summarize(script: Script, request: ModelRequest, ctx: ModelCallContext, inputTokens: number): Promise<ModelResponse> {
    const turn = typeof script === 'function' ? await script(request, ctx) : undefined;
    if (turn?.delayMs) await abortableSleep(turn.delayMs, ctx.signal, () => ctx.heartbeat());
    const failure = turn?.failures?.[ctx.attempt - 1];
    if (failure)
      throw new ProviderError(failure.message, {
        kind: failure.kind ?? 'server',
        retryable: failure.retryable ?? true,
        ...(failure.status !== undefined ? { status: failure.status } : {}),
      });
    const asked = request.messages.map((m) => m.content.map((b) => (b.type === 'text' ? b.text : '')).join('')).join('\n');
    const text = turn?.text ?? `Scripted summary of ${asked.length} characters: ${asked.slice(0, 160).replace(/\s+/g, ' ')}…`;
    return {
      message: { role: 'assistant', content: [{ type: 'text', text }] },
      stopReason: 'end_turn',
      usage: { inputTokens, outputTokens: Math.ceil(text.length / 4), cacheReadTokens: 0, cacheWriteTokens: 0, ...turn?.usage },
      model: request.model,
    };
  }
}

/** Send a reply's text and tool-call arguments to `ctx.onDelta` in pieces, `intervalMs` apart. */
async function streamPieces(content: AssistantContent[], stream: ScriptedStreaming, ctx: ModelCallContext): Promise<void> {
  const chunks = Math.max(1, stream.chunks ?? 10);
  const pieces = (text: string) => {
    const size = Math.ceil(text.length / chunks) || 1;
    const out: string[] = [];
    for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
    return out;
  };
  let call = 0;
  const textInterval = stream.textIntervalMs ?? stream.intervalMs;
  for (const block of content) {
    const sends =
      block.type === 'text'
        ? pieces(block.text).map((text) => ({ type: 'text' as const, text }))
        : block.type === 'tool_use'
          ? pieces(typeof block.input === 'string' ? block.input : JSON.stringify(block.input)).map((json) => ({
              type: 'tool_args' as const,
              call,
              tool: block.name,
              json,
            }))
          : [];
    const interval = block.type === 'text' ? textInterval : stream.intervalMs;
    for (const delta of sends) {
      if (interval) await abortableSleep(interval, ctx.signal, () => ctx.heartbeat());
      if (ctx.signal.aborted) return;
      ctx.onDelta?.(delta);
      ctx.heartbeat();
    }
    // After its last piece, a call is complete (a cut-off one never is).
    if (block.type === 'tool_use' && !block.incomplete) ctx.onToolCall?.(call, withoutFlags(block));
    if (block.type === 'tool_use') call++;
  }
}

/** Tell `ctx.onToolCall` of every complete call of an answer that did not stream. */
function reportCalls(content: readonly AssistantContent[], ctx: ModelCallContext): void {
  if (!ctx.onToolCall) return;
  let call = 0;
  for (const block of content) {
    if (block.type !== 'tool_use') continue;
    if (!block.incomplete) ctx.onToolCall(call, withoutFlags(block));
    call++;
  }
}

function withoutFlags(block: ToolUseBlock): ToolUseBlock {
  const { incomplete: _incomplete, ...rest } = block;
  return rest;
}
