import { useEffect, useState } from 'react';
import type { UIMessage } from 'ai';
import { Chat } from './Chat';
import { chatIdFromUrl } from './chat-id';

interface Me {
  user: string | null;
  users: string[];
}

/** What the page knows before the chat mounts: who is signed in, and the chat's messages so far. */
type Loaded = { me: Me; messages: UIMessage[]; refused?: string };

async function load(chatId: string): Promise<Loaded> {
  const me = (await (await fetch('/api/me')).json()) as Me;
  if (!me.user) return { me, messages: [] };
  const res = await fetch(`/api/chat/${encodeURIComponent(chatId)}/messages`);
  if (!res.ok) {
    const body = (await res.json().catch(() => ({}))) as { message?: string };
    return { me, messages: [], refused: `${body.message ?? res.statusText} (HTTP ${res.status})` };
  }
  return { me, messages: ((await res.json()) as { messages: UIMessage[] }).messages };
}

export function App() {
  const [chatId] = useState(chatIdFromUrl);
  const [loaded, setLoaded] = useState<Loaded | Error>();
  useEffect(() => {
    load(chatId).then(setLoaded, (err: unknown) => setLoaded(err instanceof Error ? err : new Error(String(err))));
  }, [chatId]);
  const here = `${window.location.pathname}${window.location.search}`;
  if (!loaded) return <main className="app">Loading…</main>;
  if (loaded instanceof Error) return <main className="app error">{loaded.message}</main>;
  return (
    <main className="app">
      <header>
        <h1>Durable chat</h1>
        <nav className="users">
          {loaded.me.user ? <span className="me">Signed in as {loaded.me.user}</span> : <span>Sign in as</span>}
          {loaded.me.users
            .filter((u) => u !== loaded.me.user)
            .map((u) => (
              <a key={u} href={`/login?user=${u}&next=${encodeURIComponent(here)}`}>
                {loaded.me.user ? `switch to ${u}` : u}
              </a>
            ))}
        </nav>
      </header>
      {loaded.refused ? (
        <p className="error refused" role="alert">
          This chat cannot be opened: {loaded.refused}
        </p>
      ) : null}
      {loaded.me.user ? <Chat id={chatId} initialMessages={loaded.messages} /> : <p>Sign in to chat.</p>}
    </main>
  );
}
