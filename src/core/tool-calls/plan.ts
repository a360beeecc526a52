/**
 * From a model answer to the plan of a step: which calls run, in which order, and which are answered
 * without running anything (unknown tool, arguments that are not a JSON object, a truncated response).
 */
import { invalidCallInput } from './call-input';
import type { JsonObject } from '../messages/json';
import type { AssistantMessage, ToolUseBlock } from '../messages/messages';
import { toolCalls } from '../messages/messages';
import type { ToolOutcome } from './outcomes';
import { errorOutcome, unknownToolOutcome } from './outcomes';
import type { AgentSpec, ToolSpec } from '../run/spec';

/** One tool call that will run (once gated), matched against the agent's tool. */
export interface PlannedCall {
  step: number;
  callId: string;
  tool: ToolSpec;
  args: JsonObject;
}

/** What to do with the calls of one model answer. */
export interface StepPlan {
  step: number;
  /** Every call of the answer, in the order the model made them (the transcript's order). */
  calls: ToolUseBlock[];
  /** Calls to execute, in batches run one after the other; calls in a batch run in parallel. */
  batches: PlannedCall[][];
  /** Outcomes known without running anything. */
  immediate: ToolOutcome[];
}

/**
 * How many bytes of tool output one step may send the model inline, all calls together: the tool
 * results of a step travel to the next model call as one activity input, which must stay well under
 * Temporal's 2 MB payload limit. Outputs beyond each call's share are stored by reference.
 */
export const STEP_INLINE_BUDGET_BYTES = 1024 * 1024;

/** The inline limit of each call of a step of `calls` calls: the agent's limit, or its share of the step's budget if smaller. */
export function inlineLimitPerCall(agentLimitBytes: number, calls: number): number {
  return Math.max(0, Math.min(agentLimitBytes, Math.floor(STEP_INLINE_BUDGET_BYTES / Math.max(1, calls))));
}

/** Plan the calls of `message`, answered at `step`. */
export function planStep(spec: AgentSpec, step: number, message: AssistantMessage): StepPlan {
  const calls = toolCalls(message);
  const runnable: PlannedCall[] = [];
  const immediate: ToolOutcome[] = [];
  for (const call of calls) {
    const tool = spec.tools.find((t) => t.name === call.name);
    const invalid = invalidCallInput(call);
    if (!tool)
      immediate.push(
        unknownToolOutcome(
          call.id,
          call.name,
          spec.tools.map((t) => t.name),
        ),
      );
    else if (invalid !== undefined) immediate.push(errorOutcome(call.id, call.name, invalid));
    else runnable.push({ step, callId: call.id, tool, args: call.input as JsonObject });
  }
  return { step, calls, batches: batchCalls(runnable), immediate };
}

/**
 * Group calls into batches that run one after the other. Consecutive read-only calls share a batch
 * and run in parallel; every other call is a batch of its own, so writes keep the model's order and
 * a read after a write sees the write.
 */
export function batchCalls(calls: readonly PlannedCall[]): PlannedCall[][] {
  const batches: PlannedCall[][] = [];
  let reads: PlannedCall[] = [];
  for (const call of calls) {
    if (call.tool.readOnly) {
      reads.push(call);
      continue;
    }
    if (reads.length) batches.push(reads);
    reads = [];
    batches.push([call]);
  }
  if (reads.length) batches.push(reads);
  return batches;
}
