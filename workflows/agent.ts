/**
 * The agent workflow: a deterministic driver of the pure loop in `core/loop.ts`. Model calls and tool
 * executions are activities; everything else is replayed from history, so a killed worker resumes the
 * run exactly where it was.
 */
import { ApplicationFailure, CancellationScope, isCancellation, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { AgentActivities, AgentWorkflowInput, RunSnapshot } from '../core/contract';
import { EventLog } from '../core/event-log';
import type { LoopState, ToolOutcome } from '../core/loop';
import { applyModelStep, applyToolOutcomes, closeOpenCalls, doneEvent, finishRun, modelInput, startLoop } from '../core/loop';
import type { AgentRunResult, RunError, RunStatus } from '../core/result';
import type { AgentSpec } from '../core/spec';
import { DEFAULTS } from '../core/spec';
import { modelForAttempt, modelLabel } from '../core/retry';
import { ZERO_USAGE } from '../core/usage';
import { ApprovalDesk } from './approval-desk';
import { eventsQuery, snapshotQuery } from './definitions';
import { callModelWithRetries } from './model-call';
import type { ToolStepContext } from './tool-step';
import { runToolStep } from './tool-step';
import { Visibility } from './visibility';

const { describeAgent, commitTranscript } = proxyActivities<AgentActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 5, initialInterval: '1 second' },
});

const POLICY_RULES = new Set(['allow', 'ask', 'deny']);

function validateInput(input: AgentWorkflowInput): void {
  const problems: string[] = [];
  if (!input || typeof input !== 'object') problems.push('input must be an object { agent, prompt }');
  else {
    if (typeof input.agent !== 'string' || !input.agent) problems.push('agent must be a non-empty string');
    if (typeof input.prompt !== 'string' || !input.prompt) problems.push('prompt must be a non-empty string');
    if (input.maxSteps !== undefined && (!Number.isInteger(input.maxSteps) || input.maxSteps < 1)) {
      problems.push('maxSteps must be a positive integer');
    }
    if (input.policy !== undefined) {
      if (!input.policy || typeof input.policy !== 'object' || Array.isArray(input.policy)) problems.push('policy must be an object of tool name → allow | ask | deny');
      else {
        for (const [tool, rule] of Object.entries(input.policy)) {
          if (!POLICY_RULES.has(rule as string)) problems.push(`policy for "${tool}" must be allow, ask or deny (got ${JSON.stringify(rule)})`);
        }
      }
    }
  }
  if (problems.length) throw ApplicationFailure.nonRetryable(`Invalid agent run input: ${problems.join('; ')}`, 'InvalidInput');
}

/** Run one agent to completion. Returns a typed result for every ending, cancellation included. */
export async function agentWorkflow(input: AgentWorkflowInput): Promise<AgentRunResult> {
  validateInput(input);
  const info = workflowInfo();
  const startedAt = new Date().toISOString();
  const log = new EventLog(() => new Date());
  let state: LoopState | undefined;
  let phase: RunSnapshot['status'] = 'starting';
  const running = new Map<string, string>();
  let visibility = new Visibility(false);
  const desk = new ApprovalDesk(log, () => {
    if (phase === 'running' || phase === 'awaiting_approval') phase = desk.pending().length ? 'awaiting_approval' : 'running';
    visibility.update(input.agent, phase, desk.pending().length);
  });
  desk.install();

  setHandler(eventsQuery, (cursor, limit) => log.page(cursor, limit));
  setHandler(snapshotQuery, () => ({
    agent: input.agent,
    status: phase,
    step: state?.step ?? 0,
    maxSteps: state?.maxSteps ?? input.maxSteps ?? 0,
    usage: state?.usage ?? ZERO_USAGE,
    runningTools: [...running].map(([callId, name]) => ({ callId, name })),
    pendingApprovals: desk.pending(),
    events: log.size,
  }));

  let spec: AgentSpec;
  try {
    spec = await describeAgent({ agent: input.agent });
  } catch (err) {
    if (isCancellation(err)) throw err;
    const cause = err instanceof Error && 'cause' in err && err.cause instanceof Error ? err.cause : err;
    const message = cause instanceof Error ? cause.message : String(cause);
    throw ApplicationFailure.nonRetryable(message, cause instanceof ApplicationFailure ? cause.type : 'DescribeAgentFailed');
  }

  let loop = startLoop(spec, input.prompt, input.maxSteps);
  state = loop;
  phase = 'running';
  visibility = new Visibility(spec.searchAttributes === true);
  visibility.update(spec.name, phase, 0);
  log.push({ type: 'run_started', agent: spec.name, model: modelLabel(modelForAttempt(spec.models, 1)), maxSteps: loop.maxSteps });

  let status: RunStatus;
  let error: RunError | undefined;
  const completed: ToolOutcome[] = [];
  const tools: ToolStepContext = { spec, policy: input.policy, desk, log, running, proxies: new Map() };

  try {
    for (;;) {
      const model = await callModelWithRetries(spec, loop, log);
      if ('failure' in model) {
        status = 'provider_error';
        error = { message: model.failure.message, ...(model.failure.type ? { type: model.failure.type } : {}) };
        break;
      }
      const t = applyModelStep(loop, spec, model.step);
      loop = state = t.state;
      log.push(...t.events);
      if (t.next.type === 'finish') {
        status = t.next.status;
        error = t.next.error;
        break;
      }
      if (t.next.type !== 'run_tools') continue;

      completed.length = 0;
      await runToolStep(tools, t.next, completed);
      const t2 = applyToolOutcomes(loop, t.next.calls, completed);
      loop = state = t2.state;
      completed.length = 0;
      if (t2.next.type === 'finish') {
        status = t2.next.status;
        error = t2.next.error;
        break;
      }
    }
  } catch (err) {
    if (!isCancellation(err)) throw err;
    const closed = closeOpenCalls(loop, completed, 'Cancelled: the run was cancelled before this call finished.');
    loop = state = closed.state;
    log.push(...closed.events);
    status = 'cancelled';
    error = { message: 'The run was cancelled.', type: 'CancelledFailure' };
  }
  desk.withdrawAll();

  // The run is ending: store what the model has not seen (final tool results) so the transcript head
  // names the whole conversation, even if the result carries only its most recent part.
  const unstored = modelInput(loop);
  if (unstored.append.length > 0) {
    const head = await CancellationScope.nonCancellable(() => commitTranscript(unstored));
    loop = state = { ...loop, head, stored: loop.messages.length };
  }
  const inlineBytes = spec.limits.resultMessagesInlineBytes ?? DEFAULTS.resultMessagesInlineBytes;
  const result = finishRun(loop, status, { workflowId: info.workflowId, runId: info.runId, startedAt, endedAt: new Date().toISOString() }, error, inlineBytes);
  phase = status;
  visibility.update(spec.name, status, 0);
  log.push(doneEvent(result));
  return result;
}
