/**
 * The loop state of one agent run, with one owner: the agent workflow holds a `RunState` and changes
 * the state only through it. A transition's state and events always go together ({@link RunState.apply});
 * the few changes that are no transition (the transcript stored, compaction, trimming) have their own
 * method. Pure: no Temporal import, rebuilt by replay like everything else in the workflow.
 */
import type { Budget, BudgetExhausted } from '../budget/budget';
import { budgetSpent, exhaustedBudget } from '../budget/budget';
import type { EventLog } from '../events/event-log';
import type { AgentEventBody } from '../events/events';
import type { LoopState } from './state';

/** What changes the run: a new loop state and the events that say so (a `Transition`, or the part of one that is logged). */
export interface StateChange {
  state: LoopState;
  events: readonly AgentEventBody[];
}

/** The run's loop state and the event log its transitions append to. */
export class RunState {
  private current: LoopState;

  /**
   * @param log the run's event log: {@link apply} appends each transition's events to it
   * @param initial the state before the run is described (replaced once it is)
   */
  constructor(
    readonly log: EventLog,
    initial: LoopState,
  ) {
    this.current = initial;
  }

  /** The loop state now. */
  get loop(): LoopState {
    return this.current;
  }

  /**
   * Apply a transition: its state becomes the run's and its events are logged, in order. `events`
   * replaces the transition's own when some of them are held back (logged later, or never).
   */
  apply(change: StateChange, events: readonly AgentEventBody[] = change.events): void {
    this.current = change.state;
    this.log.push(...events);
  }

  /** A new state that logs nothing here (the run's start, compaction, trimming: their events are their own). */
  replace(loop: LoopState): void {
    this.current = loop;
  }

  /** Every message so far is in the transcript store, under `head`. */
  stored(head: string | null): void {
    this.current = { ...this.current, head, stored: this.current.messages.length };
  }

  /**
   * The budget the run has spent by `turns` user turns (undefined while within every budget): tokens
   * from its usage, cost from every step it still holds plus what earlier executions, compaction and
   * sub-agents spent.
   */
  spentBudget(budget: Budget, turns: number): BudgetExhausted | undefined {
    const loop = this.current;
    const steps = [
      ...loop.steps,
      { costUsd: (loop.earlier?.costUsd ?? 0) + (loop.context?.costUsd ?? 0) + (loop.subAgents?.costUsd ?? 0) },
    ];
    return exhaustedBudget(budget, budgetSpent(loop.usage, steps, turns));
  }
}
