/**
 * The shape the types give a tool call: the tool's name and its arguments. Results, events and pending
 * approvals are generic over it, so an agent's tool names and argument types flow through them.
 */
import type { JsonValue } from './json';

/** A tool call as the types see it: a tool name and its arguments. */
export interface ToolCallShape {
  tool: string;
  args: unknown;
}

/** The call shape of an agent whose tools are not known statically: any name, JSON arguments. */
export interface AnyToolCall extends ToolCallShape {
  tool: string;
  args: JsonValue;
}
