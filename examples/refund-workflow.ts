/**
 * An agent inside your own workflow: an order's refund workflow (`refund-workflows.ts`) asks an agent to
 * draft the refund, waits for a person to review it, then pays with its own activity. One worker hosts
 * your workflow and activity AND the agent, through the `durableAgents` plugin.
 *
 *   npx tsx examples/refund-workflow.ts   # TEMPORAL_ADDRESS, else localhost:7233, else an embedded dev server
 *
 * The model is a scripted stand-in (not an LLM), so this runs offline: it looks the order up with the
 * `order_details` tool and proposes to refund the damaged items. For Claude, name
 * `{ provider: 'anthropic', model: 'claude-sonnet-4-6' }` and set `ANTHROPIC_API_KEY` on the worker.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { defineAgent, defineTool } from '../src/entry/index'; // in your project: 'durable-agent'
import { AgentClient, durableAgentsClient } from '../src/entry/client'; // 'durable-agent/client'
import type { ModelRequest, ScriptedTurn } from '../src/entry/worker'; // 'durable-agent/worker'
import { durableAgents, ScriptedProvider } from '../src/entry/worker';
import { Session } from '../apps/cli/session';
import { resolveTarget } from '../apps/cli/target';
import type { RefundOutcome, RefundRequest, RefundState } from './refund-workflows';
import { refundStateQuery, refundWorkflow, reviewSignal } from './refund-workflows';

const ORDERS: Record<string, { items: Array<{ sku: string; price: number; damaged: boolean }> }> = {
  '42': {
    items: [
      { sku: 'mug', price: 12.5, damaged: true },
      { sku: 'teapot', price: 30, damaged: false },
      { sku: 'mug', price: 12.5, damaged: true },
    ],
  },
};

const orderDetails = defineTool({
  name: 'order_details',
  description: 'The items of an order, with their price and whether they arrived damaged',
  input: z.object({ orderId: z.string() }),
  readOnly: true,
  execute: ({ orderId }) => ORDERS[orderId] ?? { error: `no order ${orderId}` },
});

/** The scripted model: looks the order up, then proposes to refund its damaged items (`final_answer` is the tool an agent with an output schema answers with). */
export function drafterModel(request: ModelRequest): ScriptedTurn {
  const last = request.messages.at(-1);
  const blocks = last?.role === 'user' ? last.content : [];
  const result = blocks.find((b) => b.type === 'tool_result');
  if (result?.type === 'tool_result' && result.output.type === 'text') {
    const order = JSON.parse(result.output.text) as (typeof ORDERS)[string];
    const damaged = order.items.filter((i) => i.damaged);
    const amount = damaged.reduce((sum, i) => sum + i.price, 0);
    return {
      toolCalls: [
        {
          name: 'final_answer',
          args: { amount, note: `Refund ${damaged.length} damaged item(s): ${damaged.map((i) => i.sku).join(', ')}` },
        },
      ],
    };
  }
  const text = blocks.map((b) => (b.type === 'text' ? b.text : '')).join(' ');
  return { toolCalls: [{ name: 'order_details', args: { orderId: /order (\w+)/.exec(text)?.[1] ?? '' } }] };
}

export const refundDrafter = defineAgent({
  name: 'refund-drafter',
  model: { provider: 'scripted', model: 'refund-drafter' },
  system: 'You draft refunds: look the order up, refund what arrived damaged, never more than was paid.',
  tools: [orderDetails],
  output: z.object({ amount: z.number().nonnegative(), note: z.string() }),
  maxSteps: 10,
});

/** Worker side: the agents and the providers they call. */
export const agents = [refundDrafter];
export const providers = { scripted: new ScriptedProvider({ 'refund-drafter': drafterModel }) };

/** Your own activities (here: a payment ledger in memory, idempotent on the order id). */
export function refundActivities(ledger = new Map<string, { amount: number; paymentId: string }>()) {
  return {
    async payRefund({ orderId, amount }: { orderId: string; amount: number }): Promise<string> {
      const paid = ledger.get(orderId) ?? { amount, paymentId: `pay-${orderId}-${randomUUID().slice(0, 8)}` };
      ledger.set(orderId, paid);
      return paid.paymentId;
    },
  };
}
export type RefundActivities = ReturnType<typeof refundActivities>;

/** Path of the workflows file, for the worker's `workflowsPath`. */
export const WORKFLOWS =
  ['.js', '.ts'].map((ext) => join(__dirname, `refund-workflows${ext}`)).find((p) => existsSync(p)) ?? join(__dirname, 'refund-workflows');

/**
 * Client side: start the refund workflow, follow the agent it runs, approve the proposal as a person
 * would, and return how the refund ended.
 */
export async function main(
  temporal: Client,
  taskQueue: string,
  log: (line: string) => void = console.log,
  workflowId = `refund-42-${Date.now()}`,
): Promise<RefundOutcome> {
  const request: RefundRequest = { orderId: '42', reason: 'two mugs arrived broken' };
  const order = await temporal.workflow.start(refundWorkflow, { workflowId, taskQueue, args: [request] });
  log(`refund workflow ${order.workflowId} started`);
  // The agent run is an ordinary run: its events, result and report are read as for any run.
  let state: RefundState = await order.query(refundStateQuery);
  for (let i = 0; i < 300 && !state.agentRun; i++, await new Promise((r) => setTimeout(r, 100)))
    state = await order.query(refundStateQuery);
  const agentClient = await AgentClient.connect({ client: temporal, taskQueue });
  const run = agentClient.get<typeof refundDrafter>(state.agentRun as string);
  for await (const event of run.events()) {
    if (event.type === 'tool_call') log(`  agent: ${event.tool}(${JSON.stringify(event.args)})`);
    if (event.type === 'done') log(`  agent: ${event.status}`);
  }
  const draft = await run.result();
  if (draft.status === 'success') log(`proposal: ${draft.output.amount} (${draft.output.note})`);
  // A person approves (here at once; in real life from your back office).
  await order.signal(reviewSignal, { approve: true, by: 'ops:alice' });
  const outcome = await order.result();
  log(`refund ${outcome.status}${outcome.status === 'paid' ? `: ${outcome.amount}, payment ${outcome.paymentId}` : ''}`);
  return outcome;
}

/** Run by hand: one worker hosting the workflow, its activity and the agent, then `main`. */
async function runByHand(): Promise<void> {
  const { TEMPORAL_ADDRESS: address } = process.env;
  const taskQueue = 'durable-agent-refund-example';
  const session = await Session.open(resolveTarget({ ...(address ? { address } : {}), taskQueue }), {
    embed: 'auto',
    log: (l) => console.error(l),
  });
  const connection = session.server?.nativeConnection ?? (await NativeConnection.connect({ address: session.address }));
  try {
    const worker = await Worker.create({
      connection,
      namespace: session.temporal.options.namespace,
      taskQueue,
      workflowsPath: WORKFLOWS, // your workflows: the plugin bundles the agent workflows beside them
      activities: refundActivities(),
      plugins: [durableAgents({ agents, providers })],
    });
    const temporal = new Client({
      connection: session.temporal.connection,
      namespace: session.temporal.options.namespace,
      plugins: [durableAgentsClient()],
    });
    await worker.runUntil(main(temporal, taskQueue));
  } finally {
    if (!session.server) await connection.close();
    await session.close();
  }
}

if (require.main === module) {
  runByHand().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
