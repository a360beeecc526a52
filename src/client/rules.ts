/**
 * `client.rules`: the namespace's standing approval rules (session, agent and namespace scopes), kept by
 * the rules entity (`durable-agent.rules`). Reading needs a worker polling the entity's queue (every
 * `createWorker` does unless `approvalRules: false`); changes are validated by the entity: only its
 * editors may make them, and a refused change writes nothing.
 */
import type { WorkflowClient, WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, WithStartWorkflowOperation, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { RuleChangedEvent, RuleChangeReceipt, RuleInput, RuleRefusalKind, RulesView } from '../core/approvals/rule-entity';
import { refusalKindOf } from '../core/approvals/rule-entity';
import type { AuditPath, RuleSet } from '../core/approvals/rules';
import { RULES_MEMO_KEY, RULES_TASK_QUEUE, RULES_WORKFLOW_ID } from '../core/approvals/rules';
import { DurableAgentError } from '../core/run/errors';
import { NoWorkerError } from './errors';
import { anyWorkflowPoller } from './pollers';
import type { UpdateDefinition } from '@temporalio/common';
import {
  putRuleUpdate,
  removeRuleUpdate,
  ruleChangesQuery,
  RULES_WORKFLOW,
  rulesQuery,
  setEditorsUpdate,
} from '../workflows/rules-definitions';

/** Who changes the rules, how and why; `expectedVersion` makes the change compare-and-set. */
export interface RuleChangeOptions {
  /** An editor's identity (e.g. `ops:alice`). */
  by: string;
  /** How the change was made (default `sdk`). */
  path?: AuditPath;
  reason?: string;
  /** Refuse the change unless the rule set is at this version (see {@link RulesView.version}). */
  expectedVersion?: number;
}

/** The rules entity refused a change: not an editor, malformed rule, a version other than `expectedVersion`, too many rules. */
export class RuleChangeRefusedError extends DurableAgentError {
  /** `forbidden`: the sender is not an editor; `conflict`: the set is not at `expectedVersion`; `invalid`: the change is malformed or too big. */
  readonly reason: RuleRefusalKind;

  constructor(message: string, reason: RuleRefusalKind = 'invalid', options?: { cause?: unknown }) {
    super('invalid_input', message, options);
    this.reason = reason;
  }
}

/** The namespace's standing approval rules, through the rules entity. Get it as `client.rules`. */
export class ApprovalRules {
  /** @param workflows the Temporal workflow client (`client.temporal.workflow`). */
  constructor(private readonly workflows: WorkflowClient) {}

  private handle(): WorkflowHandle {
    return this.workflows.getHandle(RULES_WORKFLOW_ID);
  }

  /** Throws {@link NoWorkerError} when no worker polls the rules queue (a query or update would wait for one). */
  private async needWorker(): Promise<void> {
    if (!(await anyWorkflowPoller(this.workflows, RULES_TASK_QUEUE))) throw new NoWorkerError(RULES_WORKFLOW_ID, RULES_TASK_QUEUE);
  }

  /**
   * The rules and their editors (version 0, none, when the entity was never started).
   *
   * @throws {NoWorkerError} no worker polls the rules queue (see {@link published} for the set without one).
   */
  async list(): Promise<RulesView> {
    try {
      await this.needWorker();
      return await this.handle().query(rulesQuery);
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return { version: 0, rules: [], editors: [] };
      throw err;
    }
  }

  /** The rule set as the entity last published it in its memo (no worker needed; undefined when never started). */
  async published(): Promise<RuleSet | undefined> {
    try {
      const description = await this.handle().describe();
      return description.memo?.[RULES_MEMO_KEY] as RuleSet | undefined;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return undefined;
      throw err;
    }
  }

  /** Who may change the rules. */
  async editors(): Promise<string[]> {
    return (await this.list()).editors;
  }

  /**
   * Add a rule, or replace the one with the same `id` (a new id `r-<n>` when absent). Returns the new
   * version and the rule as written. Running agent runs are told at once (and again ~5 s later).
   *
   * @throws {RuleChangeRefusedError} the entity refused it (the message says why).
   * @throws {NoWorkerError} no worker polls the rules queue.
   */
  put(rule: RuleInput, options: RuleChangeOptions): Promise<RuleChangeReceipt> {
    return this.change(putRuleUpdate, { rule, ...meta(options) });
  }

  /**
   * Remove a rule.
   *
   * @throws {RuleChangeRefusedError} the entity refused it (unknown id, not an editor, version).
   */
  remove(id: string, options: RuleChangeOptions): Promise<RuleChangeReceipt> {
    return this.change(removeRuleUpdate, { id, ...meta(options) });
  }

  /**
   * Replace who may change the rules (`by` must be an editor now).
   *
   * @throws {RuleChangeRefusedError} the entity refused it.
   */
  setEditors(editors: readonly string[], options: RuleChangeOptions): Promise<RuleChangeReceipt> {
    return this.change(setEditorsUpdate, { editors: [...editors], ...meta(options) });
  }

  /** The log of changes the entity keeps (its last 500), oldest first; `after` a `seq` for the newer ones only. */
  async history(after?: number): Promise<RuleChangedEvent[]> {
    try {
      await this.needWorker();
      return await this.handle().query(ruleChangesQuery, ...(after !== undefined ? [after] : []));
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return [];
      throw err;
    }
  }

  /** An update to the entity, starting it when absent. */
  private async change<A>(update: UpdateDefinition<RuleChangeReceipt, [A]>, arg: A): Promise<RuleChangeReceipt> {
    await this.needWorker();
    try {
      return await this.workflows.executeUpdateWithStart(update, {
        args: [arg],
        startWorkflowOperation: new WithStartWorkflowOperation(RULES_WORKFLOW, {
          workflowId: RULES_WORKFLOW_ID,
          taskQueue: RULES_TASK_QUEUE,
          args: [{}],
          workflowIdConflictPolicy: 'USE_EXISTING',
        }),
      });
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError && err.cause) {
        const kind = err.cause instanceof ApplicationFailure ? refusalKindOf(err.cause.type) : undefined;
        throw new RuleChangeRefusedError(err.cause.message, kind ?? 'invalid', { cause: err });
      }
      throw err;
    }
  }
}

function meta(o: RuleChangeOptions): RuleChangeOptions {
  return {
    by: o.by,
    path: o.path ?? 'sdk',
    ...(o.reason !== undefined ? { reason: o.reason } : {}),
    ...(o.expectedVersion !== undefined ? { expectedVersion: o.expectedVersion } : {}),
  };
}
