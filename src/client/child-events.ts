/**
 * A parent run's events with its sub-agents' events woven in: when the parent logs `sub_agent_started`,
 * the child's events are followed too and yielded tagged `child: <its workflow id>` (a grandchild's keep
 * their own tag), each child's in order, until the child's `done`. The parent's own events come as they
 * are; the whole ends when the parent's events end and every child followed has ended.
 */
import type { AgentEvent } from '../core/events/events';
import { mergeGrowing } from './live';

/** An event of a sub-agent's run, seen from its parent: tagged with the child run's workflow id. */
export type ChildAgentEvent = AgentEvent & { child: string };

/**
 * Merge `parent` with the events of every child it starts, read with `open(workflowId)` (which should
 * itself follow that child's children). Exact: every event of each source once, in its source's order.
 */
export function withChildEvents<E extends AgentEvent>(
  parent: AsyncIterable<E>,
  open: (workflowId: string) => AsyncIterable<AgentEvent>,
): AsyncGenerator<E | ChildAgentEvent> {
  const tagged = async function* (workflowId: string): AsyncGenerator<ChildAgentEvent> {
    for await (const e of open(workflowId)) yield { ...e, child: (e as Partial<ChildAgentEvent>).child ?? workflowId } as ChildAgentEvent;
  };
  return mergeGrowing<E | ChildAgentEvent>([parent], (e, from, add) => {
    if (from === 0 && e.type === 'sub_agent_started') add(tagged(e.workflowId));
  });
}
