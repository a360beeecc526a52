/**
 * Builders of protocol-conformant streams for tests that need them per request (the model name echoed,
 * chosen text and usage): Anthropic Messages events and OpenAI Chat Completions chunks, as SSE frames.
 * The fixed protocol cases live as files under `fixtures/`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Read one of the project's own fixture files (`fixtures/<name>`). */
export function fixture(name: string): string {
  return readFileSync(join(__dirname, 'fixtures', name), 'utf8');
}

/** One Anthropic SSE frame. */
export function anthropicFrame(event: { type: string; [key: string]: unknown }): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** The `event: error` frame a Messages stream sends mid-stream. */
export function anthropicErrorFrame(type: string, message: string): string {
  return anthropicFrame({ type: 'error', error: { type, message } });
}

/** A content block to stream. */
export type AnthropicBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  /** `json` (the input text exactly as streamed, valid JSON or not) replaces `input` when given. */
  | { type: 'tool_use'; id: string; name: string; input: unknown; json?: string };

/** Usage of a streamed message. */
export interface StreamUsage {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/**
 * A whole Messages stream: message_start, each block as start / deltas of `chunk` characters / stop
 * (tool input JSON starting with an empty `input_json_delta`, as the API does), message_delta, message_stop.
 */
export function anthropicMessage(opts: {
  model: string;
  id?: string;
  blocks: AnthropicBlock[];
  stopReason: string;
  usage: StreamUsage;
  chunk?: number;
}): string[] {
  const size = opts.chunk ?? 7;
  const usage = {
    input_tokens: opts.usage.input,
    cache_creation_input_tokens: opts.usage.cacheWrite ?? 0,
    cache_read_input_tokens: opts.usage.cacheRead ?? 0,
  };
  const frames = [
    anthropicFrame({
      type: 'message_start',
      message: {
        id: opts.id ?? 'msg_test',
        type: 'message',
        role: 'assistant',
        model: opts.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 },
      },
    }),
  ];
  opts.blocks.forEach((b, index) => {
    if (b.type === 'text') {
      frames.push(anthropicFrame({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
      for (const p of pieces(b.text, size))
        frames.push(anthropicFrame({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: p } }));
    } else if (b.type === 'thinking') {
      frames.push(anthropicFrame({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } }));
      for (const p of pieces(b.thinking, size))
        frames.push(anthropicFrame({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: p } }));
      frames.push(anthropicFrame({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: b.signature } }));
    } else {
      frames.push(
        anthropicFrame({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } }),
      );
      for (const p of ['', ...pieces(b.json ?? JSON.stringify(b.input), size)]) {
        frames.push(anthropicFrame({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: p } }));
      }
    }
    frames.push(anthropicFrame({ type: 'content_block_stop', index }));
  });
  frames.push(
    anthropicFrame({
      type: 'message_delta',
      delta: { stop_reason: opts.stopReason, stop_sequence: null },
      usage: { ...usage, output_tokens: opts.usage.output },
    }),
  );
  frames.push(anthropicFrame({ type: 'message_stop' }));
  return frames;
}

