/**
 * What a run's recorded history says about its tool calls, read through the client alone (no worker
 * needed): the agent spec the `describeAgent` activity recorded (each tool's approval settings), the
 * calls the model made (`callModel` results), the answers of approval checks, the calls that ran. Used
 * to validate a decision when no worker is there to validate it.
 */
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
// Deep import: @temporalio/common exports no public way to decode one payload through a data converter's codecs.
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { policyRule } from '../../src/entry/client';
import type { ApprovalDecision } from '../../src/entry/client';
import type { AgentWorkflowInput, CallModelOutput, CheckApprovalsOutput, RunToolInput } from '../../src/entry/client';
import type { AgentSpec } from '../../src/entry/client';

/** The recorded facts about a run's tool calls. */
export interface RecordedRun {
  input?: AgentWorkflowInput;
  spec?: AgentSpec;
  /** Tool name by call id, for every call a recorded model response holds. */
  calls: Map<string, string>;
  /** Recorded answers of conditional approval checks, by call id. */
  checks: Map<string, boolean>;
  /** Calls whose tool activity completed. */
  ran: Set<string>;
}

type Payload = temporal.api.common.v1.IPayload;

/** Read the recorded facts from the run's whole history, decoding payloads with the client's converter and codecs. */
export async function readRecordedRun(client: Client, handle: WorkflowHandle): Promise<RecordedRun> {
  const history = await handle.fetchHistory();
  const converter = client.options.loadedDataConverter;
  const decode = async <T>(payload: Payload | null | undefined): Promise<T | undefined> => {
    if (!payload) return undefined;
    try {
      return await decodeFromPayloadsAtIndex<T>(converter, 0, [payload]);
    } catch {
      return undefined;
    }
  };
  const run: RecordedRun = { calls: new Map(), checks: new Map(), ran: new Set() };
  const scheduled = new Map<string, { type: string; input: Payload | undefined }>();
  for (const event of history.events ?? []) {
    const started = event.workflowExecutionStartedEventAttributes;
    if (started) run.input = await decode<AgentWorkflowInput>(started.input?.payloads?.[0]);
    const sched = event.activityTaskScheduledEventAttributes;
    if (sched)
      scheduled.set(String(event.eventId), { type: sched.activityType?.name ?? '', input: sched.input?.payloads?.[0] ?? undefined });
    const done = event.activityTaskCompletedEventAttributes;
    if (!done) continue;
    const activity = scheduled.get(String(done.scheduledEventId));
    const result = done.result?.payloads?.[0];
    switch (activity?.type) {
      case 'describeAgent':
        run.spec = (await decode<AgentSpec>(result)) ?? run.spec;
        break;
      case 'callModel':
        for (const block of (await decode<CallModelOutput>(result))?.message?.content ?? []) {
          if (block.type === 'tool_use') run.calls.set(block.id, block.name);
        }
        break;
      case 'checkApprovals':
        for (const c of (await decode<CheckApprovalsOutput>(result)) ?? []) run.checks.set(c.callId, c.needsApproval);
        break;
      case 'runTool': {
        const callId = (await decode<RunToolInput>(activity.input))?.callId;
        if (callId) run.ran.add(callId);
        break;
      }
    }
  }
  return run;
}

/** What the recorded history says about a decision. */
export type RecordedCheck =
  /** The call is recorded and the decision is acceptable as far as history tells. */
  | { kind: 'ok'; tool: string }
  /** The decision cannot apply, for certain. */
  | { kind: 'refused'; tool: string; reason: string }
  /** The call is not in the recorded history (yet). */
  | { kind: 'unrecorded' };

/**
 * Check `decision` against what is certain from history: the call exists, has not run, its tool asks
 * for approval (the tool's mode, the run's policy, a recorded check), and the decider is among the
 * tool's approvers. What history cannot tell (say, an earlier "approve all calls") is left to the run.
 */
export function checkDecision(run: RecordedRun, decision: Pick<ApprovalDecision, 'callId' | 'by'>): RecordedCheck {
  const { callId, by } = decision;
  const tool = run.calls.get(callId);
  if (tool === undefined) return { kind: 'unrecorded' };
  const refused = (reason: string): RecordedCheck => ({ kind: 'refused', tool, reason });
  if (run.ran.has(callId)) return refused(`call "${callId}" (${tool}) has already run`);
  if (!run.spec) return { kind: 'ok', tool };
  const spec = run.spec.tools.find((t) => t.name === tool);
  if (!spec) return refused(`the agent has no tool "${tool}", so call "${callId}" never asks for approval`);
  const approvers = spec.approval?.approvers ?? [];
  const rule = policyRule(run.input?.policy, tool);
  const noApproval = refused(`call "${callId}" (${tool}) needs no approval`);
  if (rule === 'deny') return refused(`the run's policy denies "${tool}": call "${callId}" is not run and needs no decision`);
  if (rule === 'allow' && approvers.length === 0) return noApproval;
  if (rule !== 'ask') {
    const mode = spec.approval?.mode ?? 'never';
    if (mode === 'never') return noApproval;
    if (mode === 'conditional' && run.checks.get(callId) === false)
      return refused(`call "${callId}" (${tool}) needs no approval (the tool's check said so)`);
  }
  if (approvers.length && !approvers.includes(by))
    return refused(`${by} may not decide calls of "${tool}" (allowed: ${approvers.join(', ')})`);
  return { kind: 'ok', tool };
}
