/**
 * Where tool calls wait for people. Requests, decisions (signal or validated update), expiries and
 * "approve all calls of this tool" live in workflow state, rebuilt from history on replay, so a decision
 * is never lost or applied twice, whatever happens to workers. A decision signal for a call the run has
 * not reached yet (it overtook the replay of the step that asks) is kept and applied when that call asks.
 */
import { ApplicationFailure, condition, currentUpdateInfo, isCancellation, patched, setHandler } from '@temporalio/workflow';
import type {
  ApprovalDecision,
  ApprovalRule,
  ApprovalSpec,
  ApprovalTimeoutOutcome,
  AuditPath,
  CallApprovalState,
  Decision,
  PendingApproval,
  RuleRef,
  RuleSet,
  RunRulesInput,
  Gate,
  ToolCallApproval,
} from '../../core/approvals/approvals';
import { parseDecision, refusal, signalDisposition } from '../../core/approvals/approvals';
import { matchRules, ruleRef, runRuleOf } from '../../core/approvals/run-rules';
import type { RuleScopeOf } from '../../core/approvals/standing-rules';
import { asRuleSet, NO_RULES, ruleFits } from '../../core/approvals/standing-rules';
import type { DecisionReceipt, RefusalDetails } from '../../core/run/contract';
import type { EventLog } from '../../core/events/event-log';
import type { ToolOutcome } from '../../core/tool-calls/outcomes';
import { decisionOutcome, expiredOutcome, withdrawnOutcome } from '../../core/tool-calls/outcomes';
import type { JsonObject } from '../../core/messages/json';
import type { ApprovalClose, ApprovalTrace } from '../../integrations/telemetry/workflow-spans';
import { approvalClosed, approvalEvent, approvalOpened } from '../../integrations/telemetry/workflow-spans';
import type { PlannedCall } from '../../core/tool-calls/plan';
import type { PendingApprovalsOptions } from '../definitions';
import {
  approvalSignal,
  decideUpdate,
  deferSignal,
  deferUpdate,
  delegateSignal,
  delegateUpdate,
  pendingApprovalsQuery,
  rulesChangedSignal,
} from '../definitions';
import type { DeferReceipt, DeferRequest, DelegateReceipt, DelegateRequest } from '../../core/approvals/deferrals';
import { deferRefusal, delegateRefusal, inInbox, parseDefer, parseDelegate } from '../../core/approvals/deferrals';
import type { ApprovalEscalation } from '../../core/approvals/approval-requests';
import type { ChildApprovals } from './child-approvals';

/** Failure type of a refused `decide` update: non-retryable, the reason is the message. */
export const APPROVAL_REFUSED = 'ApprovalRefused';

/** A decision as the desk keeps it. */
export interface Decided {
  decision: Decision;
  by: string;
  reason?: string;
  /** Budget requests: how much to add on approve. */
  extendBy?: number;
  /** How the decision reached the run (`rule` when a rule decided a waiting call). */
  path?: AuditPath;
  /** The rule that decided, when one did. */
  rule?: RuleRef;
  /** The update that carried it, when one did. */
  updateId?: string;
}

/**
 * What the desk tells its {@link ApprovalEventHook}s (notifications): a request opened, escalated, was
 * decided or expired. Called in workflow code, also on replay: a hook must only do what is deterministic
 * (e.g. schedule an activity behind `patched()`), never I/O.
 */
export type ApprovalDeskEvent =
  | { kind: 'requested'; pending: PendingApproval }
  | { kind: 'escalated'; pending: PendingApproval; to: string[] }
  | { kind: 'decided'; pending: PendingApproval; decided: Decided; via: 'signal' | 'update'; sticky: boolean }
  | { kind: 'expired'; pending: PendingApproval; outcome: ApprovalTimeoutOutcome };

/** A listener of the desk's approval events (see {@link ApprovalDesk.onApprovalEvent}). */
export type ApprovalEventHook = (e: ApprovalDeskEvent) => void;

interface Entry {
  pending: PendingApproval;
  spec: ApprovalSpec | undefined;
  decided?: Decided;
  closed?: 'expired' | 'withdrawn';
  /** The standing rule set's version when the call was gated (0: none). */
  rulesVersion?: number;
  /** How many times the request was delegated. */
  delegations?: number;
  /** It reached its escalation time while deferred: it escalates when it returns. */
  escalateOnReturn?: ApprovalEscalation;
  /** For the approval's span and metrics (no-ops without tracing and metrics). */
  trace: ApprovalTrace;
  /** The call, and its predicate's recorded answer, when a tool call asked (re-gated when the rules change). */
  call?: PlannedCall;
  check?: boolean;
  answers?: Record<string, boolean | null>;
}

