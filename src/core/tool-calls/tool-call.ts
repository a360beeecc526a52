/**
 * The shape the types give a tool call: the tool's name and its arguments. Results, events and pending
 * approvals are generic over it, so an agent's tool names and argument types flow through them.
 */
import type { JsonValue } from '../messages/json';

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

/**
 * The approval request a spent budget makes when its agent asks (`onBudgetExhausted: 'ask'`): tool
 * `budget`, arguments naming the budget, its limit and what was spent. Approval events and pending
 * approvals of every run may hold one, whatever the agent's tools.
 */
export interface BudgetRequest {
  tool: 'budget';
  args: { budget: 'maxTokens' | 'maxCostUsd' | 'maxTurns'; limit: number; spent: number; message: string };
}
