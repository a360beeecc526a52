/**
 * `durable-agent/chat`: the server side of `useChat` over durable sessions — a Web-standard
 * `Request → Response` handler speaking the AI SDK's UI message stream protocol, and its pure parts (the
 * turn translator, cursors, the history).
 */
export {
  ChatRequestError,
  CHAT_ID_PATTERN,
  createChatHandler,
  DECISION_WAIT_MS,
  STILL_WAITING_HEADER,
  defaultChatSessionId,
  MAX_CHAT_BODY_BYTES,
  parseChatRequest,
  UI_MESSAGE_STREAM_HEADERS,
} from '../client/chat';
export type {
  ChatApprovalsRequest,
  ChatDecision,
  ChatAction,
  ChatHandler,
  ChatHandlerOptions,
  ChatIdentity,
  ChatMessageRequest,
  ChatRequest,
  ChatRequestContext,
  ChatRunOptions,
} from '../client/chat';
export {
  assistantMessageId,
  chatHistory,
  chatTurns,
  formatCursor,
  isToolPart,
  lastTurnStatus,
  MessageAssembler,
  parseCursor,
  TurnTranslator,
} from '../core/chat';
export type { ChatCursor, ChatStreamEvent, ChatTurn, TurnStatus, TurnTranslatorOptions } from '../core/chat';
export type * from '../core/chat/ui-message-chunks';