/** How a call was gated, as the desk records it with the request. */
export interface GatedAs {
  /** The rule (or policy entry) that asked, when one did. */
  rule?: ApprovalRule;
  /** The recorded answer of the tool's predicate, when it was asked. */
  check?: boolean;
  /** The recorded answers of the agent's function rules, when they were asked. */
  answers?: Record<string, boolean | null>;
}

/** What waiting for a person came to. */
export type Verdict = { kind: 'run' } | { kind: 'outcome'; outcome: ToolOutcome };

/** The approval state of one run. */
export class ApprovalDesk {
  private readonly entries = new Map<string, Entry>();
  /** Decision signals for calls the run has not reached yet, by call id, in arrival order. */
  private readonly queued = new Map<string, ApprovalDecision>();
  /** Tools approved for the rest of the run. */
  readonly approvedTools = new Set<string>();
  /** Run-scope rules people made by deciding with `scope: 'run'` (approve and stop asking, always reject), oldest first. */
  readonly runRules: ApprovalRule[] = [];
  /** The approvals the run's sub-agents wait for: listed with the run's own, decisions on them forwarded. */
  private children: ChildApprovals | undefined;
  /** The standing rule set the run knows (the newest version it read or was sent). */
  private standing: RuleSet = NO_RULES;
  /** Who the run is for standing rules' scopes, and the rules its agent's code defines (set once the spec is known). */
  private ruleScope: { who: RuleScopeOf; code: readonly ApprovalRule[] } | undefined;
  /** Gates a waiting call again (set by the run once its tools are known); see {@link adoptRules}. */
  private regate: ((call: PlannedCall, check?: boolean, answers?: Record<string, boolean | null>) => Gate) | undefined;

  /** Standing rules apply to this run as `who` (with the rules of its agent's code); `regate` gates a waiting call again. */
  useRules(
    who: RuleScopeOf,
    code: readonly ApprovalRule[],
    regate: (call: PlannedCall, check?: boolean, answers?: Record<string, boolean | null>) => Gate,
  ): void {
    this.ruleScope = { who, code };
    this.regate = regate;
  }

  /** The version of the standing rule set the run knows (0: none). */
  get rulesVersion(): number {
    return this.standing.version;
  }

  /** What a gate consults besides the run policy, for a call with `args` (undefined: not known yet), now. */
  gateRules(args: JsonObject | undefined): RunRulesInput {
    const nowMs = Date.now();
    const scope = this.ruleScope;
    const standing = scope ? [...scope.code, ...this.standing.rules.filter((r) => ruleFits(r, scope.who, nowMs))] : [];
    return { rules: this.runRules, args, nowMs, ...(standing.length ? { standing } : {}) };
  }

  /**
   * Take a newer standing rule set (a version the run has not seen; older ones are ignored). With
   * `regate`, waiting calls are gated again: one a rule now denies or allows is decided by that rule.
   */
  adoptRules(set: RuleSet, regate: boolean): boolean {
    if (set.version <= this.standing.version) return false;
    this.standing = set;
    if (regate) this.regateWaiting();
    return true;
  }

  /** Gate the run's own waiting calls again: a rule that now denies or allows one decides it (`by: rule:<id>`, path `rule`). */
  private regateWaiting(only?: string, via: 'signal' | 'update' = 'signal'): string[] {
    const decided: string[] = [];
    if (!this.regate) return decided;
    for (const e of this.entries.values()) {
      if (e.decided || e.closed || !e.call) continue;
      const gate = this.regate(e.call, e.check, e.answers);
      if ((gate.kind !== 'run' && gate.kind !== 'deny') || gate.why !== 'rule') continue;
      const rule = gate.rule;
      if (only !== undefined && rule.id !== only) continue;
      this.settle(
        e,
        {
          decision: gate.kind === 'run' ? 'approve' : 'deny',
          by: `rule:${rule.id}`,
          ...(rule.reason ? { reason: rule.reason } : {}),
          path: 'rule',
          rule: ruleRef(rule),
        },
        via,
        only !== undefined,
      );
      decided.push(e.pending.callId);
    }
    if (decided.length && only === undefined) this.changed();
    return decided;
  }

  /** Listeners of requests, escalations, decisions and expiries (none by default). */
  private readonly hooks: ApprovalEventHook[] = [];

  /** Call `hook` at every request, escalation, decision and expiry from now on. */
  onApprovalEvent(hook: ApprovalEventHook): void {
    this.hooks.push(hook);
  }

  /** Tell the hooks (see {@link onApprovalEvent}). */
  private emit(e: ApprovalDeskEvent): void {
    for (const hook of this.hooks) hook(e);
  }

  /** List the approvals `children` wait for with the run's own, and forward decisions on them to the child that waits. */
  forwardTo(children: ChildApprovals): void {
    this.children = children;
  }

