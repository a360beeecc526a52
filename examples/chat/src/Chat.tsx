import { useChat } from '@ai-sdk/react';
import { isToolUIPart, lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';
import type { UIMessage } from 'ai';
import { DurableChatTransport } from 'durable-agent/chat-transport';
import { useEffect, useState } from 'react';
import { MessageParts } from './MessageParts';

/** One transport for the page: it POSTs to /api/chat with the page's cookie, and resumes the turn in progress. */
const transport = new DurableChatTransport({ api: '/api/chat' });

export function Chat({ id, initialMessages }: { id: string; initialMessages: UIMessage[] }) {
  const { messages, sendMessage, addToolApprovalResponse, resumeStream, status, error, clearError } = useChat({
    id,
    messages: initialMessages,
    transport,
    resume: true, // after a reload: replay the answer in progress, then go on live
    // An Approve / Reject click sends the decision at once (the server decides it as the signed-in user).
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const [input, setInput] = useState('');
  // While a call waits for approval, wait with it: a decision made anywhere else (the CLI, the console, another
  // tab) streams the rest of the answer into this page. Approve / Reject here end the wait (their answer streams).
  const waiting = messages.at(-1)?.parts.some((p) => isToolUIPart(p) && p.state === 'approval-requested') ?? false;
  useEffect(() => {
    if (status === 'ready' && waiting) void resumeStream({ body: { waitForDecision: true } });
  }, [status, waiting, resumeStream]);
  const busy = status === 'submitted' || status === 'streaming';
  return (
    <section className="chat" data-status={status}>
      <ol className="messages">
        {messages.map((m) => (
          <li key={m.id} className={`message ${m.role}`} data-role={m.role} data-message-id={m.id}>
            <MessageParts message={m} onDecide={(approvalId, approved) => addToolApprovalResponse({ id: approvalId, approved })} />
          </li>
        ))}
      </ol>
      {error ? (
        <p className="error send-error" role="alert">
          {error.message} <button onClick={clearError}>Dismiss</button>
        </p>
      ) : null}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (!input.trim()) return;
          void sendMessage({ text: input });
          setInput('');
        }}
      >
        <input
          name="message"
          value={input}
          onChange={(e) => setInput(e.target.value)}
          placeholder="Ask for a long answer, the time, to clear the notes…"
        />
        <button type="submit" disabled={busy}>
          Send
        </button>
      </form>
    </section>
  );
}
