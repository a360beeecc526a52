/** Waiting, from the recorder, for a run to reach a state a scenario acts on. */
import type { AgentRun } from '../../src/client';
import type { PendingApproval } from '../../src/core/approvals/approvals';
import type { AgentEvent } from '../../src/core/events/events';

const POLL_MS = 50;
const LIMIT_MS = 30_000;

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + LIMIT_MS;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** Wait until exactly the calls `callIds` (in this order) wait for a person. */
export function waitForPending(run: AgentRun, callIds: readonly string[]): Promise<PendingApproval[]> {
  return until(`pending approvals ${callIds.join(', ')} of ${run.workflowId}`, async () => {
    const pending = await run.pendingApprovals();
    const ids = pending.map((p) => p.callId);
    return ids.length === callIds.length && ids.every((id, i) => id === callIds[i]) ? pending : undefined;
  });
}

/** Wait until the run has logged at least `count` events of `type`; returns them. */
export function waitForEvents(run: AgentRun, type: AgentEvent['type'], count = 1): Promise<AgentEvent[]> {
  return until(`${count} ${type} event(s) of ${run.workflowId}`, async () => {
    const found = (await run.readEvents(0)).events.filter((e) => e.type === type);
    return found.length >= count ? found : undefined;
  });
}
