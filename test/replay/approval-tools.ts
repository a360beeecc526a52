/** Tools of the approval scenarios: one per approval setting the workflow must replay. */
import { z } from 'zod';
import { defineTool } from '../../src/agents/define';

/** Always asks; anyone may decide; waits forever. */
export { deploy } from '../helpers/tools';

/** Asks for amounts over 100 (a predicate, evaluated by an activity); only `ops:alice` may decide. */
export const refund = defineTool({
  name: 'refund',
  description: 'Refund a customer; amounts over 100 need ops approval',
  input: z.object({ amount: z.number() }),
  needsApproval: ({ amount }) => amount > 100,
  approvers: ['ops:alice'],
  execute: ({ amount }) => `refunded ${amount}`,
});

/** Always asks; an unanswered request denies the call after one second. */
export const charge = defineTool({
  name: 'charge',
  description: 'Charge a card; unanswered requests are denied',
  input: z.object({ amount: z.number() }),
  needsApproval: true,
  approvalTimeout: '1s',
  onApprovalTimeout: 'deny',
  execute: ({ amount }) => `charged ${amount}`,
});

/** Always asks; an unanswered request fails the run after one second. */
export const wire = defineTool({
  name: 'wire',
  description: 'Wire money; an unanswered request fails the run',
  input: z.object({ amount: z.number() }),
  needsApproval: true,
  approvalTimeout: '1s',
  onApprovalTimeout: 'fail',
  execute: ({ amount }) => `wired ${amount}`,
});

/** Only `ops:alice` may decide; after 300 ms `ops:leads` may too; an unanswered request is denied after 1.2 s. */
export const payout = defineTool({
  name: 'payout',
  description: 'Pay out; escalates to the leads, then expires',
  input: z.object({ amount: z.number() }),
  approvers: ['ops:alice'],
  escalate: { after: '300ms', to: ['ops:leads'] },
  approvalTimeout: '1200ms',
  onApprovalTimeout: 'deny',
  execute: ({ amount }) => `paid ${amount}`,
});