  /** The child that waits for `callId`, when the run itself has no such approval (nor such a call being gated). */
  private inChild(callId: string): ReturnType<ChildApprovals['find']> {
    return this.entries.has(callId) || this.gating.has(callId) ? undefined : this.children?.find(callId);
  }

  /**
   * @param log the run's event log
   * @param changed called whenever the set of pending approvals changes (search attributes)
   * @param isCallOfRun whether a call id belongs to a step the run has reached
   * @param agent the run's agent, for the approvals' spans and metrics
   */
  constructor(
    private readonly log: EventLog,
    private readonly changed: () => void,
    private readonly isCallOfRun: (callId: string) => boolean,
    private readonly agent: () => string = () => '',
  ) {}

  /** Register the signal, update and query handlers. */
  install(): void {
    setHandler(pendingApprovalsQuery, (options?: PendingApprovalsOptions) => {
      const all = [...this.pending(), ...(this.children?.pending() ?? [])];
      return options?.includeDeferred ? all : all.filter(inInbox);
    });
    this.installDeferrals();
    setHandler(rulesChangedSignal, (payload: unknown) => {
      // Runs recorded before standing rules left this signal unread: keep that on replay.
      if (!patched('standing-rules')) return;
      const set = asRuleSet(payload);
      if (set) this.adoptRules(set, true);
    });
    setHandler(approvalSignal, (payload: unknown) => this.onSignal(payload));
    setHandler(
      decideUpdate,
      (payload: unknown) => {
        const d = withUpdateId((parseDecision(payload) as { value: ApprovalDecision }).value);
        const child = this.inChild(d.callId);
        if (child && this.children) {
          // A sub-agent's call: the child decides it (a signal; the validator checked it against the child's last report).
          this.forwarded(d.callId, child.via, 'decision', d);
          return this.children
            .forward(child.via, { ...withoutUpdateId(d), callId: child.childCallId })
            .then(() => ({ callId: d.callId, tool: child.pending.tool, decision: d.decision, by: d.by, applied: [d.callId] }));
        }
        // A call being gated: the caller waits for its gate, then the decision applies if it asked.
        if (this.stateOf(d.callId).kind === 'gating') return this.afterGate(d);
        return this.apply(d, 'update');
      },
      {
        // Refusals are final (nothing to retry) and typed, so any client — the `temporal` CLI included —
        // reads `ApprovalRefused` with the reason. The validator writes nothing to history.
        validator: (payload: unknown) => {
          const parsed = parseDecision(payload);
          if (!parsed.ok) throw ApplicationFailure.nonRetryable(parsed.error, APPROVAL_REFUSED);
          const child = this.inChild(parsed.value.callId);
          const state: CallApprovalState = child ? { kind: 'pending', pending: child.pending } : this.stateOf(parsed.value.callId);
          const why = refusal(parsed.value, state, Date.now());
          // The state travels as a detail: a client that saw the call in a query can tell "not reached yet".
          if (why)
            throw ApplicationFailure.create({
              message: why,
              type: APPROVAL_REFUSED,
              nonRetryable: true,
              details: [{ state: state.kind } satisfies RefusalDetails],
            });
        },
      },
    );
  }

  /** Apply an update's decision once its call's gate has answered, or refuse it if the call did not ask. */
  private async afterGate(d: ApprovalDecision): Promise<DecisionReceipt> {
    await condition(() => this.stateOf(d.callId).kind !== 'gating');
    const state = this.stateOf(d.callId);
    const why = refusal(d, state, Date.now());
    if (why)
      throw ApplicationFailure.create({
        message: why,
        type: APPROVAL_REFUSED,
        nonRetryable: true,
        details: [{ state: state.kind } satisfies RefusalDetails],
      });
    return this.apply(d, 'update');
  }

  private onSignal(payload: unknown): void {
    const parsed = parseDecision(payload);
    if (!parsed.ok) return this.refused(payload, parsed.error);
    // A signal is no update: an `updateId` it claims is not recorded.
    const d = withoutUpdateId(parsed.value);
    const child = this.inChild(d.callId);
    if (child && this.children) {
      // A sub-agent's call: the child decides it (and refuses it there if it no longer applies).
      this.forwarded(d.callId, child.via, 'decision', d);
      void this.children.forward(child.via, { ...d, callId: child.childCallId }).catch(() => undefined);
      return;
    }
    const state = this.stateOf(d.callId);
    // Runs recorded before decisions could wait for their call refused them at once: keep that on replay.
    if (state.kind === 'not_reached' && !patched('queue-early-decisions'))
      return this.refused(payload, refusal(d, state, Date.now()) as string);
    // Runs recorded before decisions could wait for a call's gate refused them as "did not ask": keep that on replay.
    if (state.kind === 'gating' && !patched('queue-decisions-while-gating'))
      return this.refused(payload, refusal(d, { kind: 'not_asked' }, Date.now()) as string);
    const next = signalDisposition(d, state, Date.now(), this.queued.size);
    if (next.kind === 'refuse') return this.refused(payload, next.reason);
    if (next.kind === 'apply') {
      this.apply(d, 'signal');
      return;
    }
    this.queued.set(d.callId, d);
    this.log.push({ type: 'approval_queued', callId: d.callId, by: d.by, decision: d.decision });
  }

