import type { JsonObject } from '../messages/json';
import type { AssistantMessage, Message } from '../messages/messages';
import type { PromptSpec, ThinkingSpec } from '../run/spec';
import type { Usage } from '../budget/usage';

/** Why the model stopped. */
export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'refusal' | 'pause_turn' | 'other';

/**
 * One part of a composed system prompt (see prompt layers): the parts joined by a blank line are `system`;
 * `cacheBreakpoint` ends the stable prefix a provider may cache (Anthropic's `cache_control`).
 */
export interface SystemPart {
  text: string;
  cacheBreakpoint?: true;
}

/** One request to a model provider, fully resolved (no blob references). */
export interface ModelRequest extends PromptSpec {
  /**
   * The system prompt split where the agent's layers put the cache breakpoint (after the base text and the
   * stable layers); absent for agents without layers. `system` is always the whole text: providers without
   * cache markers send it as it is.
   */
  systemParts?: SystemPart[];
  model: string;
  messages: Message[];
  maxTokens: number;
  temperature?: number;
  /** Extended thinking, for providers that support it (ignored by the others). */
  thinking?: ThinkingSpec;
  /**
   * Native structured output: the answer's text must be JSON matching `schema` (providers that support it
   * constrain the answer, e.g. OpenAI's `response_format: json_schema`). Absent: free text.
   */
  output?: { name: string; schema: JsonObject };
}

/** A provider's answer. */
export interface ModelResponse {
  message: AssistantMessage;
  stopReason: StopReason;
  usage: Usage;
  /** The model that answered, as the provider reported it. */
  model: string;
}
