/**
 * The model's context as pure rules: how many tokens the next call will send (the provider's last report
 * anchors the count, newer messages are estimated), when to compact, where the conversation may be split
 * (never between a tool call and its result), and what the model is shown — a summary of the older part,
 * the recent messages verbatim, and old tool results replaced by short stubs. The transcript itself is
 * never changed: compaction changes only the view.
 */
import type { Message, ToolResultBlock, UserMessage } from '../messages/messages';
import type { ContextSpec } from '../run/spec';
import type { Usage } from '../budget/usage';
import { addUsage, ZERO_USAGE } from '../budget/usage';

/** Characters per token, for estimates of text the provider has not counted yet. */
export const CHARS_PER_TOKEN = 4;

export type { ContextSpec } from '../run/spec';

/** Defaults of {@link ContextSpec}. */
export const CONTEXT_DEFAULTS = {
  compactAt: 0.8,
  /** Share of the window kept verbatim when compacting (with a known window). */
  keepRecentShare: 0.25,
  /** Kept verbatim when the window is unknown. */
  keepRecentTokens: 20_000,
  keepToolResults: 10,
} as const;

/** Tool results shorter than this (characters) are always shown whole: a stub would not be shorter. */
export const STUB_MIN_CHARS = 1024;

/** The default instructions of the summariser. */
export const SUMMARY_PROMPT = [
  'You compact the context of a long-running agent. Summarise the conversation you are given so the agent can',
  "continue its work without it: the user's goals and instructions (quote exact requirements), decisions made,",
  'what each tool call found that still matters (names, numbers, identifiers, paths, errors), work completed,',
  'work in progress and what comes next. Be specific and complete; omit pleasantries. Write the summary only.',
].join(' ');

/** The text that introduces a summary in what the model is shown. */
export const SUMMARY_HEADER = '[Summary of the earlier conversation, written when it was compacted to fit the context window]';

/** What the workflow keeps about the context between calls (carried across continue-as-new). */
export interface ContextState {
  /** The summary of `messages[0..from)`, in the blob store; absent before the first compaction. */
  summaryRef?: string;
  /** Index in the whole transcript of the first message shown verbatim. */
  from: number;
  /** Tokens the last call sent plus its answer, as the provider reported them, and the transcript length then. */
  anchor?: { tokens: number; messages: number };
  /** Step of the last failed compaction: no new attempt for {@link RETRY_COMPACTION_AFTER_STEPS} steps. */
  failedAtStep?: number;
  /** Compactions so far, and what the summaries cost. */
  compactions: number;
  usage: Usage;
  costUsd: number;
}

/** After a failed compaction, threshold compactions wait this many steps (an overflow still tries at once). */
export const RETRY_COMPACTION_AFTER_STEPS = 5;

/** The state of a run that has not compacted yet. */
export const START_CONTEXT: ContextState = Object.freeze({ from: 0, compactions: 0, usage: ZERO_USAGE, costUsd: 0 });

/** What the model activity needs to build the view: sent with every model call. */
export interface ContextView {
  summaryRef?: string;
  from: number;
  keepToolResults: number;
}

/** The view a call is made with, under `spec` (absent: the whole transcript). */
export function viewOf(state: ContextState | undefined, spec: ContextSpec | undefined): ContextView | undefined {
  if (!spec) return undefined;
  const s = state ?? START_CONTEXT;
  return { ...(s.summaryRef ? { summaryRef: s.summaryRef } : {}), from: s.from, keepToolResults: spec.keepToolResults };
}

/** Estimated tokens of some text. */
export function textTokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** Estimated tokens of one message (stored outputs count by their size). */
export function messageTokens(m: Message): number {
  let chars = 8;
  for (const b of m.content) {
    switch (b.type) {
      case 'text':
        chars += b.text.length;
        break;
      case 'tool_result':
        chars += 32 + (b.output.type === 'text' ? b.output.text.length : b.output.bytes);
        break;
      case 'tool_use':
        chars += 32 + b.name.length + JSON.stringify(b.input ?? null).length;
        break;
      case 'thinking':
        chars += b.thinking.length + b.signature.length;
        break;
      case 'redacted_thinking':
        chars += b.data.length;
        break;
    }
  }
  return textTokens(chars);
}

/** Estimated tokens of messages. */
export function messagesTokens(messages: readonly Message[]): number {
  let n = 0;
  for (const m of messages) n += messageTokens(m);
  return n;
}

/** Tokens a call sent (cache reads and writes included) plus the answer: what the next call starts from. */
export function contextTokens(usage: Usage): number {
  return usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens + usage.outputTokens;
}