  /** What the next execution must keep when the run continues as new (no request is open then). */
  carried(): { approvedTools: string[]; queuedDecisions: ApprovalDecision[]; runRules?: ApprovalRule[]; standingRules?: RuleSet } {
    return {
      approvedTools: [...this.approvedTools],
      queuedDecisions: [...this.queued.values()],
      ...(this.runRules.length ? { runRules: [...this.runRules] } : {}),
      ...(this.standing.version > 0 ? { standingRules: this.standing } : {}),
    };
  }

  /** Start from what the previous execution handed over. */
  restore(state: {
    approvedTools: readonly string[];
    queuedDecisions: readonly ApprovalDecision[];
    runRules?: readonly ApprovalRule[];
    standingRules?: RuleSet;
  }): void {
    for (const t of state.approvedTools) this.approvedTools.add(t);
    for (const d of state.queuedDecisions) this.queued.set(d.callId, d);
    this.runRules.push(...(state.runRules ?? []));
    if (state.standingRules) this.adoptRules(state.standingRules, false);
  }

  /** How the approval of `callId` was settled, for the report; undefined while it waits or when it never asked. */
  settledAs(callId: string): ToolCallApproval | undefined {
    const e = this.entries.get(callId);
    if (e?.closed === 'expired') return { decision: 'expired', by: 'timeout', path: 'timeout' };
    if (!e?.decided) return undefined;
    const d = e.decided;
    return {
      decision: d.decision,
      by: d.by,
      path: d.path ?? 'temporal',
      ...(d.rule ? { rule: d.rule } : {}),
      ...(e.rulesVersion ? { rulesVersion: e.rulesVersion } : {}),
    };
  }

  /** Calls waiting for a person, oldest first (deferred ones too: they carry `deferredUntil`). */
  pending(): PendingApproval[] {
    return [...this.entries.values()].filter((e) => !e.decided && !e.closed).map((e) => e.pending);
  }

  /** Calls waiting for a person that are in the inbox now (not deferred). */
  inbox(): PendingApproval[] {
    return this.pending().filter(inInbox);
  }

  /**
   * Ask for a person's decision on `call`; a decision that arrived for it earlier is applied now. `gated`:
   * the rule that asked (its `ask` settings shape the request) and the predicate's answer.
   */
  request(call: PlannedCall, spec: ApprovalSpec | undefined, gated: GatedAs = {}): void {
    const ask = gated.rule?.action === 'ask' ? gated.rule.ask : undefined;
    const asked: ApprovalSpec | undefined = ask
      ? {
          mode: spec?.mode ?? 'always',
          onTimeout: spec?.onTimeout ?? 'deny',
          ...(spec?.approvers?.length ? { approvers: spec.approvers } : ask.approvers?.length ? { approvers: ask.approvers } : {}),
          ...((ask.timeoutMs ?? spec?.timeoutMs) !== undefined ? { timeoutMs: ask.timeoutMs ?? spec?.timeoutMs } : {}),
          ...((ask.escalate ?? spec?.escalation) ? { escalation: ask.escalate ?? spec?.escalation } : {}),
        }
      : spec;
    const entry = this.open(call.callId, call.step, call.tool.name, call.args, asked, undefined, gated.rule);
    entry.call = call;
    if (gated.check !== undefined) entry.check = gated.check;
    if (gated.answers) entry.answers = gated.answers;
  }

  /**
   * Ask a person whether to extend a spent budget: a pending approval with call id `budget_<step>_<n>`
   * and tool `budget`, decided like any other (signal, update, CLI). Resolves with the decision, or
   * undefined when the request was withdrawn (the run is ending).
   */
  async askBudget(step: number, args: JsonObject): Promise<Decided | undefined> {
    const callId = `budget_${step}_${++this.budgetRequests}`;
    const entry = this.open(callId, step, 'budget', args, undefined);
    await condition(() => entry.decided !== undefined || entry.closed !== undefined);
    return entry.decided;
  }

  private budgetRequests = 0;

