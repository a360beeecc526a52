import { getToolName, isToolUIPart } from 'ai';
import type { UIMessage } from 'ai';

type Part = UIMessage['parts'][number];

const json = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v, null, 2));

/** A message's parts: text, reasoning, tool calls with input, output, approval and errors. */
export function MessageParts({ message, onDecide }: { message: UIMessage; onDecide: (approvalId: string, approved: boolean) => void }) {
  return (
    <>
      {message.parts.map((part, i) => (
        <PartView key={i} part={part} onDecide={onDecide} />
      ))}
    </>
  );
}

function PartView({ part, onDecide }: { part: Part; onDecide: (approvalId: string, approved: boolean) => void }) {
  if (part.type === 'text') return <p className="text">{part.text}</p>;
  if (part.type === 'reasoning')
    return (
      <details className="reasoning" open={part.state === 'streaming'}>
        <summary>Reasoning</summary>
        <p>{part.text}</p>
      </details>
    );
  if (!isToolUIPart(part)) return null;
  const name = getToolName(part);
  return (
    <div className="tool" data-tool={name} data-call={part.toolCallId} data-state={part.state}>
      <div className="tool-head">
        <code className="tool-name">{name}</code> <span className="tool-state">{part.state}</span>
      </div>
      {part.input !== undefined ? <pre className="tool-input">{json(part.input)}</pre> : null}
      {part.state === 'approval-requested' ? (
        <div className="approval">
          <span>This call needs your approval.</span>
          <button className="approve" onClick={() => onDecide(part.approval.id, true)}>
            Approve
          </button>
          <button className="reject" onClick={() => onDecide(part.approval.id, false)}>
            Reject
          </button>
        </div>
      ) : null}
      {part.state === 'approval-responded' ? (
        <div className="approval decided">{part.approval.approved ? 'Approved, running…' : 'Rejected'}</div>
      ) : null}
      {part.state === 'output-available' ? <pre className="tool-output">{json(part.output)}</pre> : null}
      {part.state === 'output-error' ? <p className="tool-error error">{part.errorText}</p> : null}
      {part.state === 'output-denied' ? (
        <p className="tool-denied">Rejected{part.approval?.reason ? `: ${part.approval.reason}` : ''}</p>
      ) : null}
    </div>
  );
}
