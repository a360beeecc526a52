/**
 * The agent workflow: a deterministic driver of the pure loop in `core/loop/transitions.ts`. Model calls
 * and tool executions are activities; everything else is replayed from history, so a killed worker
 * resumes the run exactly where it was. It reads as the run does: describe the agent, then steps (model
 * step, tool step — `tool-call/`), then the ending. The loop state has one owner, a `RunState`
 * (`core/loop/run-state.ts`): every transition is applied through it. Every way a run ends — success, a
 * limit, cancellation, a failure of the model, a tool, the store or an activity — returns an
 * `AgentRunResult`, emits `done` and leaves the snapshot and search attributes final.
 */
import {
  allHandlersFinished,
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  patched,
  proxyActivities,
  setHandler,
  sleep,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import { compactionDue } from '../core/context/compaction';
import { AGENT_MEMO, DEFINITION_HASH_MEMO } from '../core/run/definition';
import type { TrimMark } from '../core/run/continuation';
import { carriedState, CONTINUE_AS_NEW_AFTER_EVENTS, shouldContinueAsNew, trimDue, trimmedState } from '../core/run/continuation';
import type { Budget } from '../core/budget/budget';
import { budgetMessage, effectiveBudget } from '../core/budget/budget';
import type { AgentActivities, AgentWorkflowInput, ContinuedRun, RunSnapshot } from '../core/run/contract';
import { STORAGE_ERROR } from '../core/run/contract';
import type { Ending, Interruption } from '../core/run/ending';
import {
  CANCELLED,
  finished,
  interruptedCallReason,
  maxStepsEnding,
  modelFailureEnding,
  overBudgetCallReason,
  timeoutEnding,
} from '../core/run/ending';
import { EventLog } from '../core/events/event-log';
import { applyOutputAnswer } from '../core/output/output';
import { doneEvent, finishRun } from '../core/run/report';
import type { AgentRunResult, RunError, RunStatus } from '../core/run/result';
import { modelForAttempt, modelLabel } from '../core/run/retry';
import type { AgentSpec } from '../core/run/spec';
import { DEFAULTS } from '../core/run/spec';
import { modelInput, startLoop } from '../core/loop/state';
import { RunState } from '../core/loop/run-state';
import type { Transition } from '../core/loop/transitions';
import { applyModelStep, applyToolOutcomes, applyUserMessages, closeOpenCalls } from '../core/loop/transitions';
import { ZERO_USAGE } from '../core/budget/usage';
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
import { ApprovalDesk, ChildApprovals, gateOf, parentNotifier, ToolStep } from './tool-call';
import { agentRules } from '../core/approvals/standing-rules';
import { Visibility } from './visibility';
import { EarlyStarts } from './early-starts';
import { Notifier } from './notify';

const { describeAgent, commitTranscript } = proxyActivities<AgentActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 5, initialInterval: '1 second' },
});

const { recordEvents } = proxyActivities<AgentActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3, initialInterval: '200 milliseconds' },
});