  /**
   * Ask the tool's approvers whether to run an at-most-once call again after its outcome became unknown:
   * a pending approval with call id `<callId>~rerun-<n>`, decided like any other. Resolves with the
   * decision, or undefined when the request expired or was withdrawn.
   */
  async askRerun(call: PlannedCall, n: number, spec: ApprovalSpec | undefined, question: string): Promise<Decided | undefined> {
    const entry = this.open(`${call.callId}~rerun-${n}`, call.step, call.tool.name, call.args, spec, question);
    await condition(() => entry.decided !== undefined || entry.closed !== undefined);
    return entry.decided;
  }

  private open(
    callId: string,
    step: number,
    tool: string,
    args: JsonObject,
    spec: ApprovalSpec | undefined,
    question?: string,
    askedBy?: ApprovalRule,
  ): Entry {
    const now = Date.now();
    const call = { callId, step };
    const pending: PendingApproval = {
      callId: call.callId,
      step: call.step,
      tool,
      args,
      requestedAt: new Date(now).toISOString(),
      ...(spec?.timeoutMs !== undefined ? { expiresAt: new Date(now + spec.timeoutMs).toISOString() } : {}),
      ...(spec?.approvers?.length ? { approvers: spec.approvers } : {}),
      ...(question ? { question } : {}),
      ...(askedBy ? { rule: ruleRef(askedBy) } : {}),
    };
    const entry: Entry = { pending, spec, trace: approvalOpened(this.agent(), tool, callId, now), rulesVersion: this.standing.version };
    this.entries.set(call.callId, entry);
    this.log.push({
      type: 'approval_requested',
      step: call.step,
      callId: call.callId,
      tool,
      args,
      ...(pending.expiresAt ? { expiresAt: pending.expiresAt } : {}),
      ...(pending.approvers ? { approvers: pending.approvers } : {}),
      ...(question ? { question } : {}),
      ...(askedBy ? { rule: ruleRef(askedBy) } : {}),
      ...(this.standing.version > 0 ? { rulesVersion: this.standing.version } : {}),
    });
    this.emit({ kind: 'requested', pending });
    const early = this.queued.get(call.callId);
    if (early) {
      this.queued.delete(call.callId);
      const why = refusal(early, this.stateOf(call.callId), now);
      if (why) this.refused(early, why);
      else this.apply(early, 'signal');
    }
    this.changed();
    if (spec?.timeoutMs !== undefined) void this.expireAt(entry, spec.timeoutMs);
    // Escalation (a spec recorded without one never gets here); not for "run it again?" questions.
    if (spec?.escalation && !question && patched('approval-escalation')) void this.escalateAt(entry, spec.escalation);
    return entry;
  }

  /** Calls recorded (their `tool_call` logged) whose gate has not answered yet: decisions for them wait. */
  private readonly gating = new Set<string>();

  /** `callIds` were recorded and are being gated: decisions for them are kept until {@link endGating}. */
  beginGating(callIds: readonly string[]): void {
    for (const id of callIds) this.gating.add(id);
  }

  /**
   * The gates have answered (every call that must ask has been {@link request}ed): decisions kept for
   * calls that did not ask are refused, and updates waiting for a gate get their answer.
   */
  endGating(): void {
    if (!this.gating.size) return;
    const ids = [...this.gating];
    this.gating.clear();
    this.refuseQueuedFor(ids.filter((id) => !this.entries.has(id)));
  }

  /**
   * Refuse the queued decisions for calls of a step that did not ask for approval: once the step is
   * planned, they can never apply.
   */
  refuseQueuedFor(callIds: readonly string[]): void {
    for (const id of callIds) {
      const d = this.queued.get(id);
      if (!d) continue;
      this.queued.delete(id);
      this.refused(d, refusal(d, { kind: 'not_asked' }, Date.now()) as string);
    }
  }

  /**
   * Expire `entry` when its time is up, whenever its call gets to wait (a serial call may start
   * waiting long after it was requested): the deadline is the one people were shown.
   */
  private async expireAt(entry: Entry, timeoutMs: number): Promise<void> {
    const settled = () => entry.decided !== undefined || entry.closed !== undefined;
    try {
      if (!(await condition(settled, timeoutMs)) && !settled()) {
        entry.closed = 'expired';
        this.closeTrace(entry, 'expired');
        const { callId, tool, step } = entry.pending;
        const outcome = entry.spec?.onTimeout ?? 'deny';
        this.log.push({ type: 'approval_expired', step, callId, tool, outcome });
        this.emit({ kind: 'expired', pending: entry.pending, outcome });
        this.changed();
      }
    } catch (err) {
      // The run was cancelled: the timer goes with it.
      if (!isCancellation(err)) throw err;
    }
  }

