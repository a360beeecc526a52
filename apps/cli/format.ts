/** How run events and results look on the terminal. */
import { AGENT_MEMO, DEFINITION_HASH_MEMO } from '../../src/entry/client';
import type { AgentEvent } from '../../src/entry/client';
import type { AgentRunResult, RunStatus } from '../../src/entry/client';
import type { Usage } from '../../src/entry/client';
import type { Styles } from './terminal-output';

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * The run's agent and the first 12 hex digits of its definition hash, from the run's memo, e.g.
 * `agent support, definition 3fa9c2e1b07d`; undefined when the memo holds no hash (a run recorded before
 * it existed, or one that has not resolved its agent yet).
 */
export function definitionLine(memo: Record<string, unknown> | undefined): string | undefined {
  const hash = memo?.[DEFINITION_HASH_MEMO];
  if (typeof hash !== 'string' || !hash) return undefined;
  const agent = memo?.[AGENT_MEMO];
  return `${typeof agent === 'string' ? `agent ${agent}, ` : ''}definition ${hash.slice(0, 12)}`;
}

/** A byte count for people: `512 B`, `3.2 KiB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** Token usage on one line. */
export function formatUsage(u: Usage): string {
  const cache = u.cacheReadTokens || u.cacheWriteTokens ? `, cache ${u.cacheReadTokens} read / ${u.cacheWriteTokens} written` : '';
  return `${u.inputTokens} input / ${u.outputTokens} output tokens${cache}`;
}

/** What a failure status means, for statuses whose name alone does not say enough. */
export const STATUS_MEANINGS: Partial<Record<RunStatus, string>> = {
  storage_error:
    "the worker could not read or write the run's content in its blob store (workers on several machines need one shared store)",
  invalid_input: "the run's input was malformed, or names an agent the worker does not have",
  internal_error: 'an activity failed in a way the loop does not classify (a bug or an outage): see the error',
  budget_exceeded: 'a token, cost or turn budget of the run is spent (see the error)',
  timeout: "the run's wall-clock budget ran out",
  guardrail: 'a guardrail with tripwire failed: the final text is its reason',
  output_invalid: "the final answer did not match the agent's output schema, after the corrections allowed (see the error)",
};

/** A run status, coloured, with its meaning when it needs one. */
export function formatStatus(status: RunStatus, s: Styles): string {
  const meaning = STATUS_MEANINGS[status];
  return `${status === 'success' ? s.green(status) : s.red(status)}${meaning ? ` (${meaning})` : ''}`;
}

function indent(text: string, prefix: string): string[] {
  return text.split(/\r?\n/).map((l) => prefix + l);
}

/** What the lines of an event may say about the run they belong to. */
export interface FormatContext {
  /** The run's workflow id: commands to type are given with it (else with a `<workflowId>` placeholder). */
  workflowId?: string;
}

