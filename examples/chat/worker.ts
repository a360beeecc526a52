// The worker process: runs the chat agent's model calls and tools. Stop it, even with `kill -9`, and start it
// again (or start a changed version: a deploy): the chats go on where they were.
import { createWorker, ScriptedProvider } from 'durable-agent/worker';
import { chatAgent, DEMO_MODEL, demoScript } from './agent.js';

const worker = await createWorker({
  agents: [chatAgent()], // Temporal at TEMPORAL_ADDRESS, else localhost:7233
  // The scripted stand-in always (a chat started without a key finishes after one is set); Claude from ANTHROPIC_API_KEY.
  providers: { scripted: new ScriptedProvider({ [DEMO_MODEL]: demoScript() }) },
});
console.log(`worker ready: ${chatAgent().model.provider === 'scripted' ? 'scripted stand-in (not an LLM)' : 'Claude'}`);
await worker.run(); // until Ctrl-C
