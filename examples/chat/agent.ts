// The chat's agent and its tools, shared by the worker (which runs them) and the server (which names the agent).
// With ANTHROPIC_API_KEY in the worker's environment the agent talks to Claude; without it, to a scripted
// stand-in (not an LLM: it reads your message for a few keywords, calls the tools, and streams its answer slowly,
// so you can reload the page, kill the worker or approve a call while it writes).
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { defineAgent, defineTool, messageText, outputText } from 'durable-agent';
import type { AnyTool, Message, ModelRef, ModelRequest, ScriptedToolCall, ScriptedTurn } from 'durable-agent/worker';

/** The agent's name: the server starts its sessions, the worker runs them. */
export const CHAT_AGENT = 'chat_assistant';

/** Where `save_note` writes: `NOTES_FILE`, else a file in the temporary folder. */
export const notesFile = (): string => process.env.NOTES_FILE ?? join(tmpdir(), 'durable-agent-chat-notes.md');

async function readNotes(): Promise<string> {
  return readFile(notesFile(), 'utf8').catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? '' : Promise.reject(err)));
}

/** Counts the words and characters of a text. */
export const wordCount = defineTool({
  name: 'word_count',
  description: 'Count the words and characters of a text.',
  input: z.object({ text: z.string().max(100_000) }),
  readOnly: true,
  execute: ({ text }) => ({ words: text.split(/\s+/).filter(Boolean).length, characters: [...text].length }),
});

/** The date and time, optionally in an IANA time zone. */
export const currentTime = defineTool({
  name: 'current_time',
  description: 'The current date and time, optionally in an IANA time zone such as Europe/Paris.',
  input: z.object({ timeZone: z.string().max(64).optional() }),
  readOnly: true,
  execute: ({ timeZone }) => ({ iso: new Date().toISOString(), local: new Date().toLocaleString('en-US', timeZone ? { timeZone } : {}) }),
});

/** Appends a note; a retried call (same idempotency key) does not append it twice. */
export const saveNote = defineTool({
  name: 'save_note',
  description: 'Save a note for later (one line).',
  input: z.object({ text: z.string().trim().min(1).max(2000) }),
  execute: async ({ text }, ctx) => {
    const existing = await readNotes();
    const marker = `<!-- ${ctx.idempotencyKey} -->`;
    if (!existing.includes(marker)) {
      await mkdir(dirname(notesFile()), { recursive: true });
      await appendFile(notesFile(), `- ${text.replace(/\s+/g, ' ')} ${marker}\n`, 'utf8');
    }
    return { saved: text, notes: (await readNotes()).split('\n').filter(Boolean).length };
  },
});

/** Deletes every note: destructive, so each call waits for a person's approval (the chat shows Approve / Reject). */
export const clearNotes = defineTool({
  name: 'clear_notes',
  description: 'Delete every saved note. A person must approve this.',
  input: z.object({}),
  needsApproval: true,
  approvalTimeout: '1h',
  onApprovalTimeout: 'deny',
  execute: async () => {
    const removed = (await readNotes()).split('\n').filter(Boolean).length;
    await mkdir(dirname(notesFile()), { recursive: true });
    await writeFile(notesFile(), '', 'utf8');
    return { removed };
  },
});

export const chatTools = [wordCount, currentTime, saveNote, clearNotes];

/** The scripted stand-in's name (provider `scripted`). */
export const DEMO_MODEL = 'chat-demo';

/** The model: Claude when `ANTHROPIC_API_KEY` is set, else the scripted stand-in. */
export function chatModel(env: NodeJS.ProcessEnv = process.env): ModelRef {
  return env.ANTHROPIC_API_KEY
    ? { provider: 'anthropic', model: env.CHAT_MODEL ?? 'claude-sonnet-5-5', maxTokens: 4096 }
    : { provider: 'scripted', model: DEMO_MODEL };
}