/**
 * The context after a model call: the provider's count anchors the estimate at `messages` (the
 * transcript's length with the answer).
 */
export function anchorAt(state: ContextState | undefined, usage: Usage, messages: number): ContextState {
  return { ...(state ?? START_CONTEXT), anchor: { tokens: contextTokens(usage), messages } };
}

/**
 * Estimated tokens of the next call: the anchor plus the messages added since (`added`, the transcript's
 * messages after the anchor). Without an anchor (no call yet, or just compacted): `fallback`.
 */
export function nextCallTokens(state: ContextState | undefined, added: readonly Message[], fallback: number): number {
  const base = state?.anchor ? state.anchor.tokens : fallback;
  return base + messagesTokens(added);
}

/** Why a compaction runs: the estimate passed the threshold, or the provider said the prompt is too long. */
export type CompactionReason = 'threshold' | 'overflow';

/** Whether the next call, estimated at `tokens`, should be preceded by a compaction. */
export function shouldCompact(spec: ContextSpec | undefined, state: ContextState | undefined, tokens: number, step: number): boolean {
  if (!spec?.summarize || spec.windowTokens === undefined) return false;
  if (state?.failedAtStep !== undefined && step - state.failedAtStep < RETRY_COMPACTION_AFTER_STEPS) return false;
  return tokens > spec.windowTokens * spec.compactAt;
}

/**
 * Whether the conversation may be split before `messages[i]`: no tool call before it has its result at or
 * after it. True before an assistant message, and before a user message holding no tool results.
 */
export function isSplitPoint(messages: readonly Message[], i: number): boolean {
  const m = messages[i];
  if (!m) return false;
  return m.role === 'assistant' || !m.content.some((b) => b.type === 'tool_result');
}

/** Whether `messages[i]` starts a user turn (a user message with text and no tool results). */
export function startsUserTurn(messages: readonly Message[], i: number): boolean {
  const m = messages[i];
  return m?.role === 'user' && !m.content.some((b) => b.type === 'tool_result') && m.content.some((b) => b.type === 'text');
}

/**
 * Where to split `messages[from..]` for a compaction: the earliest split point after `from` whose tail
 * (estimated) fits in `keepTokens`, moved forward to a user-turn boundary when one keeps at least half of
 * that; at least the last message is kept. Undefined when nothing can be summarised (no split point after
 * `from` and before the end).
 */
export function splitPoint(messages: readonly Message[], from: number, keepTokens: number): number | undefined {
  const n = messages.length;
  let tail = 0;
  let split: number | undefined;
  for (let i = n - 1; i > from; i--) {
    tail += messageTokens(messages[i]!);
    if (tail > keepTokens && split !== undefined) break;
    if (isSplitPoint(messages, i)) split = i;
  }
  if (split === undefined) return undefined;
  // Prefer a user-turn boundary at or after the split, if it keeps enough.
  let kept = messagesTokens(messages.slice(split));
  for (let i = split; i < n - 1; i++) {
    if (startsUserTurn(messages, i) && i > from) return kept >= keepTokens / 2 || i === split ? i : split;
    kept -= messageTokens(messages[i]!);
    if (kept < keepTokens / 2) break;
  }
  return split;
}

/**
 * Steps whose tool results are shown as stubs when step `step` is called: all up to a multiple of `keep`
 * at least `keep` steps back. Moving in blocks of `keep` keeps the start of the prompt unchanged between
 * blocks (prompt caches stay valid). 0 when nothing is stubbed.
 */
export function stubbedThrough(step: number, keep: number): number {
  if (keep <= 0) return 0;
  const completed = step - 1;
  if (completed <= keep) return 0;
  return Math.floor((completed - keep) / keep) * keep;
}

/** The stub a model sees instead of an old tool result. */
export function stubText(result: ToolResultBlock, chars: number): string {
  const where =
    result.output.type === 'stored' ? `stored as ${result.output.ref}` : `kept in the run's transcript (call ${result.toolUseId})`;
  return `[Earlier tool result omitted to save context: ${chars} characters, ${where}. Call the tool again if you need it.]`;
}

/**
 * What the model is shown: the transcript from `view.from` (the summary before it, when there is one),
 * with the results of steps up to `stubbedThrough(step, view.keepToolResults)` replaced by stubs. Steps
 * are counted by assistant messages in the whole transcript (each model call adds one). The summary,
 * when given, opens the view: merged into its first message when that starts a user turn.
 */
