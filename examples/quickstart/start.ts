// Anywhere else (a web backend, a script): starts a run, approves its refund, prints the result.
// Loads durable-agent/client only: no tool code, no native Temporal worker.
import { AgentClient } from 'durable-agent/client';
import type { support } from './agents.js'; // type only

const client = await AgentClient.connect(); // TEMPORAL_ADDRESS, else localhost:7233
const run = await client.start<typeof support>('support', { input: 'Order 42 arrived broken, please refund my 25 EUR.' });
for await (const event of run.events()) {
  if (event.type === 'tool_call') console.log(`tool call: ${event.tool}`, event.args); // args typed by the tool's schema
  if (event.type === 'approval_requested' && event.tool === 'refund') {
    await run.decide({ callId: event.callId, decision: 'approve', by: 'ops:alice' });
    console.log(`approved: ${event.tool} of ${event.args.amount}`);
  }
}
const result = await run.result();
console.log(`${result.status}: ${result.finalText}`);
await client.close();