  /** Wait until `call` is decided, its approval expires, or the request is withdrawn. */
  async wait(call: PlannedCall): Promise<Verdict> {
    const entry = this.entries.get(call.callId);
    if (!entry) return { kind: 'run' };
    const tool = call.tool.name;
    await condition(() => entry.decided !== undefined || entry.closed !== undefined);
    if (entry.closed === 'withdrawn') return { kind: 'outcome', outcome: withdrawnOutcome(call.callId, tool) };
    if (entry.closed === 'expired')
      return { kind: 'outcome', outcome: expiredOutcome(call.callId, tool, entry.spec?.onTimeout === 'fail') };
    const d = entry.decided as Decided;
    return d.decision === 'approve'
      ? { kind: 'run' }
      : { kind: 'outcome', outcome: decisionOutcome(call.callId, tool, { ...d, decision: d.decision }) };
  }

  /** Stop waiting for every open request, and refuse decisions still queued (the run is ending). */
  withdrawAll(): void {
    this.gating.clear();
    let any = false;
    for (const e of this.entries.values()) {
      if (!e.decided && !e.closed) {
        e.closed = 'withdrawn';
        this.closeTrace(e, 'withdrawn');
        any = true;
      }
    }
    for (const d of this.queued.values()) this.refused(d, `the run ended before call "${d.callId}" asked for approval`);
    this.queued.clear();
    if (any) this.changed();
  }

  private stateOf(callId: string): CallApprovalState {
    const e = this.entries.get(callId);
    if (!e && this.gating.has(callId)) return { kind: 'gating' };
    if (e?.decided) return { kind: 'decided', decision: e.decided.decision, by: e.decided.by };
    if (e?.closed === 'expired') return { kind: 'expired' };
    if (e && !e.closed) return { kind: 'pending', pending: e.pending };
    return e || this.isCallOfRun(callId) ? { kind: 'not_asked' } : { kind: 'not_reached' };
  }

  private apply(d: ApprovalDecision, via: 'signal' | 'update'): DecisionReceipt {
    const entry = this.entries.get(d.callId) as Entry;
    const tool = entry.pending.tool;
    // A run-scope decision becomes a rule of the run: later calls it matches are decided by it, and so are waiting ones now.
    const rule = d.scope === 'run' ? runRuleOf(d, tool, entry.pending.args, this.runRules.length) : undefined;
    const decided: Decided = {
      decision: d.decision,
      by: d.by,
      ...(d.reason ? { reason: d.reason } : {}),
      ...(d.extendBy !== undefined ? { extendBy: d.extendBy } : {}),
      ...(d.path ? { path: d.path } : {}),
      ...(rule ? { rule: ruleRef(rule) } : d.rule ? { rule: d.rule } : {}),
      ...(d.updateId ? { updateId: d.updateId } : {}),
    };
    const applied = [d.callId];
    this.settle(entry, decided, via, false);
    if (d.decision === 'approve' && d.scope === 'tool') {
      this.approvedTools.add(tool);
      for (const other of this.entries.values()) {
        if (other.pending.tool !== tool || other.decided || other.closed) continue;
        // Approving all calls of a tool must respect who may approve each of them.
        if (other.pending.approvers?.length && !other.pending.approvers.includes(d.by)) continue;
        this.settle(other, decided, via, true);
        applied.push(other.pending.callId);
      }
    }
    if (rule) {
      this.runRules.push(rule);
      const byRule: Decided = {
        decision: d.decision,
        by: d.by,
        ...(d.reason ? { reason: d.reason } : {}),
        path: 'rule',
        rule: ruleRef(rule),
      };
      for (const other of this.entries.values()) {
        if (other.decided || other.closed || other.pending.tool === 'budget') continue;
        // The rule decides the waiting calls it surely matches, and only those whose approvers include its maker.
        const verdict = matchRules([rule], other.pending.tool, other.pending.args, other.pending.approvers, Date.now());
        if (verdict?.action !== rule.action) continue;
        this.settle(other, byRule, via, true);
        applied.push(other.pending.callId);
      }
    }
    // A standing rule a client wrote before deciding: the other waiting calls it covers are decided now, if the run knows it
    // already (else when its rule set arrives, by the rulesChanged signal).
    if ((d.scope === 'session' || d.scope === 'agent') && d.rule) applied.push(...this.regateWaiting(d.rule.id, via));
    this.changed();
    return { callId: d.callId, tool, decision: d.decision, by: d.by, applied };
  }

