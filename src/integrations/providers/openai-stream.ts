/**
 * Assembling a streamed Chat Completions response from its chunks, by the protocol and tolerant of the
 * ways compatible servers differ: tool calls are assembled from `arguments` fragments by `index`, but a
 * server may send a whole call in one chunk, put the first argument fragment in the chunk with the id,
 * reuse index 0 for every call (Ollama: a new id then starts a new call) or omit the index; reasoning
 * arrives as `reasoning_content` (llama.cpp, vLLM) or `reasoning` (Ollama); usage comes in a final chunk
 * with no choices.
 */
import type { JsonObject } from '../../core/messages/json';
import type { AssistantContent, ToolUseBlock } from '../../core/messages/messages';
import type { ModelResponse, StopReason } from '../../core/output/native-output';
import type { ModelDelta } from '../../core/events/stream';
import type { Usage } from '../../core/budget/usage';
import { streamedCallBlock } from './tool-arguments';

interface Call {
  id: string;
  name: string;
  args: string;
}

/** A chunk as far as this parser relies on it; every field is checked before use. */
interface RawChunk {
  model?: unknown;
  usage?: unknown;
  error?: unknown;
  choices?: unknown;
}

interface RawDelta {
  content?: unknown;
  refusal?: unknown;
  reasoning_content?: unknown;
  reasoning?: unknown;
  tool_calls?: unknown;
}

interface RawToolCall {
  index?: unknown;
  id?: unknown;
  function?: { name?: unknown; arguments?: unknown };
}

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Map a finish reason onto ours; `stop` with tool calls (some local servers) means `tool_use`. */
export function openAIStopReason(finish: string | undefined, hasToolCalls: boolean, refused: boolean): StopReason {
  switch (finish) {
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    case 'stop':
      return hasToolCalls ? 'tool_use' : refused ? 'refusal' : 'end_turn';
    default:
      return 'other';
  }
}

/** Accumulates one streamed completion (the first choice). Feed it every chunk, then read {@link result}. */
export class OpenAIStreamAssembler {
  private text = '';
  private reasoning = '';
  private refusal = '';
  private readonly calls: Call[] = [];
  /** Position in `calls` of each index a server used. */
  private readonly byIndex = new Map<number, number>();
  private finish: string | undefined;
  private model = '';
  private usage: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

  /** How many calls were handed to `onToolCall` (a prefix of `calls`). */
  private reported = 0;

  /**
   * @param onDelta receives each piece of text, reasoning and tool-call arguments as it arrives.
   * @param onToolCall receives each tool call once it is complete: once the next call started and its
   * arguments parse, or when the finish reason arrives (the stream never says a call's arguments ended).
   */
  constructor(
    private readonly onDelta?: (delta: ModelDelta) => void,
    private readonly onToolCall?: (index: number, call: ToolUseBlock) => void,
  ) {}

  /** True once a finish reason arrived: the completion is whole (a usage chunk may still follow). */
  get complete(): boolean {
    return this.finish !== undefined;
  }

  /** Apply one chunk. */
  push(chunk: unknown): void {
    if (!isObject(chunk)) return;
    const c = chunk as RawChunk;
    if (!this.model && typeof c.model === 'string') this.model = c.model;
    if (isObject(c.usage)) this.setUsage(c.usage);
    const choice = Array.isArray(c.choices)
      ? (c.choices.find((x) => isObject(x) && (x.index ?? 0) === 0) as JsonObject | undefined)
      : undefined;
    if (!choice) return;
    if (isObject(choice.delta)) this.applyDelta(choice.delta as RawDelta);
    if (typeof choice.finish_reason === 'string') {
      this.finish = choice.finish_reason;
      this.reportCalls(this.calls.length, true);
    }
  }

