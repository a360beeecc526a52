// The worker process: holds the tool code and the model's API key (ANTHROPIC_API_KEY).
import { createWorker } from 'durable-agent/worker';
import { support } from './agents.js';

const worker = await createWorker({ agents: [support] }); // Temporal at TEMPORAL_ADDRESS, else localhost:7233
await worker.run(); // until Ctrl-C
