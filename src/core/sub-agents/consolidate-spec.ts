/** A consolidation as data (types only): what a consolidate tool's spec records. The rules are `consolidate.ts`'s. */
import type { Budget } from '../budget/budget';

/** One agent of a consolidation, as recorded (data only). */
export interface ConsolidateMember {
  /** The agent's name (registered on the workers of the task queue). */
  agent: string;
  /**
   * The child's prompt: a template where `{{input}}` stands for the consolidation's input. Absent: the
   * input as it is.
   */
  input?: string;
  /** Lower the agent's budget for this child (each child has its own). */
  budget?: Budget;
}

/** Aggregate by one more agent run: the summariser is prompted with every child's answer (see `aggregationPrompt`). */
export interface AggregateByAgent {
  kind: 'agent';
  /** The summarising agent's name. */
  agent: string;
}

/** Aggregate by a function (in a tool: the worker runs it in an activity, its result recorded). */
export interface AggregateByFunction {
  kind: 'fn';
  /** The function's name, for people reading the spec (the worker finds it by its tool). */
  name: string;
}

/** How the children's answers become one. */
export type AggregateSpec = AggregateByAgent | AggregateByFunction;

/**
 * What happens when a child does not succeed: `include` it in the aggregation (the aggregator is told
 * which failed and why), or `fail` the consolidation (no aggregation; the tool call is an error result).
 */
export type ChildErrorPolicy = 'include' | 'fail';

/** A consolidation, as recorded in a tool's spec. */
export interface ConsolidateSpec {
  agents: ConsolidateMember[];
  aggregate: AggregateSpec;
  onChildError: ChildErrorPolicy;
}
