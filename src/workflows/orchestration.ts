/**
 * What a workflow that runs agents as its children (a chain, a consolidation) sets up first: its event
 * log behind the `events` query, and an approval desk that lists its children's pending approvals and
 * forwards the decisions made through it. It asks nothing of its own.
 */
import { setHandler } from '@temporalio/workflow';
import { EventLog } from '../core/events/event-log';
import { eventsQuery } from './definitions';
import { ApprovalDesk, ChildApprovals } from './tool-call';

/** The event log and the children's approvals of an orchestrating workflow. */
export interface Orchestration {
  log: EventLog;
  children: ChildApprovals;
}

/** Install the `events` query and the approval handlers that forward decisions to the children. */
export function startOrchestration(): Orchestration {
  const log = new EventLog(() => new Date());
  setHandler(eventsQuery, (cursor, limit) => log.page(cursor, limit));
  const desk = new ApprovalDesk(
    log,
    () => undefined,
    () => false,
  );
  desk.install();
  const children = new ChildApprovals(() => undefined);
  children.install();
  desk.forwardTo(children);
  return { log, children };
}
