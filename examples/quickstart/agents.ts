import { z } from 'zod';
import { defineAgent, defineTool } from 'durable-agent';

/** A tool that changes something: every call waits for a person's approval before it runs. */
export const refund = defineTool({
  name: 'refund',
  description: 'Refund an order',
  input: z.object({ orderId: z.string(), amount: z.number().positive() }),
  needsApproval: true,
  execute: async ({ orderId, amount }, ctx) => {
    // Call your payment system here, passing ctx.idempotencyKey so a retried call refunds once.
    return { orderId, refunded: amount, reference: ctx.idempotencyKey };
  },
});

export const support = defineAgent({
  name: 'support',
  model: { provider: 'anthropic', model: 'claude-sonnet-5-5' },
  system: 'You are a support agent. Refund orders that arrived damaged.',
  tools: [refund],
});
