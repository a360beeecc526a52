/**
 * The namespace's rules entity: one long-lived workflow (id `RULES_WORKFLOW_ID`, queue `RULES_TASK_QUEUE`)
 * holding the standing approval rules (session, agent and namespace scopes) and who may change them.
 * Changes are validated updates (a refused change writes nothing to history); after each change the set
 * is published in the memo (`RULES_MEMO_KEY`), logged (`rule_changed`, read with the `ruleChanges`
 * query) and pushed to running agent runs (`announceRules`, then once more a few seconds later for
 * visibility's lag). Expired rules (`until`) are removed by a timer. Continues as new with its state.
 */
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  log,
  proxyActivities,
  setHandler,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import { ApplicationFailure } from '@temporalio/common';
import type { RuleRefusal, RulesEntityState } from '../core/approvals/rule-entity';
import {
  applyEditors,
  applyPut,
  applyRemove,
  editorsProblem,
  initialRulesState,
  nextExpiry,
  pruneExpired,
  putProblem,
  refusalType,
  removeProblem,
  ruleSetOf,
  seedEditors,
} from '../core/approvals/rule-entity';
import { RULES_MEMO_KEY } from '../core/approvals/rules';
import type { ApprovalRule } from '../core/approvals/rules';
import type { RulesActivities, RulePushTargets } from '../core/approvals/rule-push';
import { putRuleUpdate, removeRuleUpdate, ruleChangesQuery, rulesQuery, seedEditorsSignal, setEditorsUpdate } from './rules-definitions';

/** Input of {@link approvalRulesWorkflow}: editors from trusted configuration (a fresh entity), or the state carried at continue-as-new. */
export interface RulesEntityInput {
  editors?: string[];
  state?: RulesEntityState;
  /** Runs still to be told of the current set (a push that was due at continue-as-new). */
  push?: RulePushTargets;
  /** Continue as new after this many changes (default 1,000; carried). */
  changesPerExecution?: number;
}

/** Pause between the two pushes of one version (visibility lists a run started just before a change a moment late). */
export const PUSH_AGAIN_MS = 5_000;

/** Continue as new after this many changes (Temporal allows 2,000 updates per execution). */
export const CHANGES_PER_EXECUTION = 1_000;

const { announceRules } = proxyActivities<RulesActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 5, initialInterval: '1s', maximumInterval: '10s' },
});

/** Merge who must hear of a change: the agents named, or every run (`all`). */
function merge(a: RulePushTargets | undefined, b: RulePushTargets): RulePushTargets {
  if (!a) return b;
  if (a === 'all' || b === 'all') return 'all';
  return [...new Set([...a, ...b])];
}

/** Which runs a rule concerns: an agent rule only its agent's runs, other rules every run. */
function targetsOf(...rules: Array<ApprovalRule | undefined>): RulePushTargets {
  const agents: string[] = [];
  for (const r of rules) {
    if (!r) continue;
    if (r.scope !== 'agent' || r.agent === undefined) return 'all';
    agents.push(r.agent);
  }
  return agents;
}

/** The namespace's standing approval rules. */
export async function approvalRulesWorkflow(input: RulesEntityInput = {}): Promise<void> {
  let state = input.state ?? initialRulesState(input.editors ?? []);
  let push: RulePushTargets | undefined = input.push;
  let changes = 0;
  const limit = input.changesPerExecution ?? CHANGES_PER_EXECUTION;
  const now = (): string => new Date(Date.now()).toISOString();
  const publish = (targets: RulePushTargets): void => {
    upsertMemo({ [RULES_MEMO_KEY]: ruleSetOf(state) });
    push = merge(push, targets);
    changes++;
  };

  upsertMemo({ [RULES_MEMO_KEY]: ruleSetOf(state) });

  setHandler(
    putRuleUpdate,
    (req) => {
      const problem = putProblem(state, req, Date.now());
      refuseIf(problem); // the validator ran just before in the same activation: a sync handler cannot race
      const before = state.rules.find((r) => r.id === req.rule.id);
      const done = applyPut(state, req, now());
      state = done.state;
      publish(targetsOf(before, done.rule));
      return { version: state.version, rule: done.rule };
    },
    { validator: (req) => refuseIf(putProblem(state, req, Date.now())) },
  );
  setHandler(
    removeRuleUpdate,
    (req) => {
      const problem = removeProblem(state, req);
      refuseIf(problem);
      const before = state.rules.find((r) => r.id === req.id);
      state = applyRemove(state, req, now());
      publish(targetsOf(before));
      return { version: state.version };
    },
    { validator: (req) => refuseIf(removeProblem(state, req)) },
  );
  setHandler(
    setEditorsUpdate,
    (req) => {
      const problem = editorsProblem(state, req);
      refuseIf(problem);
      state = applyEditors(state, req, now());
      changes++;
      return { version: state.version };
    },
    { validator: (req) => refuseIf(editorsProblem(state, req)) },
  );
  setHandler(seedEditorsSignal, ({ editors }) => {
    state = seedEditors(state, Array.isArray(editors) ? editors : [], now());
  });
  setHandler(rulesQuery, () => ({ ...ruleSetOf(state), editors: state.editors }));
  setHandler(ruleChangesQuery, (after = 0) => state.changes.filter((c) => c.seq > after));

  // The second push of each change (visibility lists a run started just before it a moment late): does
  // not hold back the first push of a newer change.
  let again: { at: number; targets: RulePushTargets } | undefined;
  for (;;) {
    const due = (): boolean => push !== undefined || changes >= limit || workflowInfo().continueAsNewSuggested;
    const wake = [nextExpiry(state), again?.at].filter((t): t is number => t !== undefined);
    if (!wake.length) await condition(due);
    else await condition(due, Math.max(1, Math.min(...wake) - Date.now()));
    const pruned = pruneExpired(state, Date.now());
    if (pruned !== state) {
      const expired = state.rules.filter((r) => !pruned.rules.includes(r));
      state = pruned;
      publish(targetsOf(...expired));
    }
    if (push !== undefined) {
      const targets = push;
      push = undefined;
      await tell(ruleSetOf(state), targets);
      again = { at: Date.now() + PUSH_AGAIN_MS, targets: merge(again?.targets, targets) };
    } else if (again && Date.now() >= again.at) {
      const { targets } = again;
      again = undefined;
      await tell(ruleSetOf(state), targets);
    }
    if (changes >= limit || workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      const carried = again ? merge(push, again.targets) : push;
      return continueAsNew<typeof approvalRulesWorkflow>({
        state,
        ...(carried !== undefined ? { push: carried } : {}),
        ...(input.changesPerExecution !== undefined ? { changesPerExecution: input.changesPerExecution } : {}),
      });
    }
  }
}

/** Push a set; a push that keeps failing is logged, not fatal (runs learn the next one, or read the memo at start). */
async function tell(set: ReturnType<typeof ruleSetOf>, agents: RulePushTargets): Promise<void> {
  try {
    await announceRules({ set, agents });
  } catch (err) {
    log.warn('approval rules: could not tell the running agent runs of the new rules', { version: set.version, error: String(err) });
  }
}

/** Refuse a change (an update validator's or handler's failure): its type says the kind (`RuleChangeForbidden`, `RuleChangeConflict`, `RuleChangeInvalid`). */
function refuseIf(problem: RuleRefusal | undefined): void {
  if (problem) throw ApplicationFailure.create({ message: problem.message, type: refusalType(problem.kind), nonRetryable: true });
}
