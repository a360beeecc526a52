/**
 * Per-step measurements of one agent run, taken inside the worker: when each step's model call began,
 * the time the model (provider) took, compaction summaries included, and the blob-store traffic of the step. The provider and the blob
 * store are wrapped, not changed. Steps are told apart by the model call's step number, so the meter is
 * meant for one run at a time (the long-run benchmark).
 */
import { performance } from 'node:perf_hooks';
import type { BlobRef } from '../src/core/messages/messages';
import type { ModelProvider } from '../src/integrations/providers/types';
import type { BlobStore } from '../src/integrations/store/blob-store';

/** What the meter saw of one step. */
export interface StepSample {
  /** `performance.now()` when the step's first model attempt began. */
  startedMs: number;
  /** Milliseconds spent inside the provider's `generate` (the "model": for the scripted one, its token estimate). */
  modelMs: number;
  blobGets: number;
  blobGetBytes: number;
  blobPuts: number;
  /** Compaction summaries written before the step's model call. */
  summaries: number;
}

/** Collects {@link StepSample}s by step number. */
export class StepMeter {
  readonly steps = new Map<number, StepSample>();
  private current: StepSample | undefined;
  /** Called once per step, when its first model attempt begins (e.g. to sample memory). */
  onStep: ((step: number) => void) | undefined;

  /** The provider, timed. */
  provider(inner: ModelProvider): ModelProvider {
    return {
      generate: async (request, ctx) => {
        let sample = this.steps.get(ctx.step);
        if (!sample) {
          sample = { startedMs: performance.now(), modelMs: 0, blobGets: 0, blobGetBytes: 0, blobPuts: 0, summaries: 0 };
          this.steps.set(ctx.step, sample);
          this.onStep?.(ctx.step);
        }
        this.current = sample;
        if (ctx.purpose === 'summary') sample.summaries++;
        const started = performance.now();
        try {
          return await inner.generate(request, ctx);
        } finally {
          sample.modelMs += performance.now() - started;
        }
      },
    };
  }

  /** The blob store, counted (traffic goes to the step whose model call began last). */
  store(inner: BlobStore): BlobStore {
    return {
      put: (data: string): Promise<BlobRef> => {
        if (this.current) this.current.blobPuts++;
        return inner.put(data);
      },
      get: async (ref: BlobRef): Promise<string> => {
        const data = await inner.get(ref);
        if (this.current) {
          this.current.blobGets++;
          this.current.blobGetBytes += data.length;
        }
        return data;
      },
    };
  }

  /** Milliseconds per step from step `from` to step `to` (both must have begun). */
  msPerStep(from: number, to: number): number {
    const a = this.steps.get(from);
    const b = this.steps.get(to);
    if (!a || !b) throw new Error(`no timing for step ${a ? to : from}`);
    return (b.startedMs - a.startedMs) / (to - from);
  }

  /** Mean of `pick` over steps `from..to-1`. */
  mean(from: number, to: number, pick: (s: StepSample) => number): number {
    let sum = 0;
    for (let k = from; k < to; k++)
      sum += pick(this.steps.get(k) ?? { startedMs: 0, modelMs: 0, blobGets: 0, blobGetBytes: 0, blobPuts: 0, summaries: 0 });
    return sum / (to - from);
  }
}
