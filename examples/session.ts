/**
 * A conversation with a running agent: start a session, send it messages, follow its events, end it.
 *
 *   npx tsx examples/session.ts      # TEMPORAL_ADDRESS, else localhost:7233, else an embedded dev server
 *
 * The model is a scripted stand-in (not an LLM), so this runs offline: it looks up the order number in
 * the user's last message with the `order_status` tool and answers from the tool's result. For Claude,
 * name `{ provider: 'anthropic', model: 'claude-sonnet-4-6' }` and set `ANTHROPIC_API_KEY` on the worker.
 */
import { z } from 'zod';
import { defineAgent, defineTool } from '../src/entry/index'; // in your project: 'durable-agent'
import type { AgentClient } from '../src/entry/client'; // 'durable-agent/client'
import type { AgentRunResult, ModelRequest, ScriptedTurn } from '../src/entry/worker'; // 'durable-agent/worker'
import { ScriptedProvider } from '../src/entry/worker';
import { runExample } from './run-example';

const SHIPPED: Record<string, string> = { '42': 'shipped on Monday, arriving Thursday', '7': 'waiting for stock' };

const orderStatus = defineTool({
  name: 'order_status',
  description: 'Where an order is',
  input: z.object({ orderId: z.string() }),
  readOnly: true,
  execute: ({ orderId }) => SHIPPED[orderId] ?? 'no such order',
});

/** The scripted model: a tool call for an order number in the last message, then an answer from its result. */
function supportModel(request: ModelRequest): ScriptedTurn {
  const last = request.messages.at(-1);
  const blocks = last?.role === 'user' ? last.content : [];
  const result = blocks.find((b) => b.type === 'tool_result');
  if (result?.type === 'tool_result' && result.output.type === 'text') return { text: `That order is ${result.output.text}.` };
  const text = blocks.map((b) => (b.type === 'text' ? b.text : '')).join(' ');
  const orderId = /order (\d+)/i.exec(text)?.[1];
  if (orderId) return { toolCalls: [{ name: 'order_status', args: { orderId } }] };
  return { text: 'You are welcome. Goodbye!' };
}

export const support = defineAgent({
  name: 'example-support',
  model: { provider: 'scripted', model: 'example-support' },
  system: 'You answer questions about orders.',
  tools: [orderStatus],
  maxSteps: 50,
});

/** Worker side: the agents and the providers they call. */
export const agents = [support];
export const providers = { scripted: new ScriptedProvider({ 'example-support': supportModel }) };

/** Client side: one conversation of three user turns. */
export async function main(
  client: AgentClient,
  log: (line: string) => void = console.log,
  workflowId = `support-chat-${Date.now()}`,
): Promise<AgentRunResult> {
  const run = await client.start(support, { input: 'Where is order 42?', session: { idleTimeout: '30m' }, workflowId });
  const next = ['And order 7?', 'Thanks, that is all.'];
  for await (const event of run.events()) {
    if (event.type === 'user_message') log(`user (turn ${event.turn}): ${event.text}`);
    if (event.type === 'tool_call') log(`  tool ${event.tool}(${JSON.stringify(event.args)})`);
    if (event.type === 'text') log(`agent: ${event.text}`);
    if (event.type === 'awaiting_message') {
      // The session waits, durably and with no worker busy, for the next message.
      const message = next.shift();
      if (message)
        await run.send(message); // resolves once the message is in the run's inbox
      else await run.end(); // the session ends; events() ends after `done`
    }
  }
  const result = await run.result();
  log(`${result.status}: ${result.steps} steps over turns ${result.report.steps.map((s) => s.turn).join(',')}`);
  return result;
}

if (require.main === module) void runExample({ agents, providers, main: (client, log) => main(client, log) });