export function contextView(messages: readonly Message[], view: ContextView, step: number, summary?: string): Message[] {
  const through = stubbedThrough(step, view.keepToolResults);
  let assistants = 0;
  for (let i = 0; i < view.from && i < messages.length; i++) if (messages[i]!.role === 'assistant') assistants++;
  const shown: Message[] = [];
  for (let i = view.from; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'assistant') {
      assistants++;
      shown.push(m);
    } else if (assistants > 0 && assistants <= through && m.content.some((b) => b.type === 'tool_result')) {
      shown.push(stubbed(m));
    } else shown.push(m);
  }
  if (summary === undefined) return shown;
  const block = { type: 'text' as const, text: `${SUMMARY_HEADER}\n\n${summary}` };
  const first = shown[0];
  if (first?.role === 'user' && !first.content.some((b) => b.type === 'tool_result')) {
    return [{ role: 'user', content: [block, ...first.content] }, ...shown.slice(1)];
  }
  return [{ role: 'user', content: [block] }, ...shown];
}

function stubbed(m: UserMessage): UserMessage {
  return {
    role: 'user',
    content: m.content.map((b) => {
      if (b.type !== 'tool_result') return b;
      const chars = b.output.type === 'text' ? b.output.text.length : b.output.bytes;
      return chars < STUB_MIN_CHARS ? b : { ...b, output: { type: 'text' as const, text: stubText(b, chars) } };
    }),
  };
}

/** The context after a compaction: a new summary and start, no anchor until the next report. */
export function compacted(
  state: ContextState | undefined,
  out: { summaryRef: string; from: number; usage: Usage; costUsd?: number; tokensAfter: number },
  messages: number,
): ContextState {
  const s = state ?? START_CONTEXT;
  return {
    summaryRef: out.summaryRef,
    from: out.from,
    anchor: { tokens: out.tokensAfter, messages },
    compactions: s.compactions + 1,
    usage: addUsage(s.usage, out.usage),
    costUsd: Math.round((s.costUsd + (out.costUsd ?? 0)) * 1e8) / 1e8,
  };
}

/** The context after a failed compaction: unchanged, but no threshold compaction for a few steps. */
export function compactionFailed(state: ContextState | undefined, step: number): ContextState {
  return { ...(state ?? START_CONTEXT), failedAtStep: step };
}

/** Characters of one tool result the summariser is shown at most. */
export const SUMMARY_TOOL_RESULT_CHARS = 2000;

/**
 * The text the summariser is asked to summarise: the previous summary, then each message rendered as
 * plain text (tool results cut to {@link SUMMARY_TOOL_RESULT_CHARS}). Over `maxChars`, the oldest messages
 * are left out, and the text says how many.
 */
export function summaryRequestText(previous: string | undefined, messages: readonly Message[], maxChars: number): string {
  const lines = messages.map(renderMessage);
  const intro = previous ? `Summary of the conversation before this part:\n${previous}\n\n` : '';
  const outro = '\n\nWrite the summary of everything above now.';
  let budget = Math.max(1000, maxChars - intro.length - outro.length);
  let first = lines.length;
  while (first > 0 && lines[first - 1]!.length + 2 <= budget) {
    budget -= lines[first - 1]!.length + 2;
    first--;
  }
  if (first === lines.length && lines.length > 0) {
    // Not even the newest message fits: keep its end.
    const last = lines[lines.length - 1]!;
    lines[lines.length - 1] = `…${last.slice(last.length - budget + 1)}`;
    first = lines.length - 1;
  }
  const left = first > 0 ? `[${first} earlier message(s) left out: too long to summarise at once]\n\n` : '';
  return `${intro}Conversation to summarise:\n\n${left}${lines.slice(first).join('\n\n')}${outro}`;
}

function renderMessage(m: Message): string {
  const who = m.role === 'user' ? 'User' : 'Assistant';
  const parts: string[] = [];
  for (const b of m.content) {
    switch (b.type) {
      case 'text':
        parts.push(`${who}: ${b.text}`);
        break;
      case 'tool_use':
        parts.push(`Assistant called ${b.name} (call ${b.id}) with ${JSON.stringify(b.input ?? null)}`);
        break;
      case 'tool_result': {
        const text = b.output.type === 'text' ? b.output.text : b.output.preview;
        const size = b.output.type === 'text' ? text.length : b.output.bytes;
        const cut =
          text.length > SUMMARY_TOOL_RESULT_CHARS ? `${text.slice(0, SUMMARY_TOOL_RESULT_CHARS)}… [${size} characters in all]` : text;
        parts.push(`${b.isError ? 'Tool error' : 'Tool result'} (call ${b.toolUseId}): ${cut}`);
        break;
      }
      case 'thinking':
      case 'redacted_thinking':
        break;
    }
  }
  return parts.join('\n');
}
