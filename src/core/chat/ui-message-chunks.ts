/**
 * The part of the AI SDK's UI message stream protocol (`ai` 7: `UIMessageChunk`, `UIMessage`) a durable
 * chat speaks: our own types, structurally identical to the AI SDK's, so this layer needs no `ai`.
 */

/** Why an assistant message ended (the AI SDK's `FinishReason`). */
export type ChatFinishReason = 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'interrupted' | 'other';

/** The assistant message of a turn begins (or, in a continuation, goes on): its stable id. */
export interface StartChunk {
  type: 'start';
  messageId: string;
}
/** The message is complete for now (answered, or waiting for an approval: `tool-calls`). */
export interface FinishChunk {
  type: 'finish';
  finishReason: ChatFinishReason;
}
/** A model call begins. */
export interface StartStepChunk {
  type: 'start-step';
}
/** A step (a model call and its tools) is complete. */
export interface FinishStepChunk {
  type: 'finish-step';
}
/** Drop every part of the current step shown so far (a voided attempt, or text to be shown again whole). */
export interface ResetStepChunk {
  type: 'reset-step';
}
/** The run failed: the chat shows `errorText`. */
export interface ErrorChunk {
  type: 'error';
  errorText: string;
}
/** A text part begins. */
export interface TextStartChunk {
  type: 'text-start';
  id: string;
}
/** More text of an open text part. */
export interface TextDeltaChunk {
  type: 'text-delta';
  id: string;
  delta: string;
}
/** A text part is complete. */
export interface TextEndChunk {
  type: 'text-end';
  id: string;
}
/** A reasoning part begins. */
export interface ReasoningStartChunk {
  type: 'reasoning-start';
  id: string;
}
/** More reasoning text. */
export interface ReasoningDeltaChunk {
  type: 'reasoning-delta';
  id: string;
  delta: string;
}
/** A reasoning part is complete. */
export interface ReasoningEndChunk {
  type: 'reasoning-end';
  id: string;
}
/** A tool call's arguments begin to stream. */
export interface ToolInputStartChunk {
  type: 'tool-input-start';
  toolCallId: string;
  toolName: string;
}
/** More of a tool call's arguments (partial JSON text). */
export interface ToolInputDeltaChunk {
  type: 'tool-input-delta';
  toolCallId: string;
  inputTextDelta: string;
}
/** A tool call's complete arguments. */
export interface ToolInputAvailableChunk {
  type: 'tool-input-available';
  toolCallId: string;
  toolName: string;
  input: unknown;
}
/** A tool call whose arguments are not valid: it does not run. */
export interface ToolInputErrorChunk {
  type: 'tool-input-error';
  toolCallId: string;
  toolName: string;
  input: unknown;
  errorText: string;
}
/** A tool call waits for a person's decision (`approvalId` is the call id). */
export interface ToolApprovalRequestChunk {
  type: 'tool-approval-request';
  approvalId: string;
  toolCallId: string;
}
/** A person decided (in this chat or anywhere else), or the approval expired (`approved: false`). */
export interface ToolApprovalResponseChunk {
  type: 'tool-approval-response';
  approvalId: string;
  approved: boolean;
  reason?: string;
}
/** A tool call's result (`output`: the start of its text, the run's `preview`). */
export interface ToolOutputAvailableChunk {
  type: 'tool-output-available';
  toolCallId: string;
  output: unknown;
}
/** A tool call failed. */
export interface ToolOutputErrorChunk {
  type: 'tool-output-error';
  toolCallId: string;
  errorText: string;
}
/** A tool call was denied (or its approval expired): it did not run. */
export interface ToolOutputDeniedChunk {
  type: 'tool-output-denied';
  toolCallId: string;
}

/**
 * A running tool call's newest progress: a transient data part (the AI SDK hands it to `useChat`'s
 * `onData`, never to the message's parts). `id` is the tool call's id, so a newer update replaces it.
 */
export interface DataToolProgressChunk {
  type: 'data-tool-progress';
  id: string;
  data: ToolProgressData;
  transient: true;
}

/** What a `data-tool-progress` part holds. */
export interface ToolProgressData {
  toolCallId: string;
  toolName: string;
  attempt: number;
  message: string;
  fraction?: number;
  data?: unknown;
}

/** Every UI message chunk a durable chat emits (a subset of the AI SDK's `UIMessageChunk`). */
export type ChatChunk =
  | StartChunk
  | FinishChunk
  | StartStepChunk
  | FinishStepChunk
  | ResetStepChunk
  | ErrorChunk
  | TextStartChunk
  | TextDeltaChunk
  | TextEndChunk
  | ReasoningStartChunk
  | ReasoningDeltaChunk
  | ReasoningEndChunk
  | ToolInputStartChunk
  | ToolInputDeltaChunk
  | ToolInputAvailableChunk
  | ToolInputErrorChunk
  | ToolApprovalRequestChunk
  | ToolApprovalResponseChunk
  | ToolOutputAvailableChunk
  | ToolOutputErrorChunk
  | ToolOutputDeniedChunk
  | DataToolProgressChunk;

/**
 * A chunk and the position right after it in the turn's stream: pass the cursor back (`?after=`) to get
 * exactly what follows. Opaque: `<turn start seq>.<last durable seq>[.<step>.<attempt>]`.
 */
export interface CursoredChunk {
  chunk: ChatChunk;
  cursor: string;
}

/** Text in a message. */
export interface ChatTextPart {
  type: 'text';
  text: string;
  state?: 'streaming' | 'done';
}
/** Model reasoning in a message. */
export interface ChatReasoningPart {
  type: 'reasoning';
  text: string;
  state?: 'streaming' | 'done';
}
/** Where a model call begins in a message. */
export interface ChatStepStartPart {
  type: 'step-start';
}
/** The approval of a tool call: asked (`approved` absent), or answered. */
export interface ChatToolApproval {
  id: string;
  approved?: boolean;
  reason?: string;
}
/** The state of a tool call part (the AI SDK's `UIToolInvocation` states). */
export type ChatToolState =
  | 'input-streaming'
  | 'input-available'
  | 'approval-requested'
  | 'approval-responded'
  | 'output-available'
  | 'output-error'
  | 'output-denied';
/** A tool call in a message: its type is `tool-<tool name>`. */
export interface ChatToolPart {
  type: `tool-${string}`;
  toolCallId: string;
  state: ChatToolState;
  input?: unknown;
  output?: unknown;
  errorText?: string;
  approval?: ChatToolApproval;
}
/** A part of a chat message. */
export type ChatMessagePart = ChatTextPart | ChatReasoningPart | ChatStepStartPart | ChatToolPart;

/** A chat message, shaped as the AI SDK's `UIMessage`. */
export interface ChatMessage {
  id: string;
  role: 'user' | 'assistant';
  parts: ChatMessagePart[];
}
