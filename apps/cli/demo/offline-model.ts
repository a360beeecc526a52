/**
 * The offline demo model: a scripted stand-in for an LLM, used when no API key is configured. It is
 * not an LLM. Step 1 reads the prompt and calls tools; step 2 writes an answer from the tool results
 * it finds in the transcript (it never computes anything itself).
 */
import type { JsonObject, JsonValue } from '../../../src/entry/client';
import type { Message, ToolResultBlock, ToolUseBlock } from '../../../src/entry/client';
import { messageText, outputText, toolCalls } from '../../../src/entry/index';
import type { ModelRequest } from '../../../src/entry/client';
import type { ScriptedToolCall, ScriptedTurn } from '../../../src/entry/worker';

/** Provider name the offline model is registered under. */
export const OFFLINE_PROVIDER = 'scripted';
/** Model name of the offline demo script. */
export const OFFLINE_MODEL = 'offline-demo';
/** First line of every answer of the offline model. */
export const OFFLINE_LABEL = '[offline demo model: scripted, not an LLM; set ANTHROPIC_API_KEY to use Claude]';

const OPERATOR_BETWEEN_OPERANDS = /[\d.)]\s*[-+*/^]\s*[-+(]*\s*[\d.(]/;

function balance(candidate: string): string {
  let s = candidate.trim();
  for (;;) {
    const before = s;
    s = s.replace(/[-+*/^(\s]+$/, '').replace(/^[*/^)+\s]+/, '');
    const open = (s.match(/\(/g) ?? []).length;
    const close = (s.match(/\)/g) ?? []).length;
    if (close > open && s.endsWith(')')) s = s.slice(0, -1);
    else if (open > close && s.startsWith('(')) s = s.slice(1);
    if (s === before) return s;
  }
}

/** The arithmetic expressions in a text, in order of appearance (e.g. `what is 12*(3+4)?` → `12*(3+4)`). */
export function findExpressions(text: string): string[] {
  const found: string[] = [];
  for (const m of text.match(/[\d.+\-*/^()\s]+/g) ?? []) {
    const s = balance(m);
    if (/\d/.test(s) && OPERATOR_BETWEEN_OPERANDS.test(s) && !found.includes(s)) found.push(s);
  }
  return found;
}

/** An IANA time zone named in the text (`Europe/Paris`, `UTC`), if any. Validation is the tool's job. */
export function findTimeZone(text: string): string | undefined {
  return /\b(?:[A-Z][A-Za-z_]+\/[A-Z][A-Za-z_]+(?:\/[A-Z][A-Za-z_]+)?|UTC)\b/.exec(text)?.[0];
}

/** The note to save when the prompt asks to save, remember or note something; undefined otherwise. */
export function findNote(text: string): string | undefined {
  const m = /\b(?:save|remember|note(?:\s+down)?|write\s+down)\b(?:\s+(?:that|this|a\s+note|the\s+note))?\s*:?\s*(.*)$/is.exec(text);
  if (!m) return undefined;
  const rest = (m[1] ?? '').trim().replace(/[.!]+$/, '');
  return rest || text.trim();
}

function promptOf(messages: readonly Message[]): string {
  const first = messages.find((m) => m.role === 'user' && messageText(m));
  return first ? messageText(first) : '';
}

/** Step 1: decide which tools to call for the prompt. */
export function planToolCalls(prompt: string): ScriptedToolCall[] {
  const calls: ScriptedToolCall[] = findExpressions(prompt).map((expression) => ({ name: 'calculator', args: { expression } }));
  calls.push({ name: 'word_count', args: { text: prompt } });
  const timeZone = findTimeZone(prompt);
  calls.push({ name: 'current_time', args: timeZone ? { timeZone } : {} });
  if (/\b(?:clear|delete|erase|wipe)\b.*\bnotes?\b/i.test(prompt)) calls.push({ name: 'clear_notes', args: {} });
  else {
    const note = findNote(prompt);
    if (note !== undefined) calls.push({ name: 'save_note', args: { text: note } });
  }
  return calls;
}

function parsed(text: string): JsonObject | undefined {
  try {
    const v = JSON.parse(text) as JsonValue;
    return v && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** One sentence about one tool result, taken from the result itself. */
function sentence(use: ToolUseBlock, result: ToolResultBlock | undefined): string {
  if (!result) return `${use.name}: no result came back.`;
  const text = outputText(result.output);
  if (result.isError) return `${use.name} reported an error: ${text}`;
  const v = parsed(text);
  switch (use.name) {
    case 'calculator':
      if (v && 'result' in v) return `${String(v.expression)} = ${String(v.result)}`;
      break;
    case 'word_count':
      if (v && 'words' in v) return `Your message has ${String(v.words)} words and ${String(v.characters)} characters.`;
      break;
    case 'current_time':
      if (v && 'local' in v) return `It is now ${String(v.local)} (${String(v.timeZone)}).`;
      break;
    case 'clear_notes':
      if (v && 'removed' in v) return `Cleared ${String(v.path)} (${String(v.removed)} line${v.removed === 1 ? '' : 's'} removed).`;
      break;
    case 'save_note':
      if (v && 'path' in v)
        return `Saved your note to ${String(v.path)} (the notes file now has ${String(v.lines)} line${v.lines === 1 ? '' : 's'}).`;
      break;
  }
  return `${use.name} returned: ${text}`;
}

/** Step 2: the answer, composed from the tool calls of the last assistant turn and their results. */
export function composeAnswer(messages: readonly Message[]): string {
  const lastAssistant = [...messages].reverse().find((m) => m.role === 'assistant');
  const uses = lastAssistant && lastAssistant.role === 'assistant' ? toolCalls(lastAssistant) : [];
  const results = new Map<string, ToolResultBlock>();
  for (const m of messages) {
    if (m.role !== 'user') continue;
    for (const b of m.content) if (b.type === 'tool_result') results.set(b.toolUseId, b);
  }
  const lines = uses.map((u) => sentence(u, results.get(u.id)));
  if (!uses.some((u) => u.name === 'calculator')) lines.unshift('I found no arithmetic to compute in your message.');
  return [OFFLINE_LABEL, ...lines].join('\n');
}

/** The offline demo script, for `ScriptedProvider`. */
export function offlineDemoScript(request: ModelRequest): ScriptedTurn {
  const step = request.messages.filter((m) => m.role === 'assistant').length + 1;
  if (step === 1) {
    const calls = planToolCalls(promptOf(request.messages));
    return { text: `Using my tools: ${calls.map((c) => c.name).join(', ')}.`, toolCalls: calls };
  }
  return { text: composeAnswer(request.messages) };
}
