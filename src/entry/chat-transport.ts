/**
 * `durable-agent/chat-transport`: the browser side of a durable chat, the AI SDK `ChatTransport` for
 * `useChat`. Loads nothing but `fetch` and streams (no Node, no Temporal).
 *
 * @example
 * ```ts
 * const { messages, sendMessage } = useChat({ id: chatId, transport: new DurableChatTransport(), resume: true });
 * ```
 */
export { ChatHttpError, DurableChatTransport } from '../browser/chat-transport';
export type { ChatHeaders, DurableChatTransportOptions } from '../browser/chat-transport';
export type * from '../core/chat/ui-message-chunks';
