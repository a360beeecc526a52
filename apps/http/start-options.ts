/**
 * The client options of a run started over HTTP (`POST /runs`): the body's settings, the caller recorded
 * as the starter, and the caller as approval waiver only when its token holds `waive`. Pure.
 */
import type { StartOptions } from '../../src/entry/client';
import type { Caller } from './auth';
import { holds } from './permissions';
import type { StartBody } from './validation';

/** The `POST /runs` body of `caller` as client options. */
export function startOptions(body: StartBody, caller: Caller): StartOptions {
  const common = {
    ...(body.workflowId !== undefined ? { workflowId: body.workflowId } : {}),
    ...(body.maxSteps !== undefined ? { maxSteps: body.maxSteps } : {}),
    ...(body.policy !== undefined ? { policy: body.policy } : {}),
    ...(body.budget !== undefined ? { budget: body.budget } : {}),
    startedBy: caller.identity,
    ...(holds(caller, 'waive') ? { approvalWaiver: { by: caller.identity } } : {}),
  };
  if (body.session === undefined || body.session === false) return { ...common, input: body.input ?? '' };
  const session = body.session === true || body.session.idleTimeout === undefined ? true : { idleTimeout: body.session.idleTimeout };
  return { ...common, session, ...(body.input !== undefined ? { input: body.input } : {}) };
}