/** One OpenAI SSE frame. */
export function openaiFrame(chunk: unknown): string {
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** A tool call to stream. */
export interface OpenAICall {
  /** Omitted from the stream when empty (servers that send no id). */
  id: string;
  name: string;
  args: unknown;
  /** The arguments text exactly as streamed (valid JSON or not), replacing `args`. */
  rawArgs?: string;
}

/**
 * A whole Chat Completions stream: a role chunk, text deltas, tool calls (as OpenAI streams them —
 * `fragments` — or whole in one chunk each with index 0, as Ollama does — `whole`), the finish chunk,
 * the usage-only chunk and `[DONE]`.
 */
export function openaiCompletion(opts: {
  model: string;
  text?: string;
  calls?: OpenAICall[];
  finish: string;
  usage: { prompt: number; completion: number; cached?: number };
  style?: 'fragments' | 'whole';
  chunk?: number;
}): string[] {
  const size = opts.chunk ?? 7;
  const base = { id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 1_700_000_000, model: opts.model };
  const delta = (d: unknown, finish: string | null = null) =>
    openaiFrame({ ...base, choices: [{ index: 0, delta: d, finish_reason: finish }] });
  const frames = [delta({ role: 'assistant', content: '' })];
  for (const p of pieces(opts.text ?? '', size)) frames.push(delta({ content: p }));
  (opts.calls ?? []).forEach((c, index) => {
    const args = c.rawArgs ?? JSON.stringify(c.args);
    const id = c.id ? { id: c.id } : {};
    if (opts.style === 'whole') {
      frames.push(delta({ tool_calls: [{ ...id, index: 0, type: 'function', function: { name: c.name, arguments: args } }] }));
      return;
    }
    frames.push(delta({ tool_calls: [{ index, ...id, type: 'function', function: { name: c.name, arguments: '' } }] }));
    for (const p of pieces(args, size)) frames.push(delta({ tool_calls: [{ index, function: { arguments: p } }] }));
  });
  frames.push(delta({}, opts.finish));
  frames.push(
    openaiFrame({
      ...base,
      choices: [],
      usage: {
        prompt_tokens: opts.usage.prompt,
        completion_tokens: opts.usage.completion,
        total_tokens: opts.usage.prompt + opts.usage.completion,
        prompt_tokens_details: { cached_tokens: opts.usage.cached ?? 0 },
      },
    }),
  );
  frames.push('data: [DONE]\n\n');
  return frames;
}

/** A JSON error body in Anthropic's shape. */
export function anthropicErrorBody(type: string, message: string): unknown {
  return { type: 'error', error: { type, message }, request_id: 'req_test_0001' };
}

/** A JSON error body in OpenAI's shape. */
export function openaiErrorBody(message: string, type: string, code: string | null = null): unknown {
  return { error: { message, type, param: null, code } };
}

/**
 * A whole OpenAI Responses API stream (`POST /v1/responses`, what `@ai-sdk/openai`'s models speak by
 * default): `response.created`, a `message` output item with its text deltas, `function_call` items
 * with their argument deltas, then `response.completed` with usage — or, with `complete: false`, the
 * stream ends after the items, without its completion event.
 */
export function openaiResponse(opts: {
  model: string;
  text?: string;
  calls?: OpenAICall[];
  usage: { input: number; output: number; cached?: number };
  chunk?: number;
  complete?: boolean;
}): string[] {
  const size = opts.chunk ?? 7;
  const frame = (event: { type: string; [key: string]: unknown }) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
  const response = { id: 'resp_test', object: 'response', created_at: 1_700_000_000, model: opts.model, status: 'in_progress' };
  const frames = [frame({ type: 'response.created', sequence_number: 0, response })];
  let index = 0;
  if (opts.text) {
    const item = { type: 'message', id: 'msg_test', role: 'assistant', status: 'in_progress', content: [] };
    frames.push(frame({ type: 'response.output_item.added', output_index: index, item }));
    for (const p of pieces(opts.text, size)) {
      frames.push(frame({ type: 'response.output_text.delta', item_id: 'msg_test', output_index: index, content_index: 0, delta: p }));
    }
    const content = [{ type: 'output_text', text: opts.text, annotations: [] }];
    frames.push(frame({ type: 'response.output_item.done', output_index: index, item: { ...item, status: 'completed', content } }));
    index++;
  }
  for (const c of opts.calls ?? []) {
    const args = c.rawArgs ?? JSON.stringify(c.args);
    const item = { type: 'function_call', id: `fc_${c.id}`, call_id: c.id, name: c.name, arguments: '', status: 'in_progress' };
    frames.push(frame({ type: 'response.output_item.added', output_index: index, item }));
    for (const p of pieces(args, size)) {
      frames.push(frame({ type: 'response.function_call_arguments.delta', item_id: item.id, output_index: index, delta: p }));
    }
    frames.push(frame({ type: 'response.output_item.done', output_index: index, item: { ...item, arguments: args, status: 'completed' } }));
    index++;
  }
  if (opts.complete === false) return frames;
  const usage = {
    input_tokens: opts.usage.input,
    input_tokens_details: { cached_tokens: opts.usage.cached ?? 0 },
    output_tokens: opts.usage.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: opts.usage.input + opts.usage.output,
  };
  frames.push(frame({ type: 'response.completed', response: { ...response, status: 'completed', usage } }));
  return frames;
}
