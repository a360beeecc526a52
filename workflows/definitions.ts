/** Queries of the agent workflow, shared by the workflow and clients. */
import { defineQuery } from '@temporalio/workflow';
import type { EventPage } from '../core/events';
import type { RunSnapshot } from '../core/contract';

/** Events from a cursor: `events(cursor, limit?)`. */
export const eventsQuery = defineQuery<EventPage, [number, number?]>('events');

/** The run's current state. */
export const snapshotQuery = defineQuery<RunSnapshot>('snapshot');
