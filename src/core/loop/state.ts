/** The loop's state, rebuilt by replay from history (never persisted by hand), and what a model step brings. */
import type { ContextState } from '../context/context';
import type { JsonValue } from '../messages/json';
import type { AssistantMessage, Message } from '../messages/messages';
import type { StopReason } from '../output/native-output';
import type { StepReport, ToolCallReport } from '../run/result';
import type { AgentSpec } from '../run/spec';
import type { Usage } from '../budget/usage';
import type { SubAgentSpend } from '../sub-agents/child-run';
import { ZERO_USAGE } from '../budget/usage';
import type { LayerValues } from '../prompt/layers';

/** Loop state: the conversation, what is stored of it, counters and the report so far. */
export interface LoopState {
  agent: string;
  maxSteps: number;
  messages: Message[];
  /** `messages[0..stored)` are already in the transcript store under `head`. */
  stored: number;
  head: string | null;
  /** Model calls completed. */
  step: number;
  /** User turns so far: the first prompt is turn 1 (0 while a session waits for its first message). */
  turn: number;
  /** Answers cut off at the output token limit that were continued (see `maxTokensRecoveries`). */
  recoveries?: number;
  /**
   * What earlier executions of the run (before it continued as new) no longer keep in `messages`,
   * `steps` and `toolCalls`: how many of each, and the cost of the steps left out. Absent in the first.
   */
  earlier?: EarlierPart;
  usage: Usage;
  steps: StepReport[];
  toolCalls: ToolCallReport[];
  /** What the model is shown of the conversation (summary, start), and the token count it is estimated from. */
  context?: ContextState;
  /** What sub-agents (child runs) spent: their usage is in `usage` too; their cost counts in the run's. Absent: none ran. */
  subAgents?: SubAgentSpend;
  /** The run's final text when it is not the last answer's (a tripped guardrail's reason). */
  finalText?: string;
  /** The last final answer that matched the agent's output schema (agents with `output` only). */
  output?: JsonValue;
  /** Final answers of the current turn fed back for not matching the output schema. */
  outputRetries?: number;
  /**
   * The current values of the system prompt's layers (`AgentSpec.layers`), by name. Not messages: they
   * survive compaction, and continue-as-new carries them. Absent: none set.
   */
  layers?: LayerValues;
}

/** The part of a long run's state an execution no longer holds (it is in the store, or counted). */
export interface EarlierPart {
  messages: number;
  steps: number;
  toolCalls: number;
  /** Cost in USD of the steps left out (priced ones). */
  costUsd: number;
  /** Steps left out whose model had no price. */
  unpricedSteps: number;
}

/** The output of a completed model step, as the model activity returns it (plus the attempts it took). */
export interface ModelStep {
  head: string;
  message: AssistantMessage;
  stopReason: StopReason;
  usage: Usage;
  provider: string;
  model: string;
  latencyMs: number;
  attempts: number;
  /** Attempts lost with their worker (retried without counting in `attempts`); absent: none. */
  workerLosses?: number;
  /** Cost in USD, when the worker's price table knows the model. */
  costUsd?: number;
  /** A final answer that matched the agent's output schema: the validated value (agents with `output` only). */
  output?: JsonValue;
  /** A final answer that did not match the agent's output schema: what is wrong, for the model to fix. */
  outputErrors?: string;
  /** What the agent's layer functions computed for this call (`null`: nothing), recorded so replay never calls them. */
  layers?: Record<string, string | null>;
}

/** The first state of a run: the user's prompt, nothing stored yet. */
export function startLoop(spec: Pick<AgentSpec, 'name' | 'limits'>, prompt: string, maxSteps?: number): LoopState {
  return {
    agent: spec.name,
    maxSteps: Math.max(1, Math.min(maxSteps ?? spec.limits.maxSteps, spec.limits.maxSteps)),
    messages: prompt ? [{ role: 'user', content: [{ type: 'text', text: prompt }] }] : [],
    stored: 0,
    head: null,
    step: 0,
    turn: prompt ? 1 : 0,
    usage: ZERO_USAGE,
    steps: [],
    toolCalls: [],
  };
}

/** What the model activity needs: the stored transcript's head and the messages not stored yet. */
export function modelInput(state: LoopState): { head: string | null; append: Message[] } {
  return { head: state.head, append: state.messages.slice(state.stored) };
}

/**
 * The message without tool calls whose arguments were cut off (max_tokens): such a call is never
 * executed, and neither the transcript store nor the workflow keeps it.
 */
export function dropIncompleteCalls(message: AssistantMessage): AssistantMessage {
  if (!message.content.some((b) => b.type === 'tool_use' && b.incomplete)) return message;
  return { role: 'assistant', content: message.content.filter((b) => !(b.type === 'tool_use' && b.incomplete)) };
}
