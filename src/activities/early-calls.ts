/**
 * Streaming tool execution, the model activity's side: each tool call the provider reports complete
 * while the answer still streams is given the id the final answer will give it and, when it may start
 * early, signalled to the activity's own workflow (which starts it). The signals are awaited before the
 * activity returns, so each one precedes the activity's completion in the workflow's history.
 */
import type { Context } from '@temporalio/activity';
import { uniqueCallIds } from '../core/tool-calls/call-ids';
import { refuseDeepArguments } from '../core/tool-calls/call-input';
import type { EarlyStartsInput, EarlyToolCall } from '../core/tool-calls/early';
import { EARLY_TOOL_CALL_SIGNAL, reportablePrefix } from '../core/tool-calls/early';
import type { JsonObject } from '../core/messages/json';
import type { ToolUseBlock } from '../core/messages/messages';
import { toolCalls } from '../core/messages/messages';
import type { RedactorSource } from './redaction';

/** Sends one early call to the workflow (a signal); rejections are ignored (the call then runs after the answer). */
export type EarlyCallSender = (call: EarlyToolCall) => Promise<void>;

/** The sender that signals the activity's own workflow through the worker's client. */
export function signalOwnWorkflow(ctx: Context): EarlyCallSender | undefined {
  const execution = ctx.info.workflowExecution;
  if (!execution) return undefined;
  return async (call) => {
    await ctx.client.workflow.getHandle(execution.workflowId, execution.runId).signal(EARLY_TOOL_CALL_SIGNAL, call);
  };
}

/** Reports the complete calls of one model attempt, in order, as long as every call so far may start early. */
export class EarlyCallReporter {
  private readonly complete: Array<ToolUseBlock | undefined> = [];
  private reported = 0;
  private stopped = false;
  private readonly sends: Array<Promise<unknown>> = [];

  constructor(
    private readonly early: EarlyStartsInput,
    private readonly attempt: { step: number; attempt: number },
    private readonly used: (id: string) => boolean,
    private readonly redact: RedactorSource,
    private readonly send: EarlyCallSender,
  ) {}

  /** The provider's `onToolCall`: call `index` of the answer is complete. */
  readonly onToolCall = (index: number, call: ToolUseBlock): void => {
    if (this.stopped || index < 0 || this.complete[index]) return;
    this.complete[index] = call;
    this.flush();
  };

  /** How many calls were signalled. */
  get count(): number {
    return this.sends.length;
  }

  /** Wait until every signal sent was accepted or failed (call before the activity returns). */
  async settle(): Promise<void> {
    await Promise.allSettled(this.sends);
  }

  private flush(): void {
    let n = 0;
    while (n < this.complete.length && this.complete[n]) n++;
    if (n <= this.reported) return;
    // The ids exactly as the final answer gets them: the same checks, redaction and uniqueness walk, on
    // the calls so far (an id depends only on the calls before it).
    const prefix = refuseDeepArguments({ role: 'assistant', content: this.complete.slice(0, n) as ToolUseBlock[] });
    const calls = toolCalls(uniqueCallIds(this.redact().value(prefix), this.used, this.attempt.step));
    const ok = reportablePrefix(calls, this.early);
    for (; this.reported < n; this.reported++) {
      const c = ok[this.reported];
      if (!c) {
        // A call that may not start early: neither it nor any later call of the answer does.
        this.stopped = true;
        return;
      }
      const call: EarlyToolCall = { ...this.attempt, index: this.reported, callId: c.id, tool: c.name, args: c.input as JsonObject };
      this.sends.push(this.send(call).catch(() => undefined));
    }
  }
}
