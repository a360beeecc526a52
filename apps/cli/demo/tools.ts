/** The demo agent's tools. They do real work; nothing here returns canned data. */
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { defineTool, ToolError } from '../../../src/entry/index';
import { stateDir } from '../state-dir';
import { CalculatorError, evaluate } from './calculator';

/** Evaluates arithmetic with the recursive-descent parser in `calculator.ts`. */
export const calculator = defineTool({
  name: 'calculator',
  description: 'Evaluate an arithmetic expression with + - * / ^, parentheses, decimals and unary minus. Returns the exact result.',
  input: z.object({ expression: z.string().min(1).max(500).describe('The expression, e.g. "12*(3+4)" or "-2.5^2/5"') }),
  readOnly: true,
  timeout: '10s',
  execute: ({ expression }) => {
    try {
      return { expression, result: evaluate(expression) };
    } catch (err) {
      if (err instanceof CalculatorError) throw new ToolError(`cannot evaluate "${expression}": ${err.message}`, { retryable: false });
      throw err;
    }
  },
});

/** Counts words (Unicode word segmentation), characters and lines. */
export const wordCount = defineTool({
  name: 'word_count',
  description: 'Count the words, characters and lines of a text.',
  input: z.object({ text: z.string().max(1_000_000) }),
  readOnly: true,
  timeout: '10s',
  execute: ({ text }) => {
    const segmenter = new Intl.Segmenter(undefined, { granularity: 'word' });
    let words = 0;
    for (const s of segmenter.segment(text)) if (s.isWordLike) words++;
    return { words, characters: [...text].length, lines: text === '' ? 0 : text.split(/\r\n|\r|\n/).length };
  },
});

/** Whether `timeZone` is an IANA time zone this runtime knows. */
export function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** The current date and time, optionally in an IANA time zone. */
export const currentTime = defineTool({
  name: 'current_time',
  description: "The current date and time. Optionally give an IANA time zone such as Europe/Paris; default: the worker's zone.",
  input: z.object({ timeZone: z.string().min(1).max(64).optional().describe('IANA time zone, e.g. America/New_York or UTC') }),
  readOnly: true,
  timeout: '10s',
  execute: ({ timeZone }) => {
    if (timeZone !== undefined && !isTimeZone(timeZone)) {
      throw new ToolError(`unknown time zone "${timeZone}"; use an IANA name such as Europe/Paris or UTC`, { retryable: false });
    }
    const now = new Date();
    const format = new Intl.DateTimeFormat('en-US', { dateStyle: 'full', timeStyle: 'long', ...(timeZone ? { timeZone } : {}) });
    return { iso: now.toISOString(), timeZone: format.resolvedOptions().timeZone, local: format.format(now) };
  },
});

/** Where `save_note` writes. */
export function notesFile(): string {
  return stateDir('notes.md');
}

/**
 * Appends a note to `notes.md` in the state folder. Idempotent: each line carries the call's
 * idempotency key, and a retried call whose line is already there does not append it again.
 */
export const saveNote = defineTool({
  name: 'save_note',
  description: 'Save a note for later: appends one line to the notes file. Returns the file path and its line count.',
  input: z.object({ text: z.string().trim().min(1).max(2000).describe('The note, one line') }),
  timeout: '10s',
  execute: async ({ text }, ctx) => {
    const path = notesFile();
    await mkdir(dirname(path), { recursive: true });
    const existing = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return '';
      throw err;
    });
    const marker = `<!-- ${ctx.idempotencyKey} -->`;
    let content = existing;
    if (!existing.includes(marker)) {
      const line = `- ${new Date().toISOString()} ${text.replace(/\s+/g, ' ')} ${marker}\n`;
      const prefix = existing && !existing.endsWith('\n') ? '\n' : '';
      await appendFile(path, prefix + line, 'utf8');
      content = existing + prefix + line;
    }
    return { path, lines: content.split('\n').filter((l) => l !== '').length };
  },
});

/** Every demo tool. */
/** Clear the notes file. Destructive, so a person must approve each call (`durable-agent approve`). */
export const clearNotes = defineTool({
  name: 'clear_notes',
  description: 'Delete every saved note. A person must approve this.',
  input: z.object({}),
  timeout: '10s',
  needsApproval: true,
  approvalTimeout: '1h',
  onApprovalTimeout: 'deny',
  execute: async () => {
    const path = notesFile();
    const existing = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return '';
      throw err;
    });
    const removed = existing.split('\n').filter((l) => l !== '').length;
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, '', 'utf8');
    return { path, removed };
  },
});

export const demoTools = [calculator, wordCount, currentTime, saveNote, clearNotes];
