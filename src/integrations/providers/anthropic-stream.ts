/**
 * Assembling a streamed Messages API response from its raw events. Written against the protocol, not
 * the SDK's snapshot helper, so that: a tool input sent whole in `content_block_start` (as some proxies
 * do) is kept when no `input_json_delta` follows; a `tool_use` block that never stopped (max_tokens in
 * the middle of its JSON) is flagged incomplete; unknown events, block types and fields are ignored.
 */
import type { JsonObject, JsonValue } from '../../core/messages/json';
import type { AssistantContent, ToolUseBlock } from '../../core/messages/messages';
import type { ModelResponse, StopReason } from '../../core/output/native-output';
import type { ModelDelta } from '../../core/events/stream';
import type { Usage } from '../../core/budget/usage';
import type { ParsedArguments } from './tool-arguments';
import { parseArguments } from './tool-arguments';

type Block =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; startInput: unknown; json: string; stopped: boolean }
  | { type: 'ignored' };

/** A stream event as far as this parser relies on it; every field is checked before use. */
interface RawEvent {
  type?: unknown;
  index?: unknown;
  message?: { model?: unknown; usage?: unknown };
  content_block?: {
    type?: unknown;
    text?: unknown;
    thinking?: unknown;
    signature?: unknown;
    data?: unknown;
    id?: unknown;
    name?: unknown;
    input?: unknown;
  };
  delta?: { type?: unknown; text?: unknown; thinking?: unknown; signature?: unknown; partial_json?: unknown; stop_reason?: unknown };
  usage?: unknown;
  error?: { type?: unknown; message?: unknown };
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Map the API's stop reason onto ours (`model_context_window_exceeded` and future ones become `other`). */
export function anthropicStopReason(reason: unknown): StopReason {
  switch (reason) {
    case 'end_turn':
    case 'tool_use':
    case 'max_tokens':
    case 'stop_sequence':
    case 'refusal':
    case 'pause_turn':
      return reason;
    default:
      return 'other';
  }
}

/** An `error` event delivered as a plain stream item (no `event: error` line, so the SDK did not throw). */
export class AnthropicStreamError extends Error {
  constructor(
    readonly type: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'AnthropicStreamError';
  }
}

/** Accumulates one streamed message. Feed it every event, then read {@link result}. */
export class AnthropicStreamAssembler {
  private readonly blocks = new Map<number, Block>();
  /** Position among the answer's tool calls of each tool_use block, by block index. */
  private readonly callOrdinals = new Map<number, number>();
  private model = '';
  private stop: unknown = null;
  private readonly usage: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  private started = false;
  private stopped = false;

  /**
   * @param onDelta receives each piece of text, thinking and tool-call arguments as it arrives.
   * @param onToolCall receives each tool call once its block stopped (its arguments are complete).
   */
  constructor(
    private readonly onDelta?: (delta: ModelDelta) => void,
    private readonly onToolCall?: (index: number, call: ToolUseBlock) => void,
  ) {}

  /** True once `message_stop` arrived: the response is complete. */
  get complete(): boolean {
    return this.stopped;
  }

  /** Apply one raw stream event. */
  push(event: unknown): void {
    if (!isObject(event)) return;
    const e = event as RawEvent;
    switch (e.type) {
      case 'message_start':
        this.started = true;
        if (typeof e.message?.model === 'string') this.model = e.message.model;
        this.addUsage(e.message?.usage);
        return;
      case 'content_block_start':
        if (typeof e.index === 'number' && e.content_block) {
          const block = startBlock(e.content_block);
          this.blocks.set(e.index, block);
          if (block.type === 'tool_use') this.callOrdinals.set(e.index, this.callOrdinals.size);
        }
        return;
      case 'content_block_delta':
        if (typeof e.index === 'number' && e.delta) this.applyDelta(e.index, e.delta);
        return;
      case 'content_block_stop': {
        const b = typeof e.index === 'number' ? this.blocks.get(e.index) : undefined;
        if (b?.type === 'tool_use' && !b.stopped) {
          b.stopped = true;
          if (this.onToolCall) this.onToolCall(this.callOrdinals.get(e.index as number) ?? 0, toolUseBlock(b));
        }
        return;
      }
      case 'message_delta':
        if (e.delta && 'stop_reason' in e.delta && e.delta.stop_reason != null) this.stop = e.delta.stop_reason;
        this.addUsage(e.usage);
        return;
      case 'message_stop':
        this.stopped = this.started;
        return;
      case 'error':
        throw new AnthropicStreamError(
          typeof e.error?.type === 'string' ? e.error.type : undefined,
          str(e.error?.message) || 'error event in stream',
        );
      default:
        // ping and event types added after this was written
        return;
    }
  }

