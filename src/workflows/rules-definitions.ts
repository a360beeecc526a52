/** Updates, signals and queries of the namespace's rules entity (`approvalRulesWorkflow`), shared by the workflow and clients. */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type {
  PutRuleRequest,
  RemoveRuleRequest,
  RuleChangedEvent,
  RuleChangeReceipt,
  RulesView,
  SetEditorsRequest,
} from '../core/approvals/rule-entity';

/** Name of the rules entity's workflow type. */
export const RULES_WORKFLOW = 'approvalRulesWorkflow';

/** Add or replace a rule; refused (nothing written) for a non-editor, bad input, or a version other than `expectedVersion`. */
export const putRuleUpdate = defineUpdate<RuleChangeReceipt, [PutRuleRequest]>('putRule');

/** Remove a rule; refused as {@link putRuleUpdate}. */
export const removeRuleUpdate = defineUpdate<RuleChangeReceipt, [RemoveRuleRequest]>('removeRule');

/** Replace the editors; refused as {@link putRuleUpdate}. */
export const setEditorsUpdate = defineUpdate<RuleChangeReceipt, [SetEditorsRequest]>('setEditors');

/** Editors from a worker's trusted configuration: taken only while the entity has none (sent by every worker that has some). */
export const seedEditorsSignal = defineSignal<[{ editors: string[] }]>('seedEditors');

/** The current rules and editors. */
export const rulesQuery = defineQuery<RulesView>('rules');

/** The log of rule changes, those with `seq` greater than the argument (default all kept). */
export const ruleChangesQuery = defineQuery<RuleChangedEvent[], [number?]>('ruleChanges');
