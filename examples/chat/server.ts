// The web server: the page (built by `vite build` into dist/) and the chat API, on PORT (default 3000).
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { AgentClient } from 'durable-agent/client';
import { chatApp } from './app.js';

const client = await AgentClient.connect(); // TEMPORAL_ADDRESS, else localhost:7233
const app = chatApp({ client, staticDir: fileURLToPath(new URL('./dist', import.meta.url)) });
const port = Number(process.env.PORT ?? 3000);
serve({ fetch: app.fetch, port }, (info) => console.log(`chat on http://localhost:${info.port}/ (sign in: /login?user=alice)`));
