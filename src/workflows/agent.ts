/**
 * The agent workflow: a deterministic driver of the pure loop in `core/transitions.ts`. Model calls and
 * tool executions are activities; everything else is replayed from history, so a killed worker resumes
 * the run exactly where it was. Every way a run ends — success, a limit, cancellation, a failure of the
 * model, a tool, the store or an activity — returns an `AgentRunResult`, emits `done` and leaves the
 * snapshot and search attributes final.
 */
import { allHandlersFinished, CancellationScope, condition, continueAsNew, isCancellation, patched, proxyActivities, setHandler, sleep, upsertMemo, workflowInfo } from '@temporalio/workflow';
import { compactionDue } from '../core/context/compaction';
import { AGENT_MEMO, DEFINITION_HASH_MEMO } from '../core/run/definition';
import type { TrimMark } from '../core/run/continuation';
import { carriedState, CONTINUE_AS_NEW_AFTER_EVENTS, shouldContinueAsNew, trimDue, trimmedState } from '../core/run/continuation';
import type { Budget } from '../core/budget/budget';
import { budgetMessage, budgetSpent, effectiveBudget, exhaustedBudget } from '../core/budget/budget';
import type { AgentActivities, AgentWorkflowInput, ContinuedRun, RunSnapshot } from '../core/run/contract';
import { STORAGE_ERROR } from '../core/run/contract';
import { EventLog } from '../core/events/event-log';
import { applyOutputAnswer } from '../core/output/output';
import { doneEvent, finishRun } from '../core/run/report';
import type { AgentRunResult, RunError, RunStatus } from '../core/run/result';
import { modelForAttempt, modelLabel } from '../core/run/retry';
import type { AgentSpec } from '../core/run/spec';
import { DEFAULTS } from '../core/run/spec';
import type { LoopState } from '../core/loop/state';
import { modelInput, startLoop } from '../core/loop/state';
import { applyModelStep, applyToolOutcomes, applyUserMessages, closeOpenCalls } from '../core/loop/transitions';
import { ZERO_USAGE } from '../core/budget/usage';
import { ApprovalDesk } from './approval-desk';
import { hasGuardrails, judgesAnswer } from '../core/guardrails/guardrails';
import { inputGuardrails, outputGuardrails } from './guardrails';
import { eventsQuery, snapshotQuery } from './definitions';
import { failureEnding, isActivityFailure } from './failures';
import { Inbox } from './user-messages';
import { inputProblems } from './run-input';
import { policyMessage, policyProblems } from '../core/approvals/run-policy';
import { compactContext } from './compaction';
import { callModelWithRetries } from './model-call';
import type { ToolCallContext } from './tool-call';
import { ToolStep } from './tool-step';
import { Visibility } from './visibility';
import { ChildApprovals, parentNotifier } from './sub-agent';

const { describeAgent, commitTranscript } = proxyActivities<AgentActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 5, initialInterval: '1 second' },
});

const { recordEvents } = proxyActivities<AgentActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3, initialInterval: '200 milliseconds' },
});

/** How the loop stopped, before the transcript is committed and the result built. */
interface Ending {
  status: RunStatus;
  error?: RunError;
}