/** A duration for people: `850 ms`, `1.2 s`, `42 s`, `3 min 05 s`, `2 h 01 min`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '?';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 10_000) return `${(Math.floor(ms / 100) / 10).toFixed(1)} s`;
  const total = Math.floor(ms / 1000);
  if (total < 60) return `${total} s`;
  const two = (n: number) => String(n).padStart(2, '0');
  if (total < 3600) return `${Math.floor(total / 60)} min ${two(total % 60)} s`;
  return `${Math.floor(total / 3600)} h ${two(Math.floor(total / 60) % 60)} min`;
}

/** The lines of one event. */
export function formatEvent(e: AgentEvent, s: Styles, context: FormatContext = {}): string[] {
  const id = context.workflowId ?? '<workflowId>';
  switch (e.type) {
    case 'run_started':
      return [s.bold(`[run] agent ${e.agent}, model ${e.model}, at most ${e.maxSteps} step${e.maxSteps === 1 ? '' : 's'}`)];
    case 'step_started':
      return [s.cyan(`[step ${e.step}] calling ${e.provider}/${e.model}${e.attempt > 1 ? ` (attempt ${e.attempt})` : ''}`)];
    case 'text':
      return [`[step ${e.step}] text:`, ...indent(e.text, '    ')];
    case 'tool_call':
      return [`[step ${e.step}] tool call ${s.bold(e.tool)} ${clip(JSON.stringify(e.args) ?? '', 200)} ${s.dim(`(${e.callId})`)}`];
    case 'tool_result': {
      const state = e.isError ? s.red('error') : s.green('ok');
      const extra = [
        formatBytes(e.bytes),
        `${e.latencyMs} ms`,
        ...(e.stored ? ['stored by reference'] : []),
        ...(e.attempts > 1 ? [`${e.attempts} attempts`] : []),
        ...(e.metrics
          ? [
              clip(
                Object.entries(e.metrics)
                  .map(([k, v]) => `${k}=${String(v)}`)
                  .join(' '),
                120,
              ),
            ]
          : []),
      ];
      return [`[step ${e.step}] tool result ${s.bold(e.tool)} ${state} (${extra.join(', ')}): ${clip(e.preview, 160)}`];
    }
    case 'retrying':
      return [
        s.yellow(
          `[step ${e.step}] attempt ${e.attempt} failed (${e.errorType ? `${e.errorType}: ` : ''}${clip(e.error, 160)}); retrying in ${e.delayMs} ms` +
            `${e.requestedDelayMs !== undefined ? ` (capped from ${e.requestedDelayMs} ms, the wait the provider asked for)` : ''} with ${e.nextModel}`,
        ),
      ];
    case 'approval_requested': {
      const expires = e.expiresAt ? `, expires ${e.expiresAt}` : '';
      const who = e.approvers?.length ? `, approvers: ${e.approvers.join(' ')}` : '';
      return [
        s.yellow(
          `[step ${e.step}] waiting for a person to approve ${s.bold(e.tool)} ${clip(JSON.stringify(e.args) ?? '', 160)} (${e.callId}${expires}${who})`,
        ),
        ...(e.question ? [s.yellow(`    ${e.question}`)] : []),
        s.dim(
          `    decide with: durable-agent approve ${id} ${e.callId}   (or deny / skip instead of approve; list: durable-agent approvals)`,
        ),
      ];
    }
    case 'approval_decided': {
      const line = `[step ${e.step}] ${e.decision} ${e.tool} (${e.callId}) by ${e.by}${e.reason ? `: ${clip(e.reason, 160)}` : ''}${e.sticky ? ' [approved for the rest of the run]' : ''}${e.rule ? ` [rule ${e.rule.id}${e.rule.version !== undefined ? ` v${e.rule.version}` : ''}]` : ''}`;
      return [e.decision === 'approve' ? s.green(line) : s.yellow(line)];
    }
    case 'approval_expired':
      return [
        s.red(
          `[step ${e.step}] approval of ${e.tool} (${e.callId}) expired: ${e.outcome === 'fail' ? 'the run fails' : 'the call is denied'}`,
        ),
      ];
    case 'approval_queued':
      return [
        s.yellow(
          `[approval] ${e.decision} of ${e.callId} by ${e.by} queued: the run has not reached this call yet, and applies the decision when the call asks for approval`,
        ),
      ];
    case 'approval_refused':
      return [s.red(`[approval] refused${e.callId ? ` for ${e.callId}` : ''}${e.by ? ` from ${e.by}` : ''}: ${clip(e.reason, 200)}`)];
    case 'approval_auto': {
      const rule = e.rule ? ` by rule ${e.rule.id}${e.rule.version !== undefined ? ` v${e.rule.version}` : ''}` : ` by the run ${e.path}`;
      const line = `[step ${e.step}] ${e.tool} (${e.callId}) ${e.decision === 'allow' ? 'allowed' : 'denied'} with nobody asked${rule}${e.by ? ` (made by ${e.by})` : ''}`;
      return [e.decision === 'allow' ? s.green(line) : s.yellow(line)];
    }
    case 'approval_withdrawn':
      return [s.dim(`[step ${e.step}] approval request of ${e.tool} (${e.callId}) withdrawn: ${clip(e.reason, 200)}`)];
    case 'approval_forwarded':
      return [
        s.dim(
          `[approval] ${e.kind}${e.decision ? ` ${e.decision}` : ''} of ${e.callId} by ${e.by} forwarded to sub-agent run ${e.workflowId}`,
        ),
      ];
    case 'approval_deferred':
      return [
        s.yellow(
          `[step ${e.step}] approval of ${e.tool} (${e.callId}) deferred until ${e.until} by ${e.by}${e.reason ? `: ${clip(e.reason, 160)}` : ''}`,
        ),
      ];
    case 'approval_returned':
      return [s.yellow(`[step ${e.step}] deferred approval of ${e.tool} (${e.callId}) is back in the inbox`)];
    case 'approval_escalated':
      return [s.yellow(`[step ${e.step}] approval of ${e.tool} (${e.callId}) escalated to ${e.to.join(' ')}`)];
    case 'approval_delegated':
      return [
        s.yellow(
          `[step ${e.step}] approval of ${e.tool} (${e.callId}) delegated to ${e.to} by ${e.by}${e.reason ? `: ${clip(e.reason, 160)}` : ''}`,
        ),
      ];
    case 'notification_failed':
      return [s.red(`[notify] ${e.kind}${e.callId ? ` for ${e.callId}` : ''} to ${e.target} failed: ${clip(e.error, 200)}`)];
    case 'user_message':
      return [s.bold(`[turn ${e.turn}] ${e.by ?? 'user'}: ${clip(e.text, 300)}`)];
    case 'message_refused':
      return [s.red(`[message] refused${e.by ? ` from ${e.by}` : ''}: ${clip(e.reason, 200)}`)];
    case 'awaiting_message':
      return [
        s.yellow(
          `[turn ${e.turn}] answered; waiting for the next message${e.idleUntil ? ` (ends if idle until ${e.idleUntil})` : ''} — durable-agent send ${id} "…" or end ${id}`,
        ),
      ];
    case 'tool_started':
      return [s.dim(`[step ${e.step}] ${e.tool} running (${e.callId})${e.early ? ' — started while the model streams' : ''}`)];
    case 'early_tool_discarded':
      return [s.yellow(`[step ${e.step}] attempt ${e.attempt} failed or was dropped: early calls ${e.callIds.join(', ')} discarded`)];
    case 'compacted':
      return [
        s.yellow(
          `[context] compacted before step ${e.step} (${e.reason === 'overflow' ? 'the prompt was too long' : 'near the window'}): ~${e.tokensBefore} → ~${e.tokensAfter} tokens, ${e.messagesSummarized} messages summarised by ${e.summaryModel}`,
        ),
      ];
    case 'compaction_failed':
      return [s.red(`[context] compaction before step ${e.step} failed, going on unchanged: ${clip(e.error, 200)}`)];
    case 'guardrail':
      return [
        (e.action === 'ended' ? s.red : s.yellow)(
          `[step ${e.step}] ${e.kind} guardrail ${e.name} failed${e.action === 'feedback' ? ' (sent back to the model)' : e.action === 'ended' ? ' (the run ends)' : ''}: ${clip(e.reason, 200)}`,
        ),
      ];
    case 'tool_hook':
      return [
        s.yellow(
          `[step ${e.step}] ${e.hook} ${e.action} ${e.tool} (${e.callId})${e.reason ? `: ${clip(e.reason, 200)}` : ''}${e.args ? ` → ${clip(JSON.stringify(e.args) ?? '', 160)}` : ''}`,
        ),
      ];
    case 'output_rejected':
      return [
        s.red(
          `[step ${e.step}] the final answer does not match the output schema${e.retrying ? ': the model is asked to fix it' : ''}: ${clip(e.errors, 300)}`,
        ),
      ];
    case 'sub_agent_started':
      return [s.cyan(`[step ${e.step}] ${e.tool} (${e.callId}) started sub-agent ${e.agent}: run ${e.workflowId}`)];
    case 'sub_agent_finished':
      return [
        (e.status === 'success' ? s.green : s.red)(
          `[step ${e.step}] sub-agent ${e.agent} (${e.workflowId}) ${e.status ?? 'did not run'}${e.usage ? `, ${formatUsage(e.usage)}` : ''}${e.costUsd !== undefined ? `, ${formatUsd(e.costUsd)}` : ''}${e.error ? `: ${clip(e.error, 200)}` : ''}`,
        ),
      ];
    case 'step_finished':
      return [
        s.dim(
          `[step ${e.step}] finished: ${e.stopReason}, ${formatUsage(e.usage)}, ${e.latencyMs} ms${e.costUsd !== undefined ? `, ${formatUsd(e.costUsd)}` : ''}`,
        ),
      ];
    case 'done': {
      const line = `[done] ${e.status} after ${e.steps} step${e.steps === 1 ? '' : 's'}`;
      const meaning = STATUS_MEANINGS[e.status];
      return [
        e.status === 'success' ? s.green(s.bold(line)) : s.red(s.bold(line)),
        ...(meaning ? [s.dim(`       ${meaning}`)] : []),
        ...(e.error ? [s.red(`       ${clip(e.error.message, 300)}`)] : []),
      ];
    }
    default: {
      // An event kind this CLI does not know yet (a newer worker): show it raw.
      const { seq: _seq, at: _at, ...rest } = e as AgentEvent;
      return [s.dim(clip(JSON.stringify(rest) ?? '', 300))];
    }
  }
}

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

