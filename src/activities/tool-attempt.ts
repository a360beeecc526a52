/**
 * What one attempt of a tool call notes besides its result: the metrics the tool sets
 * (`ctx.metrics.set`) and the last progress it reports (`ctx.progress`). `runTool` makes one per attempt
 * and puts its {@link ToolAttemptNotes.snapshot} on every result and failure of the attempt.
 */
import type { ToolMetrics } from '../core/tool-calls/metrics';
import { checkMetric } from '../core/tool-calls/metrics';
import type { ToolProgress } from '../core/tool-calls/progress';
import { boundProgress } from '../core/tool-calls/progress';
import type { RedactorSource } from './redaction';
import { NO_SECRETS } from './redaction';

/** The notes of an attempt, as results and failure details carry them (absent fields: nothing noted). */
export interface ToolAttemptSnapshot {
  metrics?: ToolMetrics;
  lastProgress?: ToolProgress;
}

/** The metrics and last progress of one tool call attempt, bounded as they are noted. */
export class ToolAttemptNotes {
  private readonly values = new Map<string, ToolMetrics[string]>();
  private progress: ToolProgress | undefined;

  constructor(private readonly redact: RedactorSource = NO_SECRETS) {}

  /** What the tool's `ctx.metrics` is: `set` checks and keeps one metric (see `checkMetric`; it throws a TypeError for bad input). */
  readonly metrics = {
    set: (name: string, value: number | string | boolean): void => {
      const kept = checkMetric(name, value, new Set(this.values.keys()));
      this.values.set(name, kept);
    },
  };

  /** Keep `p`, bounded (`boundProgress`), as the attempt's last progress; returns what was kept. Never throws. */
  setProgress(p: unknown): ToolProgress {
    this.progress = boundProgress(p);
    return this.progress;
  }

  /** The attempt's metrics and last progress as they stand, with the worker's known secrets redacted. */
  snapshot(): ToolAttemptSnapshot {
    const redactor = this.redact();
    return {
      ...(this.values.size ? { metrics: redactor.value(Object.fromEntries(this.values)) } : {}),
      ...(this.progress ? { lastProgress: redactor.value(this.progress) } : {}),
    };
  }
}
