/** The server side of `useChat` over durable sessions. */
export { createChatHandler, defaultChatSessionId, DECISION_WAIT_MS, STILL_WAITING_HEADER } from './handler';
export type { ChatAction, ChatHandler, ChatHandlerOptions, ChatIdentity, ChatRequestContext, ChatRunOptions } from './handler';
export { ChatRequestError, CHAT_ID_PATTERN, MAX_CHAT_BODY_BYTES, parseChatRequest } from './request';
export type { ChatApprovalsRequest, ChatDecision, ChatMessageRequest, ChatRequest } from './request';
export { UI_MESSAGE_STREAM_HEADERS } from './sse';
