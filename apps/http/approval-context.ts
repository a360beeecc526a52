/**
 * The conversation that led to a run's pending approvals, for display: its last few messages, read
 * from the run's `events` query (model text, tool results, people's messages) and, when the window
 * reaches the run's start, its first prompt from the workflow's input.
 */
// Deep import: @temporalio/common exports no public way to decode one payload through a data converter's codecs.
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import type { AgentRun } from '../../src/entry/client';
import type { AgentWorkflowInput } from '../../src/entry/client';
import type { AgentEvent } from '../../src/entry/client';
import type { ContextMessage } from '../../src/entry/client';

export type { ContextMessage };

/** Messages kept at most. */
export const CONTEXT_MESSAGES = 6;
/** Characters kept of each message's text. */
export const CONTEXT_TEXT_CHARS = 500;
/** Events read back from the end of the run's log. */
const EVENT_WINDOW = 80;

/** `text` cut to {@link CONTEXT_TEXT_CHARS} (with an ellipsis when cut). */
function cut(text: string): string {
  const t = text.trim();
  return t.length > CONTEXT_TEXT_CHARS ? `${t.slice(0, CONTEXT_TEXT_CHARS - 1)}…` : t;
}

/** The message an event stands for, if any. */
function messageOf(e: AgentEvent): ContextMessage | undefined {
  switch (e.type) {
    case 'user_message':
      return { role: 'user', text: e.text };
    case 'text':
      return { role: 'assistant', text: e.text };
    case 'tool_call':
      return { role: 'assistant', text: `calls ${e.tool}(${typeof e.args === 'string' ? e.args : JSON.stringify(e.args)})` };
    case 'tool_result':
      return { role: 'tool', text: `${e.tool}${e.isError ? ' (error)' : ''}: ${e.preview}` };
    default:
      return undefined;
  }
}

/** The run's first prompt, from its workflow input (the first event of its history); undefined if unreadable. */
async function firstPrompt(run: AgentRun): Promise<string | undefined> {
  try {
    const client = run.handle.client;
    const history = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId: run.workflowId },
      maximumPageSize: 1,
    });
    const payloads = history.history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads;
    const input = await decodeFromPayloadsAtIndex<AgentWorkflowInput>(client.options.loadedDataConverter, 0, payloads);
    return typeof input?.prompt === 'string' ? input.prompt : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The last messages (at most {@link CONTEXT_MESSAGES}, each cut to {@link CONTEXT_TEXT_CHARS} characters)
 * of `run` up to its pending calls `callIds` (their own `tool_call` events are left out: the calls are shown
 * as such). Display only: a run it cannot read gives an empty context.
 */
export async function approvalContext(run: AgentRun, callIds: readonly string[]): Promise<ContextMessage[]> {
  try {
    const { events: count } = await run.snapshot();
    const from = Math.max(0, count - EVENT_WINDOW);
    const page = await run.readEvents(from, EVENT_WINDOW);
    const pendingIds = new Set(callIds);
    const messages: ContextMessage[] = [];
    for (const e of page.events) {
      if (e.type === 'tool_call' && pendingIds.has(e.callId)) continue;
      if (e.type === 'approval_requested' && pendingIds.has(e.callId)) break; // what came after did not lead to it
      const m = messageOf(e);
      if (m && m.text.trim()) messages.push(m);
    }
    if (from === 0 && messages.length < CONTEXT_MESSAGES) {
      const prompt = await firstPrompt(run);
      if (prompt?.trim()) messages.unshift({ role: 'user', text: prompt });
    }
    return messages.slice(-CONTEXT_MESSAGES).map((m) => ({ role: m.role, text: cut(m.text) }));
  } catch {
    return [];
  }
}
