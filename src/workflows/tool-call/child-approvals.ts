/**
 * Spoke of the tool call: the approvals sub-agents wait for. `ChildApprovals` keeps, on the parent, the
 * approvals its children wait for (reported by their `childApprovals` signals) and forwards decisions
 * made on the parent to the child that waits; `parentNotifier` is the child's side.
 */
import type { SignalDefinition } from '@temporalio/workflow';
import { CancellationScope, defineSignal, getExternalWorkflowHandle, setHandler, workflowInfo } from '@temporalio/workflow';
import type { ApprovalDecision, PendingApproval } from '../../core/approvals/approvals';
import type { ChildApprovalsReport, ChildPendingApproval, ChildTag, ParentLink } from '../../core/sub-agents/sub-agent';
import { tagChildApprovals } from '../../core/sub-agents/sub-agent';
import { approvalSignal } from '../definitions';

/** A child's report of the approvals it (and its own children) wait for, sent to its parent on every change. */
export const childApprovalsSignal = defineSignal<[ChildApprovalsReport]>('childApprovals');

/**
 * The approvals a run's children wait for, from their `childApprovals` reports: listed with the run's own
 * (tagged with the child), and decided through the run (the decision is forwarded to the child).
 */
export class ChildApprovals {
  private readonly reports = new Map<string, ChildApprovalsReport>();

  /** @param changed called when the children's pending approvals change (a child run reports them to its own parent). */
  constructor(private readonly changed: () => void) {}

  /** Register the `childApprovals` signal handler. */
  install(): void {
    setHandler(childApprovalsSignal, (report: ChildApprovalsReport) => {
      if (!report || typeof report.workflowId !== 'string' || !Array.isArray(report.pending)) return;
      const known = this.reports.get(report.workflowId);
      if (known && known.seq >= report.seq) return;
      this.reports.set(report.workflowId, report);
      this.changed();
    });
  }

  /** The child ended: nothing waits in it any more. */
  drop(workflowId: string): void {
    if (this.reports.delete(workflowId)) this.changed();
  }

  /** Every approval the children wait for, tagged with the child it waits in, by its qualified id (`<call>/<child's call id>`). */
  pending(): ChildPendingApproval[] {
    const me = workflowInfo().workflowId;
    return [...this.reports.values()].flatMap((r) => tagChildApprovals(r, me));
  }

  /**
   * The pending approval `callId` of a child (a qualified id, as {@link pending} lists it), the direct child
   * that reported it and the id that child knows it by; undefined when none waits. An id as the child
   * reported it (unqualified) is found too, as runs recorded before qualified ids forwarded it.
   */
  find(callId: string): { via: string; pending: ChildPendingApproval; childCallId: string } | undefined {
    const me = workflowInfo().workflowId;
    for (const report of this.reports.values()) {
      const tagged = tagChildApprovals(report, me);
      const i = tagged.findIndex((p) => p.callId === callId);
      if (i >= 0) return { via: report.workflowId, pending: tagged[i]!, childCallId: report.pending[i]!.callId };
    }
    for (const report of this.reports.values()) {
      const pending = tagChildApprovals(report).find((p) => p.callId === callId);
      if (pending) return { via: report.workflowId, pending, childCallId: callId };
    }
    return undefined;
  }

  /** Send a defer or delegation to the child `via` (which applies it, or forwards it to its own child). */
  async forwardSignal<T>(via: string, signal: SignalDefinition<[T]>, payload: T): Promise<void> {
    await CancellationScope.nonCancellable(() => getExternalWorkflowHandle(via).signal(signal, payload));
  }

  /** Send `decision` to the child `via` (which decides it, or forwards it to its own child). */
  async forward(via: string, decision: ApprovalDecision): Promise<void> {
    await CancellationScope.nonCancellable(() => getExternalWorkflowHandle(via).signal(approvalSignal, decision));
  }
}

/**
 * The child side: a function that reports the approvals this run waits for to its parent, or undefined
 * for a run without a parent agent (which then issues no command for it).
 */
export function parentNotifier(
  parent: ParentLink | undefined,
  agent: () => string,
): ((pending: Array<PendingApproval & { child?: ChildTag }>) => void) | undefined {
  if (!parent) return undefined;
  let n = 0;
  let last = '[]';
  return (pending) => {
    const text = JSON.stringify(pending);
    if (text === last) return;
    last = text;
    // Workflow time orders the reports across continue-as-new too (a new execution counts from 0 again).
    const report: ChildApprovalsReport = {
      workflowId: workflowInfo().workflowId,
      agent: agent(),
      seq: Date.now() * 1000 + (++n % 1000),
      pending,
    };
    // Fire and forget; a parent that has closed meanwhile has no use for it.
    void CancellationScope.nonCancellable(() => getExternalWorkflowHandle(parent.workflowId).signal(childApprovalsSignal, report)).catch(
      () => undefined,
    );
  };
}