/** Run one agent to completion. Returns a typed result for every ending, cancellation and failures included. */
export async function agentWorkflow(input: AgentWorkflowInput): Promise<AgentRunResult> {
  const info = workflowInfo();
  // A run that continued as new goes on from what its previous execution handed over.
  const continued = input?.continued;
  const startedAt = continued?.startedAt ?? new Date().toISOString();
  const log = new EventLog(() => new Date(), continued ? { ...continued.events } : undefined);
  const agentName = typeof input?.agent === 'string' ? input.agent : '';
  const run = new RunState(log, startLoop({ name: agentName, limits: { maxSteps: 1, toolResultInlineBytes: 0 } }, ''));
  let phase: RunSnapshot['status'] = 'starting';
  const running = new Map<string, string>();
  let visibility = new Visibility(false);
  // Approval notifications (webhooks), once the spec says the worker has some.
  const notifications: { notifier?: Notifier } = {};
  const desk = new ApprovalDesk(
    log,
    () => {
      if (phase === 'running' || phase === 'awaiting_approval') phase = desk.pending().length ? 'awaiting_approval' : 'running';
      // The inbox count leaves deferred requests out (the status stays `awaiting_approval`).
      visibility.update(run.loop.agent, phase, desk.inbox().length);
      reportToParent();
    },
    (callId) => run.loop.messages.some((m) => m.role === 'assistant' && m.content.some((b) => b.type === 'tool_use' && b.id === callId)),
    () => run.loop.agent,
  );
  desk.install();
  // Sub-agents: the approvals this run's children wait for; a child run reports its own (and theirs) to its parent.
  const notifyParent = parentNotifier(input?.parent, () => run.loop.agent);
  const children = new ChildApprovals(() => reportToParent());
  children.install();
  desk.forwardTo(children);
  function reportToParent(): void {
    notifyParent?.([...desk.pending(), ...children.pending()]);
  }
  const inbox = new Inbox(log, () => run.loop.turn);
  inbox.install();
  setHandler(eventsQuery, (cursor, limit) => log.page(cursor, limit));
  setHandler(snapshotQuery, () => ({
    agent: run.loop.agent,
    status: phase,
    step: run.loop.step,
    turn: run.loop.turn,
    queuedMessages: inbox.size,
    maxSteps: run.loop.maxSteps,
    usage: run.loop.usage ?? ZERO_USAGE,
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
    const unstored = modelInput(run.loop);
    if (spec && unstored.append.length > 0) {
      try {
        run.stored(await CancellationScope.nonCancellable(() => commitTranscript(unstored)));
      } catch (err) {
        if (!isActivityFailure(err)) throw err;
        // A run that already ended on a storage failure keeps that (first) error.
        if (ending.status !== 'storage_error') {
          const failed = failureEnding(err, 'store the final messages of the transcript');
          status = failed.status;
          error = {
            ...failed.error,
            message: `The run ended (${ending.status}), but ${failed.error.message.charAt(0).toLowerCase()}${failed.error.message.slice(1)}`,
          };
        }
      }
    }
    const inlineBytes = spec?.limits.resultMessagesInlineBytes ?? DEFAULTS.resultMessagesInlineBytes;
    const result = finishRun(
      run.loop,
      status,
      { workflowId: info.workflowId, runId: info.runId, startedAt, endedAt: new Date().toISOString() },
      error,
      inlineBytes,
    );
    phase = status;
    visibility.update(run.loop.agent, status, 0);
    await notifications.notifier?.handOver();
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

  // 1. Describe: the input checked, the agent's spec (described, or carried over), the run's policy checked against it.
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
      if (isCancellation(err)) return end(CANCELLED);
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
  if (spec.definitionHash && patched('definition-hash-memo'))
    upsertMemo({ [AGENT_MEMO]: spec.name, [DEFINITION_HASH_MEMO]: spec.definitionHash });
  phase = 'running';
  inbox.layers = spec.layers ?? [];
  notifications.notifier = Notifier.start(spec.notify, desk, log, spec.name, continued?.undelivered);
  visibility = new Visibility(spec.searchAttributes === true);
  visibility.watchDecisions(desk);
  visibility.update(spec.name, phase, 0);
  if (continued) {
    run.replace(continued.loop);
    desk.restore(continued);
    inbox.restore(continued.inbox);
    log.push({ type: 'continued_as_new', execution: continued.executions, step: run.loop.step });
  } else {
    run.replace(startLoop(spec, input.prompt ?? '', input.maxSteps));
    // A sub-agent follows the run rules its parent had when it started it (issue 26).
    if (input.parent?.runRules) desk.restore({ approvedTools: [], queuedDecisions: [], runRules: input.parent.runRules });
    log.push({ type: 'run_started', agent: spec.name, model: modelLabel(modelForAttempt(spec.models, 1)), maxSteps: run.loop.maxSteps });
  }

  const tools: ToolCallContext = {
    spec,
    policy: input.policy,
    ...(input.approvalWaiver ? { approvalWaiver: input.approvalWaiver } : {}),
    desk,
    log,
    running,
    proxies: new Map(),
    messageWaiting: () => inbox.size > 0,
    children,
  };
  // Standing rules (issue 26): the set read at describe (or carried), newer ones by signal; the agent's own rules from its code.
  if (spec.standingRules) desk.adoptRules(spec.standingRules, false);
  desk.useRules(
    { agent: spec.name, session: info.root?.workflowId ?? info.workflowId },
    agentRules(spec.name, spec.approvalRules),
    (call, check, answers) => gateOf(tools, call, check, answers),
  );
  // Streaming tool execution: read-only calls the model activity reports while it streams start at once.
  const early = new EarlyStarts(tools);
  early.install();
  // Extended by people when the agent asks (onBudgetExhausted: 'ask'); carried across continue-as-new in the input.
  let budget: Budget = continued?.budget ?? effectiveBudget(spec.budget, input.budget);
  let step: ToolStep | undefined;
  // What the loop state held after its last trim (a continued run starts from what it carried).
  let trimMark: TrimMark = { messages: run.loop.messages.length, steps: run.loop.steps.length, toolCalls: run.loop.toolCalls.length };
  let timedOut = false;
  const deadline = continued
    ? continued.deadline
    : budget.timeoutMs !== undefined
      ? new Date(Date.now() + budget.timeoutMs).toISOString()
      : undefined;

  // 2. Steps, until a transition, a limit, the time budget or a cancellation ends them; 3. the ending.
  let ending: Ending;
  try {
    ending = deadline !== undefined ? await runWithin(Math.max(1, Date.parse(deadline) - Date.now())) : await runLoop();
  } catch (err) {
    const cancelled = isCancellation(err);
    if (!cancelled && !isActivityFailure(err)) throw err;
    const why: Interruption = timedOut
      ? { kind: 'timeout' }
      : cancelled
        ? { kind: 'cancelled' }
        : { kind: 'failed', ending: failureEnding(err, 'run the step') };
    early.discard();
    run.apply(closeOpenCalls(run.loop, step?.completed() ?? [], interruptedCallReason(why)));
    ending = why.kind === 'timeout' ? timeoutEnding(budget.timeoutMs) : why.kind === 'failed' ? why.ending : CANCELLED;
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

  /** Model step, tool step, repeat, until a transition says to finish (a session: until it ends). */
  async function runLoop(): Promise<Ending> {
    // A continued run resumes the step its previous execution switched in, after that execution took the
    // step's messages: messages queued at the switch came during the step, so, as without the switch,
    // they wait for its model call (same grouping, turns and turn budget). Earlier runs took them at once.
    let resumedStep = continued !== undefined && run.loop.turn > 0 && inbox.size > 0 && patched('carried-messages-after-the-step');
    for (;;) {
      const start = await startStep(resumedStep);
      resumedStep = false;
      if (start === 'again') continue;
      if (start) return start;
      const t = await modelStep();
      // Early calls reach the model only through the tool step: any other way on discards them.
      if (!('next' in t) || t.next.type !== 'run_tools') early.discard();
      if (!('next' in t)) return t;
      // Within budget (nearly every step), no await: each one is a promise, and Temporal's workflow
      // runtime records a stack trace for every promise workflow code makes.
      const over = run.spentBudget(budget, run.loop.turn) ? await overBudget() : undefined;
      if (over && (t.next.type === 'run_tools' || (spec.output && t.next.type === 'call_model'))) {
        early.discard();
        return endOverBudget(over);
      }
      if (t.next.type === 'finish') {
        const ends = await finishOrGoOn(t.next, over);
        if (ends) return ends;
        continue;
      }
      if (t.next.type !== 'run_tools') continue;

      // The tool step (`tool-call/`): every planned call to its outcome, then the outcomes applied.
      step = new ToolStep(tools, t.next.plan, early);
      const outcomes = await step.run();
      const t2 = applyToolOutcomes(run.loop, t.next.plan, outcomes, spec);
      run.apply(t2);
      step = undefined;
      if (t2.next.type === 'finish') return finished(t2.next);
    }
  }

  /**
   * Before the model call: messages people sent join (within the turn budget), a long history continues
   * as new, a session waits for its first message, the step limit and the input guardrails may end the
   * run, and a context past its threshold is compacted. Undefined: call the model.
   */
  async function startStep(resumedStep: boolean): Promise<Ending | 'again' | undefined> {
    // Calls recorded by an earlier step that never reached their gate will not ask.
    desk.endGating();
    // A new user turn beyond the turn budget is not answered.
    if (!resumedStep && inbox.size > 0 && budget.maxTurns !== undefined) {
      const over = await overBudget(run.loop.turn + 1);
      if (over) return over;
    }
    if (!resumedStep) takeMessages();
    // A step boundary: nothing in flight, no approval open. A long history starts afresh here.
    if (historyIsLong()) await continueNow();
    if (run.loop.turn === 0) {
      // A session started without a prompt: nothing to answer until the first message.
      if (!(await awaitMessage())) return { status: 'success' };
      return 'again';
    }
    if (run.loop.step >= run.loop.maxSteps) return maxStepsEnding(run.loop.maxSteps);
    if (compactionDue(run.loop, spec.context) && patched('context-compaction'))
      run.replace((await compactContext(spec, run.loop, log, 'threshold')).loop);
    if (hasGuardrails(spec, 'input')) {
      const g = await inputGuardrails(spec, run.loop);
      run.apply(g);
      if (g.next.type === 'finish') return finished(g.next);
    }
    return undefined;
  }

  /**
   * The model step: call the model (compacting once if the prompt was too long), apply its answer (an
   * output schema's verdict, the output guardrails) and keep the state small. Returns the answer's
   * transition, or how the run ends when the model failed.
   */
  async function modelStep(): Promise<Transition | Ending> {
    let model = await callModelWithRetries(spec, run.loop, log, early);
    if ('failure' in model && model.failure.contextOverflow && spec.context?.summarize && patched('context-compaction')) {
      // The provider said the prompt is too long: compact once and try again.
      const c = await compactContext(spec, run.loop, log, 'overflow');
      run.replace(c.loop);
      if (c.compacted) model = await callModelWithRetries(spec, run.loop, log, early);
    }
    if ('failure' in model) return modelFailureEnding(model.failure, STORAGE_ERROR);
    let t = applyModelStep(run.loop, spec, model.step);
    // An agent with an output schema: a final answer that does not validate is fed back, or ends the run.
    if (spec.output) t = applyOutputAnswer(t, spec, model.step);
    const judged = hasGuardrails(spec, 'output') && judgesAnswer(t.next);
    // The answer's events wait for the output guardrails: the text of an answer that trips one is
    // never a durable event (clients void what they streamed of it). Earlier runs logged them at once.
    const held = judged && patched('output-guardrails-hold-text') ? t.events : undefined;
    run.apply(t, held ? [] : t.events);
    // Until their gates answer, decisions for the calls just recorded are kept (they may yet ask).
    desk.beginGating(t.events.flatMap((e) => (e.type === 'tool_call' ? [e.callId] : [])));
    if (judged) {
      t = await outputGuardrails(spec, t);
      const released = held
        ? t.next.type === 'finish' && t.next.status === 'guardrail'
          ? held.filter((e) => e.type !== 'text')
          : held
        : [];
      run.apply(t, [...released, ...t.events]);
    }
    keepStateSmall();
    return t;
  }

  /**
   * A final answer: the run ends, unless it succeeded and messages that arrived during the step wait
   * (answered first — within budget) or a session goes on with the next message. Undefined: go on.
   */
  async function finishOrGoOn(next: { status: RunStatus; error?: RunError }, over: Ending | undefined): Promise<Ending | undefined> {
    if (next.status === 'success') {
      if (over && (inbox.size > 0 || input.session)) return over;
      if (inbox.size > 0) return undefined;
      if (input.session && (await awaitMessage())) return undefined;
    }
    return finished(next);
  }

  /**
   * Hand the run over to a new execution (same workflow id, a fresh history): at a step boundary, with
   * the whole conversation stored, once every signal and update handler has finished. Never returns.
   */
  async function continueNow(): Promise<never> {
    const unstored = modelInput(run.loop);
    if (unstored.append.length > 0) run.stored(await commitTranscript(unstored));
    await condition(allHandlersFinished);
    recordLog();
    const carried: ContinuedRun = {
      spec,
      loop: carriedState(run.loop, spec.limits.resultMessagesInlineBytes ?? DEFAULTS.resultMessagesInlineBytes),
      ...desk.carried(),
      inbox: inbox.carried(),
      events: { count: log.size, runId: info.runId, chain: log.chain(info.runId), tail: log.tail() },
      startedAt,
      budget,
      ...(deadline !== undefined ? { deadline } : {}),
      executions: (continued?.executions ?? 1) + 1,
      ...(notifications.notifier?.undelivered().length ? { undelivered: notifications.notifier.undelivered() } : {}),
    };
    return continueAsNew<typeof agentWorkflow>({ ...input, continued: carried });
  }

  /** True when this execution's history is long enough to continue as new (checked at step boundaries). */
  function historyIsLong(): boolean {
    const current = workflowInfo();
    return shouldContinueAsNew(
      { length: current.historyLength, suggested: current.continueAsNewSuggested },
      spec.limits.continueAsNewAfterEvents ?? CONTINUE_AS_NEW_AFTER_EVENTS,
    );
  }

  /**
   * The token, cost or turn budget this state has spent, as an ending; undefined while within budget.
   * An agent that asks (`onBudgetExhausted: 'ask'`) pauses here on an approval request: approving
   * extends the budget (and the check runs again), deny or skip ends the run.
   */
  async function overBudget(turns = run.loop.turn): Promise<Ending | undefined> {
    for (;;) {
      const spent = run.spentBudget(budget, turns);
      if (!spent) return undefined;
      const ending: Ending = { status: 'budget_exceeded', error: { message: budgetMessage(spent), type: 'BudgetExceeded' } };
      if (spec.limits.onBudgetExhausted !== 'ask') return ending;
      const decided = await desk.askBudget(run.loop.step, {
        budget: spent.budget,
        limit: spent.limit,
        spent: spent.spent,
        message: budgetMessage(spent),
      });
      if (decided?.decision !== 'approve') {
        return {
          ...ending,
          error: {
            ...ending.error!,
            message:
              `${budgetMessage(spent)} ${decided ? `Not extended: ${decided.decision} by ${decided.by}${decided.reason ? ` (${decided.reason})` : ''}.` : ''}`.trim(),
          },
        };
      }
      budget = { ...budget, [spent.budget]: spent.limit + (decided.extendBy ?? spent.limit) };
    }
  }

  /** End on a spent budget: calls the model asked for are closed without running. */
  function endOverBudget(over: Ending): Ending {
    run.apply(closeOpenCalls(run.loop, [], overBudgetCallReason(over)));
    return over;
  }

  /**
   * After a model step, with the conversation stored: the loop keeps only its most recent messages
   * (the result's budget) and recent step and call details (the report's), so a run's memory does not
   * grow with its conversation. Runs recorded before this replay untrimmed (patched).
   */
  function keepStateSmall(): void {
    if (!trimDue(run.loop, trimMark) || !patched('bounded-loop-state')) return;
    const t = trimmedState(run.loop, spec.limits.resultMessagesInlineBytes ?? DEFAULTS.resultMessagesInlineBytes);
    run.replace(t.loop);
    trimMark = t.mark;
  }

  /** Messages people sent join the conversation (one new user turn) before the model's next call. */
  function takeMessages(): void {
    if (inbox.size === 0) return;
    run.apply(applyUserMessages(run.loop, inbox.take(), spec));
  }

  /**
   * A session waits, durably and with no worker busy, for the next message: true when one came, false
   * when it was asked to end or stayed idle past its timeout.
   */
  async function awaitMessage(): Promise<boolean> {
    const idleMs = input.session?.idleTimeoutMs;
    phase = 'awaiting_message';
    visibility.update(spec.name, phase, desk.inbox().length);
    log.push({
      type: 'awaiting_message',
      turn: run.loop.turn,
      ...(idleMs !== undefined ? { idleUntil: new Date(Date.now() + idleMs).toISOString() } : {}),
    });
    const wake = () => inbox.size > 0 || inbox.ended;
    if (idleMs !== undefined) await condition(wake, idleMs);
    else await condition(wake);
    phase = 'running';
    visibility.update(spec.name, phase, desk.inbox().length);
    return inbox.size > 0;
  }
}