/** The chat agent with `tools` (default {@link chatTools}). */
export function chatAgent(tools: readonly AnyTool[] = chatTools, env: NodeJS.ProcessEnv = process.env) {
  return defineAgent({
    name: CHAT_AGENT,
    model: chatModel(env),
    system: 'You are a concise assistant. Use your tools instead of guessing; clear_notes needs a person to approve it.',
    tools,
    maxSteps: 8,
  });
}

/** A long answer, for watching it stream (ask for "a long answer"). */
export const LONG_ANSWER = [
  'A durable agent keeps its conversation in a Temporal workflow, so nothing the model wrote is lost when a process dies.',
  'Every model call is an activity: if the worker running it is killed, another worker runs it again, and the page that',
  'was showing its answer keeps showing it. Reloading the page replays the turn in progress from the start, then goes on',
  'live, so the text you read is exactly the text the run records, with nothing missing and nothing twice. Approvals wait',
  'in the workflow for as long as they need, and a decision made anywhere reaches this chat. That is the whole trick.',
].join(' ');

/** How the stand-in streams `text`: in pieces of about 8 characters, `CHAT_DEMO_INTERVAL_MS` (default 60) apart. */
function streaming(text: string, env: NodeJS.ProcessEnv): { chunks: number; intervalMs: number } {
  return { chunks: Math.max(1, Math.ceil(text.length / 8)), intervalMs: Number(env.CHAT_DEMO_INTERVAL_MS ?? 60) };
}

/** The tools the stand-in calls for a message. */
export function planCalls(text: string): ScriptedToolCall[] {
  const calls: ScriptedToolCall[] = [];
  if (/\b(clear|delete|erase)\b.*\bnotes?\b/i.test(text)) return [{ name: 'clear_notes', args: {} }];
  const note = /\b(?:save|remember|note)\b:?\s*(.+)$/i.exec(text)?.[1];
  if (note) calls.push({ name: 'save_note', args: { text: note } });
  if (/\b(count|words?)\b/i.test(text)) calls.push({ name: 'word_count', args: { text } });
  if (/\b(time|date|clock)\b/i.test(text)) calls.push({ name: 'current_time', args: {} });
  return calls;
}

/** A tool's output in a line: `words 6, characters 32` for `{"words":6,"characters":32}`. */
function inline(output: string): string {
  try {
    const v = JSON.parse(output) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v))
      return Object.entries(v)
        .map(([k, x]) => `${k} ${typeof x === 'string' ? x : JSON.stringify(x)}`)
        .join(', ');
  } catch {
    // not JSON: as it is
  }
  return output;
}

/** The stand-in's sentence about one tool result. */
function sentence(tool: string, output: string, isError: boolean): string {
  if (tool === 'clear_notes' && /denied|rejected|not approved/i.test(output)) return `Clearing the notes was not approved: ${output}`;
  if (isError) return `${tool} failed: ${output}`;
  return `${tool} says ${inline(output)}.`;
}

/** The scripted stand-in: plans tool calls from the newest user message, then answers from their results. */
export function demoScript(env: NodeJS.ProcessEnv = process.env) {
  return (request: ModelRequest): ScriptedTurn => {
    const messages: readonly Message[] = request.messages;
    const last = messages.at(-1);
    const results = last?.role === 'user' ? last.content.filter((b) => b.type === 'tool_result') : [];
    if (results.length > 0) {
      const uses = new Map(
        messages.flatMap((m) => (m.role === 'assistant' ? m.content : [])).flatMap((b) => (b.type === 'tool_use' ? [[b.id, b.name]] : [])),
      );
      const text = results.map((r) => sentence(uses.get(r.toolUseId) ?? 'a tool', outputText(r.output), r.isError)).join(' ');
      return { text, stream: streaming(text, env) };
    }
    const said = last ? messageText(last) : '';
    const toolCalls = planCalls(said);
    const text =
      toolCalls.length > 0
        ? 'Let me use my tools for that.'
        : /\blong\b/i.test(said)
          ? LONG_ANSWER
          : `You said: “${said}”. Ask for a long answer, the time, a word count, to save a note or to clear the notes.`;
    return { text, ...(toolCalls.length > 0 ? { toolCalls } : {}), stream: streaming(text, env) };
  };
}
