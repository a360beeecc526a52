/**
 * Assembling the stream of an AI SDK language model (the `LanguageModelV2StreamPart`s, `V3` or `V4` of
 * `@ai-sdk/provider` 2, 3 or 4) into a {@link ModelResponse}: text and reasoning by part id, tool calls
 * from `tool-input-*` deltas and their final `tool-call` part (which wins: it is the provider's own
 * assembly), usage and finish reason from `finish`. Tool calls the provider executed itself
 * (provider-defined tools) and their approval requests, sources, files, reasoning files, custom content,
 * citations and pings are not part of our transcript and are skipped.
 *
 * The specifications differ where this module reads them: V2's finish reason is a string and its usage
 * flat; V3 and V4 give `{ unified, raw }` and usage split into `noCache`/`cacheRead`/`cacheWrite`. V4's
 * `interrupted` (the provider's stream ended without a completion signal) is not an answer: the
 * assembler does not count the stream complete, so the call fails retryably like any cut stream.
 */
import type {
  LanguageModelV2FinishReason,
  LanguageModelV2StreamPart,
  LanguageModelV2Usage,
  LanguageModelV3FinishReason,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
  LanguageModelV4FinishReason,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from '@ai-sdk/provider' with { 'resolution-mode': 'import' };
import type { AssistantContent, ToolUseBlock } from '../../core/messages/messages';
import type { ModelResponse, StopReason } from '../../core/output/native-output';
import type { ModelDelta } from '../../core/events/stream';
import type { Usage } from '../../core/budget/usage';
import { streamedCallBlock } from './tool-arguments';

/** A stream part of any language model specification the adapter speaks (v2, v3, v4). */
export type AiSdkStreamPart = LanguageModelV2StreamPart | LanguageModelV3StreamPart | LanguageModelV4StreamPart;

/** A finish reason of any specification: a string (v2) or `{ unified, raw }` (v3, v4). */
export type AiSdkFinishReason = LanguageModelV2FinishReason | LanguageModelV3FinishReason | LanguageModelV4FinishReason;

/** A usage of any specification: flat (v2) or split by cache (v3, v4). */
export type AiSdkUsage = LanguageModelV2Usage | LanguageModelV3Usage | LanguageModelV4Usage;

/**
 * The name of a finish reason, whichever the specification: V2's string, V3's and V4's `unified` value.
 * A value this version of the adapter does not know (a later minor release may add one, as
 * `interrupted` was added within V4) is returned as it is, for the caller's default.
 */
export function aiSdkFinishName(finish: AiSdkFinishReason | undefined): string | undefined {
  if (finish === undefined) return undefined;
  if (typeof finish === 'string') return finish;
  return typeof finish === 'object' && finish !== null && typeof finish.unified === 'string' ? finish.unified : 'other';
}

/**
 * Map a finish reason (of any specification) onto ours. Tool calls make any reason but `length` a
 * `tool_use`; an unknown reason is `other`. (`interrupted` never gets here from a stream: a stream that
 * ends so is a failed attempt, see the module comment.)
 */
export function aiSdkStopReason(finish: AiSdkFinishReason | undefined, hasToolCalls: boolean): StopReason {
  const name = aiSdkFinishName(finish);
  if (name === 'length') return 'max_tokens';
  if (hasToolCalls) return 'tool_use';
  switch (name) {
    case 'stop':
      return 'end_turn';
    case 'tool-calls':
      return 'tool_use';
    case 'content-filter':
      return 'refusal';
    default:
      return 'other';
  }
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** Providers whose V2 `inputTokens` leave out cache reads (their APIs count them apart). */
const CACHE_APART = /anthropic|bedrock/i;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Provider metadata of any specification (`{ [provider]: { [key]: JSON } }`). */
type AnyMetadata = Readonly<Record<string, unknown>> | undefined;

/**
 * Our usage from a usage of any specification (`provider` and `metadata` matter for V2 only).
 *
 * V3 and V4 split input tokens: `total` counts them all, `noCache` the ones not read from or written to
 * the cache, `cacheRead` and `cacheWrite` the others; ours are `noCache` (or `total` less the cached
 * ones when a provider leaves `noCache` out), `cacheRead` and `cacheWrite`. Output tokens are `total`
 * (or text plus reasoning).
 *
 * V2 leaves open whether `inputTokens` include the cached ones: the OpenAI family counts them in (taken
 * out here: our `inputTokens` never count cache reads twice), Anthropic (direct, Vertex) and Bedrock
 * count them apart. Cache writes are read from `@ai-sdk/anthropic`'s provider metadata
 * (`cacheCreationInputTokens`), the one provider that reports them there.
 */
export function aiSdkUsage(usage: AiSdkUsage | undefined, provider: string, metadata?: AnyMetadata): Usage {
  if (!usage) return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  if (isRecord(usage.inputTokens) || isRecord(usage.outputTokens)) {
    const input: Record<string, unknown> = isRecord(usage.inputTokens) ? usage.inputTokens : {};
    const output: Record<string, unknown> = isRecord(usage.outputTokens) ? usage.outputTokens : {};
    const cacheReadTokens = num(input.cacheRead);
    const cacheWriteTokens = num(input.cacheWrite);
    const inputTokens =
      typeof input.noCache === 'number' ? num(input.noCache) : Math.max(0, num(input.total) - cacheReadTokens - cacheWriteTokens);
    const outputTokens = typeof output.total === 'number' ? num(output.total) : num(output.text) + num(output.reasoning);
    return { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens };
  }
  const flat = usage as LanguageModelV2Usage;
  const input = num(flat.inputTokens);
  const cached = num(flat.cachedInputTokens);
  const anthropic = metadata?.anthropic;
  return {
    inputTokens: CACHE_APART.test(provider) ? input : Math.max(0, input - cached),
    outputTokens: num(flat.outputTokens),
    cacheReadTokens: cached,
    cacheWriteTokens: isRecord(anthropic) ? num(anthropic.cacheCreationInputTokens) : 0,
  };
}

interface TextPart {
  type: 'text' | 'thinking';
  id: string;
  text: string;
  signature: string;
  redacted?: string;
}

interface CallPart {
  type: 'call';
  /** The provider's call id (the part id of its `tool-input-*` parts). */
  id: string;
  name: string;
  /** Position among the answer's tool calls, for deltas. */
  index: number;
  args: string;
  /** Set once the provider's final `tool-call` part arrived: its input replaces the streamed pieces. */
  final: boolean;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Accumulates one streamed answer. Feed it every part, then read {@link result}. */
export class AiSdkStreamAssembler {
  private readonly parts: Array<TextPart | CallPart> = [];
  private readonly calls = new Map<string, CallPart>();
  private callCount = 0;
  private finish: AiSdkFinishReason | undefined;
  /** Set when the stream ended with V4's `interrupted`: no completion signal came. */
  private interrupted = false;
  private usage: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  private model = '';
  /** The first `error` part, if any. */
  error: { error: unknown } | undefined;

  /**
   * @param provider the model's `provider` name (decides how its usage is read).
   * @param onDelta receives each piece of text, reasoning and tool-call arguments as it arrives.
   * @param onToolCall receives each tool call once its `tool-call` part arrived (its arguments are complete).
   */
  constructor(
    private readonly provider: string,
    private readonly onDelta?: (delta: ModelDelta) => void,
    private readonly onToolCall?: (index: number, call: ToolUseBlock) => void,
  ) {}

  /**
   * True once the `finish` part arrived, unless it said `interrupted` (the provider's stream broke off:
   * what came is not a whole answer).
   */
  get complete(): boolean {
    return this.finish !== undefined && !this.interrupted;
  }

  /** Apply one stream part (of any specification). */
  push(part: AiSdkStreamPart): void {
    switch (part.type) {
      case 'text-start':
      case 'reasoning-start':
        this.textPart(part.type === 'text-start' ? 'text' : 'thinking', part.id, part.providerMetadata);
        return;
      case 'text-delta':
      case 'reasoning-delta': {
        const kind = part.type === 'text-delta' ? 'text' : 'thinking';
        const p = this.textPart(kind, part.id, part.providerMetadata);
        p.text += part.delta;
        if (part.delta) this.onDelta?.({ type: kind, text: part.delta });
        return;
      }
      case 'text-end':
      case 'reasoning-end':
        this.textPart(part.type === 'text-end' ? 'text' : 'thinking', part.id, part.providerMetadata);
        return;
      case 'tool-input-start':
        if (!part.providerExecuted) this.call(part.id, part.toolName);
        return;
      case 'tool-input-delta': {
        const c = this.calls.get(part.id);
        if (!c || c.final || !part.delta) return;
        c.args += part.delta;
        this.onDelta?.({ type: 'tool_args', call: c.index, ...(c.name ? { tool: c.name } : {}), json: part.delta });
        return;
      }
      case 'tool-call': {
        if (part.providerExecuted) return;
        const c = this.call(part.toolCallId, part.toolName);
        // A call that streamed no arguments (or a provider that sends whole calls) gets them as one delta.
        if (!c.args && part.input) this.onDelta?.({ type: 'tool_args', call: c.index, tool: c.name, json: part.input });
        c.args = part.input;
        c.final = true;
        if (this.onToolCall) {
          // Arguments that do not parse may be a cut-off call (known only at the finish): never reported.
          const block = streamedCallBlock(c, false);
          if (block.inputError === undefined) this.onToolCall(c.index, block);
        }
        return;
      }
      case 'response-metadata':
        if (!this.model && part.modelId) this.model = part.modelId;
        return;
      case 'finish':
        this.finish = part.finishReason;
        this.interrupted = aiSdkFinishName(part.finishReason) === 'interrupted';
        this.usage = aiSdkUsage(part.usage, this.provider, part.providerMetadata);
        return;
      case 'error':
        this.error ??= { error: part.error };
        return;
      default:
        // stream-start (warnings), raw chunks, sources, files, provider-executed tool results and their
        // approval requests; V4's reasoning files, custom content and pings; whatever a later release adds.
        return;
    }
  }

  private textPart(type: TextPart['type'], id: string, metadata: AnyMetadata): TextPart {
    let p = this.parts.find((x): x is TextPart => x.type === type && x.id === id);
    if (!p) {
      p = { type, id, text: '', signature: '' };
      this.parts.push(p);
    }
    // An Anthropic thinking signature (or redacted thinking) arrives in the metadata of a reasoning part.
    const anthropic = metadata?.anthropic;
    if (type === 'thinking' && isRecord(anthropic)) {
      if (str(anthropic.signature)) p.signature = str(anthropic.signature);
      if (str(anthropic.redactedData)) p.redacted = str(anthropic.redactedData);
    }
    return p;
  }

  private call(id: string, name: string): CallPart {
    let c = this.calls.get(id);
    if (!c) {
      c = { type: 'call', id, name, index: this.callCount++, args: '', final: false };
      this.calls.set(id, c);
      this.parts.push(c);
    }
    if (name) c.name = name;
    return c;
  }

  /** The assembled response (call once the stream has ended). */
  result(): ModelResponse {
    const content: AssistantContent[] = [];
    const truncated = aiSdkFinishName(this.finish) === 'length';
    for (const p of this.parts) {
      if (p.type === 'call') content.push(streamedCallBlock(p, truncated));
      else if (p.type === 'text') {
        if (p.text) content.push({ type: 'text', text: p.text });
      } else if (p.redacted) {
        content.push({ type: 'redacted_thinking', data: p.redacted });
      } else if (p.text || p.signature) {
        content.push({ type: 'thinking', thinking: p.text, signature: p.signature });
      }
    }
    return {
      message: { role: 'assistant', content },
      stopReason: aiSdkStopReason(this.finish, this.callCount > 0),
      usage: { ...this.usage },
      model: this.model,
    };
  }
}
