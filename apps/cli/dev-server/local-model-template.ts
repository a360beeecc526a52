/**
 * The chat template the project gives the tiny local model. Gemma 3 270M (the base model) ships with
 * none, and without one llama.cpp ignores `tools`. This one lists the tools, shows one example (a call,
 * its result, an answer in words), and
 * renders calls as `<tool_call>{"name": …, "arguments": …}</tool_call>`, a format llama.cpp's tool-call
 * parser recognises (Hermes-style), so the server streams OpenAI `tool_calls` deltas.
 */

/** Closing tag of a call: the provider stops generation there, so a turn carries one call. */
export const TOOL_CALL_END = '</tool_call>';

/**
 * Stop sequences for the local model: after a call, and before the model starts writing the next
 * user turn itself (a base model continues the transcript).
 */
export const LOCAL_MODEL_STOP = [TOOL_CALL_END, '\nUser:', '\nTool result:'];

/** Jinja chat template (llama.cpp's minja dialect) for a base model with tools. */
export const LOCAL_MODEL_CHAT_TEMPLATE = [
  // llama.cpp's template engine trims the newline after a block tag: every line break is written out.
  '{{- bos_token -}}',
  '{%- if tools -%}',
  "Tools you can call:{{ '\\n' }}",
  '{%- for tool in tools -%}',
  "- {{ tool.function.name }}: {{ tool.function.description }} Arguments (JSON Schema): {{ tool.function.parameters | tojson }}{{ '\\n' }}",
  '{%- endfor -%}',
  `To call a tool, write one line: <tool_call>{"name": "TOOL", "arguments": {...}}</tool_call>{{ '\\n' }}`,
  "Example:{{ '\\n' }}",
  "User: What is the weather in Oslo?{{ '\\n' }}",
  `Assistant: <tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>{{ '\\n' }}`,
  `Tool result: {"city": "Oslo", "weather": "sunny, 18 C"}{{ '\\n' }}`,
  "Assistant: It is sunny and 18 C in Oslo.{{ '\\n\\n' }}",
  '{%- endif -%}',
  '{%- for message in messages -%}',
  "{%- if message.role == 'system' -%}",
  "{{ message.content }}{{ '\\n\\n' }}",
  "{%- elif message.role == 'user' -%}",
  "User: {{ message.content }}{{ '\\n' }}",
  "{%- elif message.role == 'assistant' -%}",
  'Assistant:',
  '{%- if message.content %} {{ message.content }}{% endif -%}',
  '{%- if message.tool_calls -%}',
  '{%- for call in message.tool_calls %} <tool_call>{"name": "{{ call.function.name }}", "arguments": {{ call.function.arguments if call.function.arguments is string else call.function.arguments | tojson }}}</tool_call>{% endfor -%}',
  '{%- endif -%}',
  "{{ '\\n' }}",
  "{%- elif message.role == 'tool' -%}",
  "Tool result: {{ message.content }}{{ '\\n' }}",
  '{%- endif -%}',
  '{%- endfor -%}',
  '{%- if add_generation_prompt -%}',
  'Assistant:',
  '{%- endif -%}',
].join('');