  private settle(entry: Entry, decided: Decided, via: 'signal' | 'update', sticky: boolean): void {
    entry.decided = decided;
    this.closeTrace(entry, decided.decision, decided.by, {
      path: decided.path ?? 'temporal',
      ...(decided.rule ? { rule: decided.rule } : {}),
      ...(decided.reason ? { reason: decided.reason } : {}),
    });
    const { callId, tool, step } = entry.pending;
    this.log.push({
      type: 'approval_decided',
      step,
      callId,
      tool,
      decision: decided.decision,
      by: decided.by,
      ...(decided.reason ? { reason: decided.reason } : {}),
      via,
      sticky,
      ...(decided.path ? { path: decided.path } : {}),
      ...(decided.rule ? { rule: decided.rule } : {}),
      ...(decided.updateId ? { updateId: decided.updateId } : {}),
    });
    this.emit({ kind: 'decided', pending: entry.pending, decided, via, sticky });
  }

  /** The approval's span and metrics (no-ops without tracing and metrics; never emitted on replay). */
  private closeTrace(entry: Entry, how: ApprovalClose, by?: string, detail?: { path: AuditPath; rule?: RuleRef; reason?: string }): void {
    approvalClosed(entry.trace, how, by, detail);
  }

  /** Register the `defer` and `delegate` signals and updates. */
  private installDeferrals(): void {
    const refuse = (why: string): never => {
      throw ApplicationFailure.nonRetryable(why, APPROVAL_REFUSED);
    };
    setHandler(deferSignal, (payload: unknown) => this.onMessage(payload, 'defer'));
    setHandler(delegateSignal, (payload: unknown) => this.onMessage(payload, 'delegate'));
    setHandler(
      deferUpdate,
      (payload: unknown) => this.act((parseDefer(payload) as { value: DeferRequest }).value, 'defer') as Promise<DeferReceipt>,
      {
        validator: (payload: unknown) => {
          const parsed = parseDefer(payload);
          if (!parsed.ok) refuse(parsed.error);
          else {
            const why = deferRefusal(parsed.value, this.stateForAction(parsed.value.callId), Date.now());
            if (why) refuse(why);
          }
        },
      },
    );
    setHandler(
      delegateUpdate,
      (payload: unknown) => this.act((parseDelegate(payload) as { value: DelegateRequest }).value, 'delegate') as Promise<DelegateReceipt>,
      {
        validator: (payload: unknown) => {
          const parsed = parseDelegate(payload);
          if (!parsed.ok) refuse(parsed.error);
          else {
            const id = parsed.value.callId;
            const why = delegateRefusal(parsed.value, this.stateForAction(id), Date.now(), this.entries.get(id)?.delegations ?? 0);
            if (why) refuse(why);
          }
        },
      },
    );
  }

  /** Where `callId` stands, a sub-agent's call as its last report shows it. */
  private stateForAction(callId: string): CallApprovalState {
    const child = this.inChild(callId);
    return child ? { kind: 'pending', pending: child.pending } : this.stateOf(callId);
  }

  /** A `defer` or `delegate` signal: applied, forwarded to the sub-agent that waits, or refused (an `approval_refused` event). */
  private onMessage(payload: unknown, kind: 'defer' | 'delegate'): void {
    // Runs recorded before defer and delegation buffered these signals unread: keep that on replay.
    if (!patched('approval-defer')) return;
    const parsed = kind === 'defer' ? parseDefer(payload) : parseDelegate(payload);
    if (!parsed.ok) return this.refused(payload, parsed.error);
    const r = parsed.value;
    const state = this.stateForAction(r.callId);
    const why =
      'until' in r
        ? deferRefusal(r, state, Date.now())
        : delegateRefusal(r, state, Date.now(), this.entries.get(r.callId)?.delegations ?? 0);
    if (why) return this.refused(payload, why);
    void this.act(r, kind).catch(() => undefined);
  }

  /** Apply a checked defer or delegation (or forward it to the sub-agent that waits). */
  private async act(r: DeferRequest | DelegateRequest, kind: 'defer' | 'delegate'): Promise<DeferReceipt | DelegateReceipt> {
    const child = this.inChild(r.callId);
    if (child && this.children) {
      this.forwarded(r.callId, child.via, kind, r);
      const forwarded = { ...r, callId: child.childCallId };
      await (kind === 'defer'
        ? this.children.forwardSignal(child.via, deferSignal, forwarded as DeferRequest)
        : this.children.forwardSignal(child.via, delegateSignal, forwarded as DelegateRequest));
      return 'until' in r
        ? { callId: r.callId, tool: child.pending.tool, until: r.until, by: r.by }
        : { callId: r.callId, tool: child.pending.tool, to: r.to, by: r.by };
    }
    patched('approval-defer');
    const entry = this.entries.get(r.callId) as Entry;
    const { callId, tool, step } = entry.pending;
    const extra = { ...(r.reason ? { reason: r.reason } : {}), ...(r.path ? { path: r.path } : {}) };
    if ('until' in r) {
      entry.pending.deferredUntil = r.until;
      this.log.push({ type: 'approval_deferred', step, callId, tool, until: r.until, by: r.by, ...extra });
      approvalEvent(entry.trace, 'approval.deferred', { by: r.by, path: r.path ?? 'temporal', until: r.until, ...reasonOf(r) });
      void this.returnAt(entry, r.until);
      this.changed();
      return { callId, tool, until: r.until, by: r.by };
    }
    entry.pending.assignee = r.to;
    entry.delegations = (entry.delegations ?? 0) + 1;
    this.log.push({ type: 'approval_delegated', step, callId, tool, to: r.to, by: r.by, ...extra });
    approvalEvent(entry.trace, 'approval.delegated', { by: r.by, path: r.path ?? 'temporal', to: [r.to], ...reasonOf(r) });
    this.changed();
    return { callId, tool, to: r.to, by: r.by };
  }