  /**
   * Hand calls before `end` to `onToolCall` (once each, in order). Before the finish reason, a call is
   * complete once a later call started and its arguments parse (a JSON object is closed: nothing more
   * can follow; servers that interleave parallel calls' fragments may still be sending an unclosed one);
   * at the finish, every call is, but one cut off at the length limit never.
   */
  private reportCalls(end: number, finished = false): void {
    if (!this.onToolCall) return;
    for (; this.reported < end; this.reported++) {
      const block = streamedCallBlock(this.calls[this.reported]!, this.finish === 'length');
      // Before the finish, nothing sent yet (it parses as `{}`) is not a complete call either.
      const open = !finished && (block.inputError !== undefined || !this.calls[this.reported]!.args.trim());
      if (block.incomplete || open) return;
      this.onToolCall(this.reported, block);
    }
  }

  private applyDelta(d: RawDelta): void {
    const text = str(d.content) || str(d.refusal);
    const reasoning = str(d.reasoning_content) || str(d.reasoning);
    this.text += str(d.content);
    this.refusal += str(d.refusal);
    this.reasoning += reasoning;
    if (reasoning) this.onDelta?.({ type: 'thinking', text: reasoning });
    if (text) this.onDelta?.({ type: 'text', text });
    if (!Array.isArray(d.tool_calls)) return;
    for (const raw of d.tool_calls) if (isObject(raw)) this.applyToolCall(raw as RawToolCall);
  }

  private applyToolCall(t: RawToolCall): void {
    const id = str(t.id);
    const index = typeof t.index === 'number' ? t.index : undefined;
    let call: Call | undefined;
    if (index !== undefined) {
      const at = this.byIndex.get(index);
      call = at !== undefined ? this.calls[at] : undefined;
      // A different id at a used index is a new call (Ollama numbers every call 0).
      if (call && id && call.id && id !== call.id) call = undefined;
    } else {
      // No index: a known id continues its call, a new id starts one, no id continues the last.
      call = id ? this.calls.find((x) => x.id === id) : this.calls.at(-1);
    }
    if (!call) {
      call = { id: '', name: '', args: '' };
      this.calls.push(call);
      // A new call starts: the ones before it are complete.
      this.reportCalls(this.calls.length - 1);
      if (index !== undefined) this.byIndex.set(index, this.calls.length - 1);
    }
    if (id) call.id = id;
    const fn = t.function;
    if (isObject(fn)) {
      if (typeof fn.name === 'string' && fn.name) call.name = fn.name;
      const piece = typeof fn.arguments === 'string' ? fn.arguments : isObject(fn.arguments) ? JSON.stringify(fn.arguments) : '';
      call.args += piece;
      // An earlier call's fragment (interleaved) may complete it.
      if (piece && call !== this.calls.at(-1)) this.reportCalls(this.calls.length - 1);
      if (piece)
        this.onDelta?.({ type: 'tool_args', call: this.calls.indexOf(call), ...(call.name ? { tool: call.name } : {}), json: piece });
    }
  }

  private setUsage(u: JsonObject): void {
    const prompt = typeof u.prompt_tokens === 'number' ? u.prompt_tokens : 0;
    const details = isObject(u.prompt_tokens_details) ? u.prompt_tokens_details : {};
    const cached = typeof details.cached_tokens === 'number' ? details.cached_tokens : 0;
    this.usage = {
      // Our inputTokens exclude cache reads, as Anthropic's do; prompt_tokens include them.
      inputTokens: Math.max(0, prompt - cached),
      outputTokens: typeof u.completion_tokens === 'number' ? u.completion_tokens : 0,
      cacheReadTokens: cached,
      cacheWriteTokens: 0,
    };
  }

  /** The assembled response (call once the stream has ended). */
  result(): ModelResponse {
    const content: AssistantContent[] = [];
    // Reasoning text has no signature: it is kept in the transcript but never sent back.
    if (this.reasoning) content.push({ type: 'thinking', thinking: this.reasoning, signature: '' });
    const text = this.text || this.refusal;
    if (text) content.push({ type: 'text', text });
    const truncated = this.finish === 'length';
    for (const c of this.calls) content.push(streamedCallBlock(c, truncated));
    return {
      message: { role: 'assistant', content },
      stopReason: openAIStopReason(this.finish, this.calls.length > 0, this.refusal !== '' && this.text === ''),
      usage: { ...this.usage },
      model: this.model,
    };
  }
}
