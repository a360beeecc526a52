/** Formatting for display. */

/** `$0.0123`; `—` when unknown. */
export function usd(n: number | undefined): string {
  if (n === undefined) return '—';
  if (n === 0) return '$0';
  return n < 0.01 ? `$${n.toFixed(4)}` : `$${n.toFixed(2)}`;
}

/** `850 ms`, `2.4 s`, `3 min 5 s`. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const s = Math.round(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** A time as the browser's locale shows it, with how long ago. */
export function when(iso: string | undefined, now = Date.now()): string {
  if (!iso) return '—';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const ago = now - t;
  const rel = ago < 0 ? 'in the future' : ago < 60_000 ? 'just now' : `${duration(ago).replace(/ \d+ s$/, '')} ago`;
  return `${new Date(t).toLocaleString()} (${rel})`;
}

/** Pretty JSON (2 spaces). */
export function pretty(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The CSS class of a run status. */
export function statusClass(status: string): string {
  if (status === 'success' || status === 'completed') return 'ok';
  if (status === 'running' || status.startsWith('awaiting')) return 'live';
  if (status === 'cancelled' || status === 'canceled' || status === 'max_steps' || status === 'max_tokens') return 'warn';
  return 'bad';
}

/** What a tool call's report entry says of its metrics and last progress. */
export interface ToolCallNotes {
  metrics?: Record<string, number | string | boolean>;
  lastProgress?: { message: string; fraction?: number };
}

/** A tool call's metrics and last progress in one line: `rows=3 source=db · last: scanning (40%)`; `''` when neither. */
export function toolNotes(c: ToolCallNotes): string {
  const parts: string[] = [];
  const metrics = Object.entries(c.metrics ?? {}).map(([name, value]) => `${name}=${String(value)}`);
  if (metrics.length) parts.push(metrics.join(' '));
  const p = c.lastProgress;
  if (p) parts.push(`last: ${p.message}${p.fraction !== undefined ? ` (${Math.round(p.fraction * 100)}%)` : ''}`);
  return parts.join(' · ');
}

/** What a tool call's report entry says of how it ended. */
export interface ToolCallEnding {
  isError: boolean;
  error?: string;
  outcomeUnknown?: boolean;
  child?: { status: string };
  children?: Array<{ agent: string; status: string }>;
}

/**
 * A tool call's outcome cell: its error, `outcome unknown`, `sub-agent success` for an agent tool, or for a
 * consolidate call how many child runs ended how (`3 sub-agents: 2 success, 1 max_steps`); else `ok`.
 */
export function callOutcome(c: ToolCallEnding): string {
  if (c.isError) return c.error ?? 'error';
  if (c.outcomeUnknown) return 'outcome unknown';
  if (c.child) return `sub-agent ${c.child.status}`;
  if (c.children?.length) {
    const counts = new Map<string, number>();
    for (const r of c.children) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
    const by = [...counts].map(([status, n]) => `${n} ${status}`).join(', ');
    return `${c.children.length} sub-agent${c.children.length === 1 ? '' : 's'}: ${by}`;
  }
  return 'ok';
}