  private applyDelta(index: number, d: NonNullable<RawEvent['delta']>): void {
    const b = this.blocks.get(index);
    if (!b) return;
    if (d.type === 'text_delta' && b.type === 'text') {
      b.text += str(d.text);
      if (str(d.text)) this.onDelta?.({ type: 'text', text: str(d.text) });
    } else if (d.type === 'thinking_delta' && b.type === 'thinking') {
      b.thinking += str(d.thinking);
      if (str(d.thinking)) this.onDelta?.({ type: 'thinking', text: str(d.thinking) });
    } else if (d.type === 'signature_delta' && b.type === 'thinking') b.signature = str(d.signature);
    else if (d.type === 'input_json_delta' && b.type === 'tool_use') {
      b.json += str(d.partial_json);
      if (str(d.partial_json))
        this.onDelta?.({ type: 'tool_args', call: this.callOrdinals.get(index) ?? 0, tool: b.name, json: str(d.partial_json) });
    }
  }

  /** Usage counters are cumulative totals: a present value replaces the previous one. */
  private addUsage(raw: unknown): void {
    if (!isObject(raw)) return;
    const set = (key: keyof Usage, v: unknown) => {
      if (typeof v === 'number' && Number.isFinite(v)) this.usage[key] = v;
    };
    set('inputTokens', raw.input_tokens);
    set('outputTokens', raw.output_tokens);
    set('cacheReadTokens', raw.cache_read_input_tokens);
    set('cacheWriteTokens', raw.cache_creation_input_tokens);
  }

  /** The assembled response (call once the stream has ended). */
  result(): ModelResponse {
    const content: AssistantContent[] = [];
    for (const index of [...this.blocks.keys()].sort((a, b) => a - b)) {
      const b = this.blocks.get(index) as Block;
      if (b.type === 'text') {
        if (b.text) content.push({ type: 'text', text: b.text });
      } else if (b.type === 'thinking') content.push({ type: 'thinking', thinking: b.thinking, signature: b.signature });
      else if (b.type === 'redacted_thinking') content.push({ type: 'redacted_thinking', data: b.data });
      else if (b.type === 'tool_use') content.push({ ...toolUseBlock(b), ...(b.stopped ? {} : { incomplete: true as const }) });
    }
    return {
      message: { role: 'assistant', content },
      stopReason: anthropicStopReason(this.stop),
      usage: { ...this.usage },
      model: this.model,
    };
  }
}

function startBlock(cb: NonNullable<RawEvent['content_block']>): Block {
  switch (cb.type) {
    case 'text':
      return { type: 'text', text: str(cb.text) };
    case 'thinking':
      return { type: 'thinking', thinking: str(cb.thinking), signature: str(cb.signature) };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: str(cb.data) };
    case 'tool_use':
      return { type: 'tool_use', id: str(cb.id), name: str(cb.name), startInput: cb.input, json: '', stopped: false };
    default:
      // server tool blocks and block types added after this was written
      return { type: 'ignored' };
  }
}

/** A tool_use block as the answer holds it (without the `incomplete` flag). */
function toolUseBlock(b: Extract<Block, { type: 'tool_use' }>): ToolUseBlock {
  const { input, inputError } = toolInput(b);
  return { type: 'tool_use', id: b.id, name: b.name, input, ...(inputError !== undefined ? { inputError } : {}) };
}

/**
 * A tool call's input: the streamed JSON when any arrived, else what `content_block_start` carried.
 * Nothing is repaired: text that is not valid JSON (cut off by max_tokens, or malformed) is kept raw
 * with the parse error.
 */
function toolInput(b: Extract<Block, { type: 'tool_use' }>): ParsedArguments {
  if (!b.json.trim()) return { input: b.startInput === undefined ? {} : (b.startInput as JsonValue) };
  return parseArguments(b.json);
}
