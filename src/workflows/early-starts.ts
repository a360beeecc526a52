/**
 * Streaming tool execution, the workflow's side: the model activity signals each complete, eligible tool
 * call of the attempt in flight (`earlyToolCall`); the handler starts it at once (a `runTool` activity
 * in its own cancellation scope, cancelled with TRY_CANCEL). The attempt's answer seals the registry;
 * the tool step then takes the early outcome of each call that matches the answer (same id, tool and
 * arguments) instead of running it again. Everything else is cancelled and discarded, never shown to
 * the model: the calls of a failed or voided attempt, of an answer that runs no tools, and mismatches
 * (`early_tool_discarded`). Stale signals (another step or attempt, after the seal, out of order) are
 * ignored: such a call runs after the answer as it would without early starts. Replay re-runs the
 * handler at the signal's place in history, so it issues the same commands.
 */
import { CancellationScope, defineSignal, patched, setHandler } from '@temporalio/workflow';
import { gateFor } from '../core/approvals/approvals';
import { isJsonObject } from '../core/tool-calls/call-input';
import type { EarlyStartsInput, EarlyToolCall } from '../core/tool-calls/early';
import { EARLY_TOOL_CALL_SIGNAL, earlyStartsInput, sameCall } from '../core/tool-calls/early';
import type { ToolOutcome } from '../core/tool-calls/outcomes';
import type { PlannedCall } from '../core/tool-calls/plan';
import { inlineLimitPerCall } from '../core/tool-calls/plan';
import type { ToolCallContext } from './tool-call/context';
import { executeCall } from './tool-call/execute';

/** The signal the model activity sends its own workflow for each call that may start early. */
export const earlyToolCallSignal = defineSignal<[EarlyToolCall]>(EARLY_TOOL_CALL_SIGNAL);

/** What early starts need from the run. */
export type EarlyContext = Pick<ToolCallContext, 'spec' | 'policy' | 'desk' | 'log' | 'running' | 'proxies'>;

interface OpenAttempt extends EarlyStartsInput {
  step: number;
  attempt: number;
  /** The scope the attempt runs in: early calls are cancelled with it (run cancelled, timed out). */
  parent: CancellationScope;
  sealed: boolean;
  /** Index of the next call that may start (calls start in answer order, none skipped). */
  next: number;
}

interface EarlyEntry {
  call: PlannedCall;
  scope: CancellationScope;
  outcome: Promise<ToolOutcome>;
}

/** The early calls of the model attempt in flight, until the tool step takes them or they are discarded. */
export class EarlyStarts {
  private open: OpenAttempt | undefined;
  /** The attempt whose calls `entries` are (kept after the seal, for the tool step). */
  private owner: { step: number; attempt: number } | undefined;
  private readonly entries = new Map<string, EarlyEntry>();

  constructor(private readonly ctx: EarlyContext) {}

  /** Register the signal handler (once per execution). */
  install(): void {
    setHandler(earlyToolCallSignal, (call) => this.receive(call));
  }

  /**
   * A model attempt starts: what its activity is told to report (undefined when no tool of the run may
   * start early, and then nothing is reported and no signal comes). Earlier entries must be gone.
   */
  begin(step: number, attempt: number): EarlyStartsInput | undefined {
    this.discard();
    const { spec, policy, desk } = this.ctx;
    // Arguments are not known yet: a rule with a condition cannot let a call start early, and any deny rule keeps it back.
    const rules = desk.gateRules(undefined);
    const input = earlyStartsInput(spec.tools, (t) => gateFor(t.name, t.approval, policy, desk.approvedTools, undefined, rules));
    this.open = input ? { ...input, step, attempt, parent: CancellationScope.current(), sealed: false, next: 0 } : undefined;
    return input;
  }

  /** The attempt ended (answered or failed): no call of it starts any more. */
  seal(): void {
    if (this.open) this.open.sealed = true;
  }

  /**
   * The early outcomes of the plan's calls that started early as the answer holds them (`calls`: those
   * the tool step runs). Every other early call is cancelled and discarded.
   */
  take(calls: readonly PlannedCall[]): Map<string, Promise<ToolOutcome>> {
    this.seal();
    const taken = new Map<string, Promise<ToolOutcome>>();
    for (const call of calls) {
      const e = this.entries.get(call.callId);
      if (
        !e ||
        !sameCall(
          { callId: e.call.callId, tool: e.call.tool.name, args: e.call.args },
          { callId: call.callId, tool: call.tool.name, args: call.args },
        )
      )
        continue;
      taken.set(call.callId, e.outcome);
      this.entries.delete(call.callId);
    }
    this.discard();
    return taken;
  }

  /** Cancel and discard every early call not taken (logs `early_tool_discarded`), and seal the attempt. */
  discard(): void {
    this.seal();
    if (this.entries.size && this.owner) {
      const callIds = [...this.entries.keys()];
      for (const e of this.entries.values()) {
        e.scope.cancel();
        this.ctx.running.delete(e.call.callId);
      }
      this.entries.clear();
      this.ctx.log.push({ type: 'early_tool_discarded', step: this.owner.step, attempt: this.owner.attempt, callIds });
    }
    this.owner = undefined;
  }

  private receive(c: EarlyToolCall): void {
    const o = this.open;
    // Stale, foreign or out-of-order: ignored (the call runs after the answer, if the answer holds it).
    if (!o || o.sealed || c.step !== o.step || c.attempt !== o.attempt || c.index !== o.next || o.next >= o.max) return;
    const tool = this.ctx.spec.tools.find((t) => t.name === c.tool);
    if (!tool || !o.tools.includes(c.tool) || !isJsonObject(c.args) || this.entries.has(c.callId)) return;
    // Runs recorded before early starts never start a call from a signal.
    if (!patched('early-tool-starts')) return;
    o.next++;
    this.owner = { step: o.step, attempt: o.attempt };
    const call: PlannedCall = { step: c.step, callId: c.callId, tool, args: c.args };
    const scope = new CancellationScope({ cancellable: true, parent: o.parent });
    this.ctx.running.set(call.callId, tool.name);
    this.ctx.log.push({ type: 'tool_started', step: call.step, callId: call.callId, tool: tool.name, early: true, attempt: o.attempt });
    // The step's call count is unknown mid-stream: each early call gets the share of twice `max` calls,
    // so early calls together take at most half the step's inline budget, whatever the step adds.
    const limit = inlineLimitPerCall(this.ctx.spec.limits.toolResultInlineBytes, 2 * o.max);
    const outcome = scope
      .run(() => executeCall(this.ctx, call, limit, { early: true }))
      .finally(() => {
        if (!this.entries.has(call.callId)) this.ctx.running.delete(call.callId);
      });
    // Discarded calls reject (cancelled) with nobody waiting: not an unhandled rejection.
    outcome.catch(() => undefined);
    this.entries.set(call.callId, { call, scope, outcome });
  }
}
