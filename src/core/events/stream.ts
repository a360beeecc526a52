/**
 * Live output of a model call as it streams: pieces of text, thinking and tool-call arguments. Deltas are
 * never recorded in workflow history; transports carry them to clients, numbered per attempt so a client
 * can put them in order, notice a gap, and drop the text of an attempt that failed (the durable
 * `retrying` event voids it).
 */
import type { JsonValue } from '../messages/json';

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

/**
 * What a running tool reported with `ctx.progress(…)`, as transports carry it (bounded by the worker:
 * `message` at most 500 characters, `fraction` within 0…1, `data` at most 4 KiB of JSON).
 */
export interface ToolProgressUpdate {
  type: 'tool_progress';
  /** The tool's name. */
  tool: string;
  message: string;
  /** How far along the call is, from 0 to 1, when the tool says. */
  fraction?: number;
  /** Any JSON the tool attached (partial output, counters…). */
  data?: JsonValue;
}

/** A delta as transports carry it: a model call's ({@link ModelLiveDelta}) or a running tool's progress ({@link ToolLiveDelta}). */
export type LiveDelta = ModelLiveDelta | ToolLiveDelta;

/** A model call's delta as transports carry it: which run, step and attempt it belongs to, and its number in the attempt. */
export interface ModelLiveDelta {
  workflowId: string;
  step: number;
  attempt: number;
  /** 0-based number of the delta within its attempt: consecutive, so a gap shows. */
  n: number;
  /** Absent: a model call's delta. */
  callId?: undefined;
  delta: ModelDelta;
}

/** A running tool call's progress as transports carry it: numbered per call attempt. */
export interface ToolLiveDelta {
  workflowId: string;
  /** The step whose tool call this is. */
  step: number;
  /** The call's attempt (1-based). */
  attempt: number;
  /** 0-based number of the update within the call's attempt: consecutive, so a gap shows. */
  n: number;
  callId: string;
  delta: ToolProgressUpdate;
}

/**
 * A running tool call's newest progress, as a run's stream delivers it to clients: live only (never in
 * history), at most a few per second per call. Show the newest per `callId`; drop it when the call's
 * `tool_result` comes (the stream sends none after it) or when a later attempt of the call reports.
 */
export interface ToolProgressDelta {
  type: 'tool_progress';
  step: number;
  callId: string;
  tool: string;
  /** The call's attempt that reported it (a retry's progress replaces an earlier attempt's). */
  attempt: number;
  /** Number of the update within the attempt: consecutive unless some were dropped (a slow reader). */
  n: number;
  message: string;
  /** From 0 to 1, when the tool says. */
  fraction?: number;
  data?: JsonValue;
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
