/**
 * Live output of a model call as it streams: pieces of text, thinking and tool-call arguments. Deltas are
 * never recorded in workflow history; transports carry them to clients, numbered per attempt so a client
 * can put them in order, notice a gap, and drop the text of an attempt that failed (the durable
 * `retrying` event voids it).
 */

/** One piece of a streaming answer. */
export type ModelDelta = TextDelta | ThinkingDelta | ToolArgsDelta;

/** Answer text. */
export interface TextDelta {
  type: 'text';
  text: string;
}

/** Extended thinking (or an OpenAI-compatible server's reasoning). */
export interface ThinkingDelta {
  type: 'thinking';
  text: string;
}

/** Arguments of a tool call, as partial JSON text in the order it arrives. */
export interface ToolArgsDelta {
  type: 'tool_args';
  /** Position of the call among the answer's tool calls (0-based). */
  call: number;
  /** The tool's name, once known. */
  tool?: string;
  /** The next piece of the arguments' JSON text. */
  json: string;
}

/** A delta as transports carry it: which run, step and attempt it belongs to, and its number in the attempt. */
export interface LiveDelta {
  workflowId: string;
  step: number;
  attempt: number;
  /** 0-based number of the delta within its attempt: consecutive, so a gap shows. */
  n: number;
  delta: ModelDelta;
}

/** A live delta as a run's stream delivers it to clients. */
export interface DeltaEvent {
  type: 'delta';
  step: number;
  attempt: number;
  /** Number of the delta within its attempt: consecutive unless some were dropped (a slow reader). */
  n: number;
  delta: ModelDelta;
}

/**
 * What an attempt streamed is void: it failed (a `retrying` event precedes this, or the run ended). Its
 * text never reaches the transcript; clients drop what they showed of it.
 */
export interface AttemptVoidedEvent {
  type: 'attempt_voided';
  step: number;
  attempt: number;
  reason: string;
}

/** A piece of a run's answer text for display: append `text`, or replace the step's text shown so far (`reset`). */
export type TextChunk = { type: 'text'; step: number; text: string } | { type: 'reset'; step: number; text: string };
