/**
 * A parent run's events with its sub-agents' events woven in: when the parent logs `sub_agent_started`,
 * the child's events are followed too and yielded tagged `child: <its workflow id>` (a grandchild's keep
 * their own tag), each child's in order, until the child's `done`. The parent's own events come as they
 * are; the whole ends when the parent's events end and every child followed has ended.
 */
import type { AgentEvent } from '../core/events';

/** An event of a sub-agent's run, seen from its parent: tagged with the child run's workflow id. */
export type ChildAgentEvent = AgentEvent & { child: string };

/**
 * Merge `parent` with the events of every child it starts, read with `open(workflowId)` (which should
 * itself follow that child's children). Exact: every event of each source once, in its source's order.
 */
export async function* withChildEvents<E extends AgentEvent>(parent: AsyncIterable<E>, open: (workflowId: string) => AsyncIterable<AgentEvent>): AsyncGenerator<E | ChildAgentEvent> {
  type Item = { i: number; r: IteratorResult<E | ChildAgentEvent> };
  const iterators: Array<AsyncIterator<E | ChildAgentEvent>> = [parent[Symbol.asyncIterator]()];
  const pending = new Map<number, Promise<Item>>();
  const pull = (i: number) => pending.set(i, iterators[i]!.next().then((r) => ({ i, r })));
  const follow = (workflowId: string) => {
    const source = open(workflowId);
    iterators.push(
      (async function* tag() {
        for await (const e of source) yield { ...e, child: (e as Partial<ChildAgentEvent>).child ?? workflowId } as ChildAgentEvent;
      })(),
    );
    pull(iterators.length - 1);
  };
  pull(0);
  try {
    while (pending.size > 0) {
      const { i, r } = await Promise.race(pending.values());
      if (r.done) {
        pending.delete(i);
        continue;
      }
      pull(i);
      const e = r.value;
      if (i === 0 && e.type === 'sub_agent_started') follow(e.workflowId);
      yield e;
    }
  } finally {
    for (const it of iterators) void it.return?.(undefined)?.catch(() => undefined);
  }
}
