/** Following a run: its events as they arrive, then its result. */
import type { AgentRun } from '../client';
import type { AgentRunResult } from '../core/result';
import { OFFLINE_LABEL, OFFLINE_MODEL, OFFLINE_PROVIDER } from '../demo/offline-model';
import { aborted } from './abort';
import { formatEvent, formatResult } from './format';
import type { Output } from './output';

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
}

/** Print the run's events until it ends, then return its result; undefined when interrupted. */
export async function followRun(run: AgentRun, out: Output, options: FollowOptions): Promise<AgentRunResult | undefined> {
  let noted = options.offlineNoted ?? false;
  const offlineLabel = `${OFFLINE_PROVIDER}/${OFFLINE_MODEL}`;
  try {
    for await (const e of run.events({ signal: options.signal })) {
      options.check?.();
      out.line(...formatEvent(e, out.styles));
      if (e.type === 'run_started' && e.model === offlineLabel && !noted) {
        out.line(out.styles.yellow(`note: ${OFFLINE_NOTE}`));
        noted = true;
      }
    }
    if (options.signal.aborted) return undefined;
    const pending = run.result();
    pending.catch(() => undefined); // still observed below unless interrupted first
    return await Promise.race([pending, aborted(options.signal).then(() => undefined)]);
  } catch (err) {
    // After Ctrl-C, a failed query or poll is a consequence of the interruption (the server may be gone too).
    if (options.signal.aborted) return undefined;
    throw err;
  }
}

/** Print a result: its JSON in JSON mode, else the summary and run report. */
export function printResult(out: Output, result: AgentRunResult): void {
  out.json(result);
  out.line('', ...formatResult(result, out.styles));
}

/** Exit code of a finished run: 0 for success, 1 otherwise. */
export function exitCodeOf(result: AgentRunResult): number {
  return result.status === 'success' ? 0 : 1;
}