  /** Bring a deferred request back to the inbox at `until` (unless it was settled or deferred again meanwhile). */
  private async returnAt(entry: Entry, until: string): Promise<void> {
    const moved = () => entry.decided !== undefined || entry.closed !== undefined || entry.pending.deferredUntil !== until;
    try {
      await condition(moved, Math.max(1, Date.parse(until) - Date.now()));
      if (moved()) return;
      delete entry.pending.deferredUntil;
      const { callId, tool, step } = entry.pending;
      this.log.push({ type: 'approval_returned', step, callId, tool });
      approvalEvent(entry.trace, 'approval.returned');
      if (entry.escalateOnReturn) this.escalate(entry, entry.escalateOnReturn);
      this.changed();
    } catch (err) {
      if (!isCancellation(err)) throw err;
    }
  }

  /** Widen who may decide `entry` after its escalation wait (when it returns, if it is deferred then). */
  private async escalateAt(entry: Entry, escalation: ApprovalEscalation): Promise<void> {
    const settled = () => entry.decided !== undefined || entry.closed !== undefined;
    try {
      if ((await condition(settled, Math.max(1, escalation.afterMs))) || settled()) return;
      if (entry.pending.deferredUntil !== undefined) entry.escalateOnReturn = escalation;
      else {
        this.escalate(entry, escalation);
        this.changed();
      }
    } catch (err) {
      if (!isCancellation(err)) throw err;
    }
  }

  private escalate(entry: Entry, escalation: ApprovalEscalation): void {
    delete entry.escalateOnReturn;
    entry.pending.escalated = { at: new Date().toISOString(), to: [...escalation.to] };
    const { callId, tool, step } = entry.pending;
    this.log.push({ type: 'approval_escalated', step, callId, tool, to: [...escalation.to] });
    approvalEvent(entry.trace, 'approval.escalated', { path: 'timeout', to: escalation.to });
    this.emit({ kind: 'escalated', pending: entry.pending, to: [...escalation.to] });
  }

  /** Note in the run's own log that a decision, defer or delegation on a sub-agent's call went to that sub-agent. */
  private forwarded(
    callId: string,
    workflowId: string,
    kind: 'decision' | 'defer' | 'delegate',
    r: { by: string; path?: AuditPath; decision?: Decision },
  ): void {
    // Runs recorded before the audit events forwarded without a word: their events keep their `seq`.
    if (!patched('approval-audit-events')) return;
    this.log.push({
      type: 'approval_forwarded',
      callId,
      workflowId,
      kind,
      by: r.by,
      ...(r.decision ? { decision: r.decision } : {}),
      ...(r.path ? { path: r.path } : {}),
    });
  }

  private refused(payload: unknown, reason: string): void {
    const p = payload && typeof payload === 'object' ? (payload as Record<string, unknown>) : {};
    this.log.push({
      type: 'approval_refused',
      ...(typeof p.callId === 'string' ? { callId: p.callId } : {}),
      ...(typeof p.by === 'string' ? { by: p.by } : {}),
      reason,
    });
  }
}

/**
 * `d` as the `decide` update that carries it: the update's own id recorded (what a client may have put in
 * `updateId` does not count), so the audit finds the update in the run's history. Only event data changes:
 * no command, so no `patched()` (events are workflow state; recorded runs keep their `seq`).
 */
function withUpdateId(d: ApprovalDecision): ApprovalDecision {
  const id = currentUpdateInfo()?.id;
  const { updateId: _claimed, ...rest } = d;
  return id ? { ...rest, updateId: id } : rest;
}

/** A decision forwarded to a sub-agent (by signal): the parent's update id means nothing in the child's history. */
function withoutUpdateId(d: ApprovalDecision): ApprovalDecision {
  const { updateId: _id, ...rest } = d;
  return rest;
}

/** The reason of a defer or delegation, for its span event. */
function reasonOf(r: { reason?: string }): { reason?: string } {
  return r.reason ? { reason: r.reason } : {};
}