/** Run one agent to completion. Returns a typed result for every ending, cancellation and failures included. */
export async function agentWorkflow(input: AgentWorkflowInput): Promise<AgentRunResult> {
  const info = workflowInfo();
  // A run that continued as new goes on from what its previous execution handed over.
  const continued = input?.continued;
  const startedAt = continued?.startedAt ?? new Date().toISOString();
  const log = new EventLog(() => new Date(), continued ? { ...continued.events } : undefined);
  const agentName = typeof input?.agent === 'string' ? input.agent : '';
  let loop: LoopState = startLoop({ name: agentName, limits: { maxSteps: 1, toolResultInlineBytes: 0 } }, '');
  let phase: RunSnapshot['status'] = 'starting';
  const running = new Map<string, string>();
  let visibility = new Visibility(false);
  const desk = new ApprovalDesk(
    log,
    () => {
      if (phase === 'running' || phase === 'awaiting_approval') phase = desk.pending().length ? 'awaiting_approval' : 'running';
      visibility.update(loop.agent, phase, desk.pending().length);
      reportToParent();
    },
    (callId) => loop.messages.some((m) => m.role === 'assistant' && m.content.some((b) => b.type === 'tool_use' && b.id === callId)),
    () => loop.agent,
  );
  desk.install();
  // Sub-agents: the approvals this run's children wait for; a child run reports its own (and theirs) to its parent.
  const notifyParent = parentNotifier(input?.parent, () => loop.agent);
  const children = new ChildApprovals(() => reportToParent());
  children.install();
  desk.forwardTo(children);
  function reportToParent(): void {
    notifyParent?.([...desk.pending(), ...children.pending()]);
  }
  const inbox = new Inbox(log, () => loop.turn);
  inbox.install();
  setHandler(eventsQuery, (cursor, limit) => log.page(cursor, limit));
  setHandler(snapshotQuery, () => ({
    agent: loop.agent,
    status: phase,
    step: loop.step,
    turn: loop.turn,
    queuedMessages: inbox.size,
    maxSteps: loop.maxSteps,
    usage: loop.usage ?? ZERO_USAGE,
    runningTools: [...running].map(([callId, tool]) => ({ callId, tool })),
    pendingApprovals: desk.pending(),
    events: log.size,
  }));

  /** Close the run: commit what the model has not seen, build the result, emit `done`, finalise the snapshot and search attributes. */
  const end = async (ending: Ending, spec?: AgentSpec): Promise<AgentRunResult> => {
    desk.withdrawAll();
    inbox.closed = true;
    let { status, error } = ending;
    // Store what the model has not seen (final tool results) so the transcript head names the whole
    // conversation, even if the result carries only its most recent part.
    const unstored = modelInput(loop);
    if (spec && unstored.append.length > 0) {
      try {
        const head = await CancellationScope.nonCancellable(() => commitTranscript(unstored));
        loop = { ...loop, head, stored: loop.messages.length };
      } catch (err) {
        if (!isActivityFailure(err)) throw err;
        // A run that already ended on a storage failure keeps that (first) error.
        if (ending.status !== 'storage_error') {
          const failed = failureEnding(err, 'store the final messages of the transcript');
          status = failed.status;
          error = { ...failed.error, message: `The run ended (${ending.status}), but ${failed.error.message.charAt(0).toLowerCase()}${failed.error.message.slice(1)}` };
        }
      }
    }
    const inlineBytes = spec?.limits.resultMessagesInlineBytes ?? DEFAULTS.resultMessagesInlineBytes;
    const result = finishRun(loop, status, { workflowId: info.workflowId, runId: info.runId, startedAt, endedAt: new Date().toISOString() }, error, inlineBytes);
    phase = status;
    visibility.update(loop.agent, status, 0);
    log.push(doneEvent(result));
    recordLog();
    return result;
  };

  /**
   * Record this execution's events in its history as it closes: the inputs of `recordEvents`
   * activities, scheduled in the same workflow task that closes the execution (not awaited: the input
   * is in history once scheduled, so closing waits for no round trip), so clients read them with no worker.
   */
  function recordLog(): void {
    // Runs recorded before events were recorded in history close without it.
    if (!patched('events-in-history')) return;
    for (const chunk of log.record()) void CancellationScope.nonCancellable(() => recordEvents(chunk)).catch(() => undefined);
  }

  const problems = inputProblems(input);
  if (problems) return end({ status: 'invalid_input', error: { message: `Invalid agent run input: ${problems}`, type: 'InvalidInput' } });

  // A run's policy is checked against the agent's tools before any tool runs (runs recorded before this keep replaying: patched).
  const checkPolicy = !continued && input.policy !== undefined && patched('run-policy-checked');
  let spec: AgentSpec;
  if (continued) spec = continued.spec;
  else {
    try {
      // A sub-agent's run checks only its own tools: its parent checked the policy against every tool it reaches.
      spec = await describeAgent({ agent: input.agent, ...(checkPolicy && !input.parent ? { subAgentTools: true } : {}) });
    } catch (err) {
      if (isCancellation(err)) return end({ status: 'cancelled', error: { message: 'The run was cancelled.', type: 'CancelledFailure' } });
      if (!isActivityFailure(err)) throw err;
      return end(failureEnding(err, `describe agent "${input.agent}"`));
    }
  }
  if (checkPolicy) {
    const refused = policyProblems(input.policy, [...spec.tools, ...(spec.subAgentTools ?? [])], {
      ...(input.approvalWaiver ? { waiver: input.approvalWaiver } : {}),
      // The parent's policy names the parent's tools too.
      refuseUnknown: !input.parent,
    });
    if (refused.length) return end({ status: 'invalid_input', error: { message: policyMessage(refused), type: 'InvalidInput' } }, spec);
  }

  // The run's agent definition, readable with describe() (runs recorded before this keep replaying: patched).
  if (spec.definitionHash && patched('definition-hash-memo')) upsertMemo({ [AGENT_MEMO]: spec.name, [DEFINITION_HASH_MEMO]: spec.definitionHash });
  phase = 'running';
  visibility = new Visibility(spec.searchAttributes === true);
  visibility.update(spec.name, phase, 0);
  if (continued) {
    loop = continued.loop;
    desk.restore(continued);
    inbox.restore(continued.inbox);
    log.push({ type: 'continued_as_new', execution: continued.executions, step: loop.step });
  } else {
    loop = startLoop(spec, input.prompt ?? '', input.maxSteps);
    log.push({ type: 'run_started', agent: spec.name, model: modelLabel(modelForAttempt(spec.models, 1)), maxSteps: loop.maxSteps });
  }

  const tools: ToolCallContext = { spec, policy: input.policy, ...(input.approvalWaiver ? { approvalWaiver: input.approvalWaiver } : {}), desk, log, running, proxies: new Map(), messageWaiting: () => inbox.size > 0, children };
  // Extended by people when the agent asks (onBudgetExhausted: 'ask'); carried across continue-as-new in the input.
  let budget: Budget = continued?.budget ?? effectiveBudget(spec.budget, input.budget);
  let step: ToolStep | undefined;
  // What the loop state held after its last trim (a continued run starts from what it carried).
  let trimMark: TrimMark = { messages: loop.messages.length, steps: loop.steps.length, toolCalls: loop.toolCalls.length };
  let ending: Ending;
  let timedOut = false;
  const deadline = continued ? continued.deadline : budget.timeoutMs !== undefined ? new Date(Date.now() + budget.timeoutMs).toISOString() : undefined;
  try {
    ending = deadline !== undefined ? await runWithin(Math.max(1, Date.parse(deadline) - Date.now())) : await runLoop();
  } catch (err) {
    const cancelled = isCancellation(err);
    if (!cancelled && !isActivityFailure(err)) throw err;
    const failed = cancelled ? undefined : failureEnding(err, 'run the step');
    const reason = timedOut
      ? "Not executed: the run's time budget ran out before this call finished."
      : cancelled
        ? 'Cancelled: the run was cancelled before this call finished.'
        : `Not executed: the run failed (${failed?.error.message}).`;
    const closed = closeOpenCalls(loop, step?.completed() ?? [], reason);
    loop = closed.state;
    log.push(...closed.events);
    ending = timedOut
      ? { status: 'timeout', error: { message: `The run's time budget (${budget.timeoutMs} ms) ran out.`, type: 'Timeout' } }
      : (failed ?? { status: 'cancelled', error: { message: 'The run was cancelled.', type: 'CancelledFailure' } });
  }
  return end(ending, spec);

  /** The loop under the run's wall-clock budget: a durable timer cancels it when the time is up. */
  async function runWithin(timeoutMs: number): Promise<Ending> {
    const scope = new CancellationScope();
    const timer = sleep(timeoutMs).then(() => {
      timedOut = true;
      scope.cancel();
    });
    // The run ends first (or is cancelled): the timer goes with it.
    timer.catch(() => undefined);
    return scope.run(runLoop);
  }

  /**
   * Hand the run over to a new execution (same workflow id, a fresh history): at a step boundary, with
   * the whole conversation stored, once every signal and update handler has finished. Never returns.
   */
  async function continueNow(): Promise<never> {
    const unstored = modelInput(loop);
    if (unstored.append.length > 0) {
      const head = await commitTranscript(unstored);
      loop = { ...loop, head, stored: loop.messages.length };
    }
    await condition(allHandlersFinished);
    recordLog();
    const carried: ContinuedRun = {
      spec,
      loop: carriedState(loop, spec.limits.resultMessagesInlineBytes ?? DEFAULTS.resultMessagesInlineBytes),
      ...desk.carried(),
      inbox: inbox.carried(),
      events: { count: log.size, runId: info.runId, chain: log.chain(info.runId), tail: log.tail() },
      startedAt,
      budget,
      ...(deadline !== undefined ? { deadline } : {}),
      executions: (continued?.executions ?? 1) + 1,
    };
    return continueAsNew<typeof agentWorkflow>({ ...input, continued: carried });
  }

  /** True when this execution's history is long enough to continue as new (checked at step boundaries). */
  function historyIsLong(): boolean {
    const current = workflowInfo();
    return shouldContinueAsNew({ length: current.historyLength, suggested: current.continueAsNewSuggested }, spec.limits.continueAsNewAfterEvents ?? CONTINUE_AS_NEW_AFTER_EVENTS);
  }

  /**
   * The token, cost or turn budget this state has spent, as an ending; undefined while within budget.
   * An agent that asks (`onBudgetExhausted: 'ask'`) pauses here on an approval request: approving
   * extends the budget (and the check runs again), deny or skip ends the run.
   */
  async function overBudget(turns = loop.turn): Promise<Ending | undefined> {
    for (;;) {
      const spent = spentBudget(turns);
      if (!spent) return undefined;
      const ending: Ending = { status: 'budget_exceeded', error: { message: budgetMessage(spent), type: 'BudgetExceeded' } };
      if (spec.limits.onBudgetExhausted !== 'ask') return ending;
      const decided = await desk.askBudget(loop.step, { budget: spent.budget, limit: spent.limit, spent: spent.spent, message: budgetMessage(spent) });
      if (decided?.decision !== 'approve') {
        return { ...ending, error: { ...ending.error!, message: `${budgetMessage(spent)} ${decided ? `Not extended: ${decided.decision} by ${decided.by}${decided.reason ? ` (${decided.reason})` : ''}.` : ''}`.trim() } };
      }
      budget = { ...budget, [spent.budget]: spent.limit + (decided.extendBy ?? spent.limit) };
    }
  }

  /** The budget this state has spent (undefined while within every budget). */
  function spentBudget(turns: number) {
    const steps = [...loop.steps, { costUsd: (loop.earlier?.costUsd ?? 0) + (loop.context?.costUsd ?? 0) + (loop.subAgents?.costUsd ?? 0) }];
    return exhaustedBudget(budget, budgetSpent(loop.usage, steps, turns));
  }

  /** End on a spent budget: calls the model asked for are closed without running. */
  function endOverBudget(over: Ending): Ending {
    const closed = closeOpenCalls(loop, [], `Not executed: ${over.error?.message ?? 'a budget of the run is spent.'}`);
    loop = closed.state;
    log.push(...closed.events);
    return over;
  }

  /**
   * After a model step, with the conversation stored: the loop keeps only its most recent messages
   * (the result's budget) and recent step and call details (the report's), so a run's memory does not
   * grow with its conversation. Runs recorded before this replay untrimmed (patched).
   */
  function keepStateSmall(): void {
    if (!trimDue(loop, trimMark) || !patched('bounded-loop-state')) return;
    const t = trimmedState(loop, spec.limits.resultMessagesInlineBytes ?? DEFAULTS.resultMessagesInlineBytes);
    loop = t.loop;
    trimMark = t.mark;
  }

  /** Messages people sent join the conversation (one new user turn) before the model's next call. */
  function takeMessages(): void {
    if (inbox.size === 0) return;
    const t = applyUserMessages(loop, inbox.take());
    loop = t.state;
    log.push(...t.events);
  }

  /**
   * A session waits, durably and with no worker busy, for the next message: true when one came, false
   * when it was asked to end or stayed idle past its timeout.
   */
  async function awaitMessage(): Promise<boolean> {
    const idleMs = input.session?.idleTimeoutMs;
    phase = 'awaiting_message';
    visibility.update(spec.name, phase, desk.pending().length);
    log.push({ type: 'awaiting_message', turn: loop.turn, ...(idleMs !== undefined ? { idleUntil: new Date(Date.now() + idleMs).toISOString() } : {}) });
    const wake = () => inbox.size > 0 || inbox.ended;
    if (idleMs !== undefined) await condition(wake, idleMs);
    else await condition(wake);
    phase = 'running';
    visibility.update(spec.name, phase, desk.pending().length);
    return inbox.size > 0;
  }

  /** Model step, tool step, repeat, until a transition says to finish (a session: until it ends). */
  async function runLoop(): Promise<Ending> {
    // A continued run resumes the step its previous execution switched in, after that execution took the
    // step's messages: messages queued at the switch came during the step, so, as without the switch,
    // they wait for its model call (same grouping, turns and turn budget). Earlier runs took them at once.
    let resumedStep = continued !== undefined && loop.turn > 0 && inbox.size > 0 && patched('carried-messages-after-the-step');
    for (;;) {
      // Calls recorded by an earlier step that never reached their gate will not ask.
      desk.endGating();
      // A new user turn beyond the turn budget is not answered.
      if (!resumedStep && inbox.size > 0 && budget.maxTurns !== undefined) {
        const over = await overBudget(loop.turn + 1);
        if (over) return over;
      }
      if (!resumedStep) takeMessages();
      resumedStep = false;
      // A step boundary: nothing in flight, no approval open. A long history starts afresh here.
      if (historyIsLong()) await continueNow();
      if (loop.turn === 0) {
        // A session started without a prompt: nothing to answer until the first message.
        if (!(await awaitMessage())) return { status: 'success' };
        continue;
      }
      if (loop.step >= loop.maxSteps) return { status: 'max_steps', error: { message: `Reached the step limit (${loop.maxSteps}).`, type: 'MaxSteps' } };
      if (compactionDue(loop, spec.context) && patched('context-compaction')) loop = (await compactContext(spec, loop, log, 'threshold')).loop;
      if (hasGuardrails(spec, 'input')) {
        const g = await inputGuardrails(spec, loop);
        loop = g.state;
        log.push(...g.events);
        if (g.next.type === 'finish') return { status: g.next.status, ...(g.next.error ? { error: g.next.error } : {}) };
      }
      let model = await callModelWithRetries(spec, loop, log);
      if ('failure' in model && model.failure.contextOverflow && spec.context?.summarize && patched('context-compaction')) {
        // The provider said the prompt is too long: compact once and try again.
        const c = await compactContext(spec, loop, log, 'overflow');
        loop = c.loop;
        if (c.compacted) model = await callModelWithRetries(spec, loop, log);
      }
      if ('failure' in model) {
        const { failure } = model;
        const status = failure.type === STORAGE_ERROR ? 'storage_error' : 'provider_error';
        return { status, error: { message: failure.message, ...(failure.type ? { type: failure.type } : {}) } };
      }
      let t = applyModelStep(loop, spec, model.step);
      // An agent with an output schema: a final answer that does not validate is fed back, or ends the run.
      if (spec.output) t = applyOutputAnswer(t, spec, model.step);
      loop = t.state;
      const judged = hasGuardrails(spec, 'output') && judgesAnswer(t.next);
      // The answer's events wait for the output guardrails: the text of an answer that trips one is
      // never a durable event (clients void what they streamed of it). Earlier runs logged them at once.
      const held = judged && patched('output-guardrails-hold-text') ? t.events : undefined;
      if (!held) log.push(...t.events);
      // Until their gates answer, decisions for the calls just recorded are kept (they may yet ask).
      desk.beginGating(t.events.flatMap((e) => (e.type === 'tool_call' ? [e.callId] : [])));
      if (judged) {
        t = await outputGuardrails(spec, t);
        loop = t.state;
        if (held) log.push(...(t.next.type === 'finish' && t.next.status === 'guardrail' ? held.filter((e) => e.type !== 'text') : held));
        log.push(...t.events);
      }
      keepStateSmall();
      // Within budget (nearly every step), no await: each one is a promise, and Temporal's workflow
      // runtime records a stack trace for every promise workflow code makes.
      const over = spentBudget(loop.turn) ? await overBudget() : undefined;
      if (over && (t.next.type === 'run_tools' || (spec.output && t.next.type === 'call_model'))) return endOverBudget(over);
      if (t.next.type === 'finish') {
        if (t.next.status === 'success') {
          // Messages that arrived during the step are answered before the run ends or waits — within budget.
          if (over && (inbox.size > 0 || input.session)) return over;
          if (inbox.size > 0) continue;
          if (input.session && (await awaitMessage())) continue;
        }
        return { status: t.next.status, ...(t.next.error ? { error: t.next.error } : {}) };
      }
      if (t.next.type !== 'run_tools') continue;

      step = new ToolStep(tools, t.next.plan);
      const outcomes = await step.run();
      const t2 = applyToolOutcomes(loop, t.next.plan, outcomes);
      loop = t2.state;
      step = undefined;
      log.push(...t2.events);
      if (t2.next.type === 'finish') return { status: t2.next.status, ...(t2.next.error ? { error: t2.next.error } : {}) };
    }
  }
}
