// The same worker with a scripted stand-in for Claude (not an LLM: it replays two answers), to try the
// example without an API key: it asks to refund order 42, then answers from the tool's result.
import { createWorker, ScriptedProvider } from 'durable-agent/worker';
import { support } from './agents.js';

const scripted = new ScriptedProvider({
  'claude-sonnet-5-5': [
    { toolCalls: [{ name: 'refund', args: { orderId: '42', amount: 25 } }] },
    { text: 'Order 42 is refunded: 25 EUR.' },
  ],
});
const worker = await createWorker({ agents: [support], providers: { anthropic: scripted } });
await worker.run(); // until Ctrl-C
