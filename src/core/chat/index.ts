/** The chat protocol's pure parts: UI message chunk types, the turn translator, cursors, the history. */
export type * from './ui-message-chunks';
export type { ChatCursor } from './cursor';
export { formatCursor, parseCursor } from './cursor';
export type { ChatStreamEvent, TurnTranslatorOptions } from './turn-translator';
export { assistantMessageId, TurnTranslator } from './turn-translator';
export { isToolPart, MessageAssembler } from './apply-chunks';
export type { ChatTurn, TurnStatus } from './history';
export { chatHistory, chatTurns, lastTurnStatus } from './history';
