/**
 * Where the bytes of an agent run's Temporal history go, step by step. A step's events are those from
 * the scheduling of its `callModel` activity up to the scheduling of the next step's; sizes are the
 * protobuf-encoded sizes of the events, as the server stores them.
 */
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { CallModelInput } from '../src/core/run/contract';

const { EventType } = temporal.api.enums.v1;
const { HistoryEvent } = temporal.api.history.v1;
type Event = temporal.api.history.v1.IHistoryEvent;
type History = temporal.api.history.v1.IHistory;
type Payloads = temporal.api.common.v1.IPayloads | null | undefined;

/** The history of one step. */
export interface StepHistory {
  step: number;
  /** Events attributed to the step. */
  events: number;
  /** Their encoded size. */
  bytes: number;
  /** Payload bytes of the step's `callModel` input (what history records of the conversation). */
  callModelInputBytes: number;
  /** Payload bytes of the step's `callModel` result. */
  callModelResultBytes: number;
  /** Payload bytes of the step's `runTool` results. */
  runToolResultBytes: number;
}

/** A run's history, summed up. */
export interface HistorySummary {
  events: number;
  bytes: number;
  /** Events before the first model call (start, describeAgent). */
  setup: { events: number; bytes: number };
  steps: Map<number, StepHistory>;
  /** Payload bytes of the workflow result, in the closing event. */
  resultBytes: number;
}

/** Encoded size of one history event. */
export function eventBytes(event: Event): number {
  return HistoryEvent.encode(event).finish().length;
}

function payloadBytes(payloads: Payloads): number {
  return (payloads?.payloads ?? []).reduce((sum, p) => sum + (p.data?.length ?? 0), 0);
}

function emptyStep(step: number): StepHistory {
  return { step, events: 0, bytes: 0, callModelInputBytes: 0, callModelResultBytes: 0, runToolResultBytes: 0 };
}

/** Attribute every event of an agent run's history to a step. */
export function summarizeHistory(history: History): HistorySummary {
  const summary: HistorySummary = { events: 0, bytes: 0, setup: { events: 0, bytes: 0 }, steps: new Map(), resultBytes: 0 };
  const activityBySchedule = new Map<string, string>();
  let current: StepHistory | undefined;
  for (const event of history.events ?? []) {
    const bytes = eventBytes(event);
    summary.events++;
    summary.bytes += bytes;
    const scheduled =
      event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED ? event.activityTaskScheduledEventAttributes : undefined;
    if (scheduled) {
      const name = scheduled.activityType?.name ?? '';
      activityBySchedule.set(String(event.eventId), name);
      const first = scheduled.input?.payloads?.[0];
      if (name === 'callModel' && first) {
        const input = defaultPayloadConverter.fromPayload<CallModelInput>(first);
        current = summary.steps.get(input.step) ?? emptyStep(input.step);
        summary.steps.set(input.step, current);
        current.callModelInputBytes += payloadBytes(scheduled.input);
      }
    }
    const completed =
      event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED ? event.activityTaskCompletedEventAttributes : undefined;
    if (completed && current) {
      const name = activityBySchedule.get(String(completed.scheduledEventId));
      if (name === 'callModel') current.callModelResultBytes += payloadBytes(completed.result);
      if (name === 'runTool') current.runToolResultBytes += payloadBytes(completed.result);
    }
    if (event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED) {
      summary.resultBytes = payloadBytes(event.workflowExecutionCompletedEventAttributes?.result);
    }
    if (current) {
      current.events++;
      current.bytes += bytes;
    } else {
      summary.setup.events++;
      summary.setup.bytes += bytes;
    }
  }
  return summary;
}