/** US dollars, with enough digits for the cost of one model call. */
export function formatUsd(usd: number): string {
  return `$${usd < 0.01 ? usd.toFixed(6) : usd.toFixed(4)}`;
}

/** The cost line of a result, saying when some steps had no known price. */
function formatCost(r: AgentRunResult): string {
  const unpriced = r.report.unpricedSteps ?? 0;
  if (r.costUsd === null || (r.steps > 0 && unpriced === r.steps)) return "unknown (no price for this model in the worker's price table)";
  return `${formatUsd(r.costUsd ?? 0)}${unpriced ? ` (+ ${unpriced} step${unpriced === 1 ? '' : 's'} with no known price)` : ''}`;
}

/** Options of {@link formatResult}. */
export interface ResultFormatOptions {
  /** The final text was just shown (streamed live): say so instead of printing it again. */
  finalTextShown?: boolean;
}

/** How long a run took, from its report; undefined when the report's times do not parse. */
export function runDurationMs(r: Pick<AgentRunResult, 'report'>): number | undefined {
  const ms = Date.parse(r.report.endedAt) - Date.parse(r.report.startedAt);
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

/** The result (status, steps, tokens, cost, duration, final text) and its compact run report. */
export function formatResult(r: AgentRunResult, s: Styles, options: ResultFormatOptions = {}): string[] {
  const duration = runDurationMs(r);
  const lines = [
    s.bold('Result'),
    `  status:   ${formatStatus(r.status, s)}`,
    `  steps:    ${r.steps}`,
    `  usage:    ${formatUsage(r.usage)}`,
    `  cost:     ${formatCost(r)}`,
    ...(duration !== undefined ? [`  duration: ${formatDuration(duration)}`] : []),
    ...(r.error ? [`  error:    ${r.error.type ? `${r.error.type}: ` : ''}${clip(r.error.message, 300)}`] : []),
    ...(options.finalTextShown && r.finalText
      ? [`  final text: shown above`]
      : [`  final text:`, ...(r.finalText ? indent(r.finalText, '    ') : ['    (none)'])]),
    s.bold(`Run report`) + s.dim(` (${r.report.workflowId}, ${r.report.startedAt} .. ${r.report.endedAt})`),
  ];
  if (r.report.stepsOmitted) lines.push(s.dim(`  (${r.report.stepsOmitted} earlier steps not in the result; usage and cost count them)`));
  const models = r.report.steps.map((st) => `${st.provider}/${st.model}`);
  const modelWidth = Math.max(0, ...models.map((m) => m.length));
  r.report.steps.forEach((st, i) => {
    const attempts = st.attempts > 1 ? `, ${st.attempts} attempts` : '';
    const cost = st.costUsd !== undefined ? `  ${formatUsd(st.costUsd)}` : '';
    lines.push(
      `  step ${st.step}  ${pad(models[i] as string, modelWidth)}  ${pad(`${st.latencyMs} ms`, 8)}  ${st.stopReason}${attempts}  ${st.usage.inputTokens} in / ${st.usage.outputTokens} out${cost}`,
    );
  });
  if (r.report.toolCallsOmitted) lines.push(s.dim(`  (${r.report.toolCallsOmitted} earlier tool calls not in the result)`));
  const nameWidth = Math.max(0, ...r.report.toolCalls.map((c) => c.tool.length));
  for (const c of r.report.toolCalls) {
    const flags = [
      ...(c.isError ? [s.red('error')] : []),
      ...(c.stored ? ['stored'] : []),
      ...(c.attempts > 1 ? [`${c.attempts} attempts`] : []),
    ];
    lines.push(
      `  tool ${pad(c.tool, nameWidth)}  step ${c.step}  ${pad(`${c.latencyMs} ms`, 8)}  ${pad(formatBytes(c.resultBytes), 9)}${flags.length ? `  ${flags.join(', ')}` : ''}`.trimEnd(),
    );
  }
  if (!r.report.steps.length && !r.report.toolCalls.length) lines.push('  (no model or tool calls)');
  return lines;
}
