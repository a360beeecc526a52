// The host app: its own sign-in (auth.ts), the durable chat mounted at /api/chat, and the built page.
import { relative } from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import type { AgentClient } from 'durable-agent/client';
import { createChatHandler } from 'durable-agent/chat';
import { CHAT_AGENT } from './agent.js';
import type { DemoUser } from './auth.js';
import { cookieAuth, DEMO_USERS } from './auth.js';

/** What the app needs. */
export interface ChatAppOptions {
  client: AgentClient;
  /** The built page (`vite build`'s output). */
  staticDir: string;
  /** Signs the user cookie (default: `COOKIE_SECRET`, else random per process). */
  cookieSecret?: string;
}

/**
 * The session (workflow id) of a chat: one per chat id, so a chat's link opens that chat, and its owner check
 * refuses anyone else (404). `createChatHandler`'s default, `chat:<identity>:<chatId>`, scopes sessions by user
 * instead: there another user's link opens an empty chat of their own.
 */
export const chatSessionId = ({ chatId }: { chatId: string }): string => `chat-example:${chatId}`;

export function chatApp({ client, staticDir, cookieSecret }: ChatAppOptions): Hono {
  const auth = cookieAuth(cookieSecret);
  const chat = createChatHandler({
    client,
    agent: CHAT_AGENT,
    basePath: '/api/chat',
    sessionId: chatSessionId,
    // Who is asking, from the host app's own auth; null: 401. A chat is readable and writable by its owner only.
    identify: (request: Request) => {
      const user = auth.userOf(request);
      return user ? { identity: `user:${user}` } : null;
    },
  });
  const app = new Hono();
  // Demo sign-in: `/login?user=bob&next=/?chat=…` (a real app has its own).
  app.get('/login', (c) => {
    const user = c.req.query('user');
    if (!user || !(DEMO_USERS as readonly string[]).includes(user)) return c.text(`unknown user; try ${DEMO_USERS.join(' or ')}`, 400);
    const next = c.req.query('next') ?? '/';
    c.header('set-cookie', auth.cookieFor(user as DemoUser));
    return c.redirect(next.startsWith('/') && !next.startsWith('//') ? next : '/');
  });
  app.get('/api/me', (c) => c.json({ user: auth.userOf(c.req.raw) ?? null, users: DEMO_USERS }));
  app.all('/api/chat', (c) => chat(c.req.raw));
  app.all('/api/chat/*', (c) => chat(c.req.raw));
  app.use('/*', serveStatic({ root: relative(process.cwd(), staticDir) || '.' }));
  return app;
}
