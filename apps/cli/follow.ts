/**
 * Following a run live: its stream (durable events and the model's answer as it streams) rendered for
 * people by a {@link LiveView}, or one JSON object a line for scripts; then its result.
 */
import type * as OraModule from 'ora';
import type { AgentRun } from '../../src/entry/client';
import type { AgentRunResult } from '../../src/entry/client';
import { OFFLINE_LABEL, OFFLINE_MODEL, OFFLINE_PROVIDER } from './demo/offline-model';
import { aborted } from './abort';
import { loadPeer, PEERS } from '../../src/integrations/optional-peer';
import { formatResult } from './format';
import type { Spinner } from './live-view';
import { LiveView } from './live-view';
import type { Output } from './terminal-output';

/** What the CLI says about the offline demo model. */
export const OFFLINE_NOTE = OFFLINE_LABEL.replace(/^\[|\]$/g, '');

/** Options of {@link followRun}. */
export interface FollowOptions {
  /** Stop following (the run itself goes on). */
  signal: AbortSignal;
  /** Print the offline-model note when the run turns out to use it (unless already printed). */
  offlineNoted?: boolean;
  /** Checked between events, e.g. for a failed in-process worker. */
  check?: () => void;
  /**
   * Show only durable events with a `seq` above this one (and the live deltas from now on): where a
   * follower that was interrupted left off. Default: from the run's first event.
   */
  after?: number;
}

/** How following a run ended. */
export interface FollowOutcome {
  /** The run's result; undefined when following was interrupted first. */
  result: AgentRunResult | undefined;
  /** `seq` of the last durable event shown (undefined if none): resume after it with `tail --after`. */
  lastSeq: number | undefined;
  /** The run's final text was shown as it streamed (the summary need not repeat it). */
  finalTextShown: boolean;
}

/** Whether `out` is a terminal the view may draw on in place (spinner, erasing). */
export function isInteractive(out: Output, env: NodeJS.ProcessEnv = process.env): boolean {
  return !out.jsonMode && Boolean(out.stream.isTTY) && env.TERM !== 'dumb';
}

/** The spinner of an interactive view (enabled outright: the view decided it draws on a terminal). */
export function spinnerFor(stream: NodeJS.WritableStream): Spinner {
  // Loaded here: only a view drawing on a terminal has a spinner (piped and --json output never load it).
  const ora = loadPeer<typeof OraModule.default>(PEERS.ora); // CommonJS: the module is the function
  return ora({ stream, isEnabled: true, discardStdin: false, color: 'cyan' });
}

/**
 * Follow the run from `options.after` until it ends: in JSON mode one `run.stream()` event a line
 * (deltas included), else rendered live. Returns the result (undefined when interrupted).
 */
export async function followRun(run: AgentRun, out: Output, options: FollowOptions): Promise<FollowOutcome> {
  let noted = options.offlineNoted ?? false;
  const offlineLabel = `${OFFLINE_PROVIDER}/${OFFLINE_MODEL}`;
  const interactive = isInteractive(out);
  const view = new LiveView(out, { workflowId: run.workflowId, interactive, ...(interactive ? { spinner: spinnerFor(out.stream) } : {}) });
  let lastSeq: number | undefined;
  let lastTextStep: number | undefined;
  const outcome = (result: AgentRunResult | undefined): FollowOutcome => ({
    result,
    lastSeq,
    finalTextShown: Boolean(result?.finalText) && lastTextStep !== undefined && view.textOf(lastTextStep) === result?.finalText,
  });
  try {
    const after = options.after !== undefined ? options.after + 1 : 0;
    for await (const e of run.stream({ after, signal: options.signal })) {
      options.check?.();
      if ('seq' in e) lastSeq = e.seq;
      if (out.jsonMode) {
        out.jsonLine(e);
        continue;
      }
      view.push(e);
      if (e.type === 'text') lastTextStep = e.step;
      if (e.type === 'run_started' && e.model === offlineLabel && !noted) {
        view.lines([out.styles.yellow(`note: ${OFFLINE_NOTE}`)]);
        noted = true;
      }
    }
    view.finish();
    if (options.signal.aborted) return outcome(undefined);
    const pending = run.result();
    pending.catch(() => undefined); // still observed below unless interrupted first
    return outcome(await Promise.race([pending, aborted(options.signal).then(() => undefined)]));
  } catch (err) {
    view.finish();
    // After Ctrl-C, a failed query or poll is a consequence of the interruption (the server may be gone too).
    if (options.signal.aborted) return outcome(undefined);
    throw err;
  }
}

/** Print a result: its JSON in JSON mode, else the summary and run report (for `result`). */
export function printResult(out: Output, result: AgentRunResult): void {
  out.json(result);
  out.line('', ...formatResult(result, out.styles));
}

/**
 * Close a followed run: in JSON mode the JSON-lines stream's last record, `{"type":"result","result":…}`;
 * else the summary (status, steps, tokens, cost, duration) and run report, without repeating a final
 * text just shown.
 */
export function printSummary(out: Output, result: AgentRunResult, options: { finalTextShown?: boolean } = {}): void {
  out.jsonLine({ type: 'result', result });
  out.line('', ...formatResult(result, out.styles, options));
}

/** What to type to go on following a run where a follower left off. */
export function resumeHint(workflowId: string, lastSeq: number | undefined): string {
  return `durable-agent tail ${workflowId}${lastSeq !== undefined ? ` --after ${lastSeq}` : ''}`;
}

/** Exit code of a finished run: 0 for success, 1 otherwise. */
export function exitCodeOf(result: AgentRunResult): number {
  return result.status === 'success' ? 0 : 1;
}
