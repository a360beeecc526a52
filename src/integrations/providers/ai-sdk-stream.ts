/**
 * Assembling the stream of an AI SDK language model (`LanguageModelV2StreamPart`s of `@ai-sdk/provider@2`)
 * into a {@link ModelResponse}: text and reasoning by part id, tool calls from `tool-input-*` deltas and
 * their final `tool-call` part (which wins: it is the provider's own assembly), usage and finish reason
 * from `finish`. Tool calls the provider executed itself (provider-defined tools), sources and files are
 * not part of our transcript and are skipped.
 */
import type {
  LanguageModelV2FinishReason,
  LanguageModelV2StreamPart,
  LanguageModelV2Usage,
  SharedV2ProviderMetadata,
} from '@ai-sdk/provider' with { 'resolution-mode': 'import' };
import type { AssistantContent } from '../../core/messages/messages';
import type { ModelResponse, StopReason } from '../../core/output/native-output';
import type { ModelDelta } from '../../core/events/stream';
import type { Usage } from '../../core/budget/usage';
import { parseArguments } from './tool-arguments';

/** Map a V2 finish reason onto ours. Tool calls make any reason but `length` a `tool_use`. */
export function aiSdkStopReason(finish: LanguageModelV2FinishReason | undefined, hasToolCalls: boolean): StopReason {
  if (finish === 'length') return 'max_tokens';
  if (hasToolCalls) return 'tool_use';
  switch (finish) {
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

/**
 * Our usage from a V2 usage. V2 leaves open whether `inputTokens` include the cached ones: the OpenAI
 * family counts them in (taken out here: our `inputTokens` never count cache reads twice), Anthropic
 * (direct, Vertex) and Bedrock count them apart. Cache writes are read from `@ai-sdk/anthropic`'s
 * provider metadata (`cacheCreationInputTokens`), the one provider that reports them there.
 */
export function aiSdkUsage(usage: LanguageModelV2Usage, provider: string, metadata?: SharedV2ProviderMetadata): Usage {
  const input = num(usage.inputTokens);
  const cached = num(usage.cachedInputTokens);
  return {
    inputTokens: CACHE_APART.test(provider) ? input : Math.max(0, input - cached),
    outputTokens: num(usage.outputTokens),
    cacheReadTokens: cached,
    cacheWriteTokens: num(metadata?.anthropic?.cacheCreationInputTokens),
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
  private finish: LanguageModelV2FinishReason | undefined;
  private usage: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  private model = '';
  /** The first `error` part, if any. */
  error: { error: unknown } | undefined;

  /**
   * @param provider the model's `provider` name (decides how its usage is read).
   * @param onDelta receives each piece of text, reasoning and tool-call arguments as it arrives.
   */
  constructor(
    private readonly provider: string,
    private readonly onDelta?: (delta: ModelDelta) => void,
  ) {}

  /** True once the `finish` part arrived. */
  get complete(): boolean {
    return this.finish !== undefined;
  }

  /** Apply one stream part. */
  push(part: LanguageModelV2StreamPart): void {
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
        return;
      }
      case 'response-metadata':
        if (!this.model && part.modelId) this.model = part.modelId;
        return;
      case 'finish':
        this.finish = part.finishReason;
        this.usage = aiSdkUsage(part.usage, this.provider, part.providerMetadata);
        return;
      case 'error':
        this.error ??= { error: part.error };
        return;
      default:
        // stream-start (warnings), raw chunks, sources, files, provider-executed tool results.
        return;
    }
  }

  private textPart(type: TextPart['type'], id: string, metadata: SharedV2ProviderMetadata | undefined): TextPart {
    let p = this.parts.find((x): x is TextPart => x.type === type && x.id === id);
    if (!p) {
      p = { type, id, text: '', signature: '' };
      this.parts.push(p);
    }
    // An Anthropic thinking signature (or redacted thinking) arrives in the metadata of a reasoning part.
    const anthropic = metadata?.anthropic;
    if (type === 'thinking' && anthropic && typeof anthropic === 'object' && !Array.isArray(anthropic)) {
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
    const truncated = this.finish === 'length';
    for (const p of this.parts) {
      if (p.type === 'call') {
        const { input, inputError } = parseArguments(p.args);
        content.push({
          type: 'tool_use',
          id: p.id,
          name: p.name,
          input,
          ...(inputError !== undefined ? { inputError } : {}),
          // Arguments that do not parse in an answer cut off at the length limit were cut off too.
          ...(truncated && inputError !== undefined ? { incomplete: true as const } : {}),
        });
      } else if (p.type === 'text') {
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
