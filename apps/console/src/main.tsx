/** The web console: sign-in, then the approval inbox, the runs list, run pages, the audit trail and the standing rules (hash routes). */
import './app.css';
import { render } from 'preact';
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Me } from './api';
import { Api, ApiError } from './api';
import { AuditPage } from './audit';
import { InboxPage } from './inbox';
import { RunPage } from './run-page';
import { RulesPage } from './rules';
import { RunsPage } from './runs';
import { useRoute } from './router';
import { savedToken, saveToken } from './session';
import { SignIn } from './sign-in';

type Auth = { state: 'checking'; api: Api } | { state: 'signed-out'; error?: string } | { state: 'signed-in'; api: Api; me: Me };

function App() {
  const [auth, setAuth] = useState<Auth>(() => {
    const token = savedToken();
    return token ? { state: 'checking', api: new Api(token) } : { state: 'signed-out' };
  });
  const route = useRoute();

  useEffect(() => {
    if (auth.state !== 'checking') return;
    let live = true;
    auth.api.me().then(
      (me) => live && setAuth({ state: 'signed-in', api: auth.api, me }),
      (err: unknown) => {
        if (!live) return;
        if (err instanceof ApiError && err.status === 401) saveToken(undefined);
        setAuth({ state: 'signed-out', error: signInError(err) });
      },
    );
    return () => {
      live = false;
    };
  }, [auth]);

  const signIn = (token: string) => {
    saveToken(token);
    setAuth({ state: 'checking', api: new Api(token) });
  };
  const signOut = () => {
    saveToken(undefined);
    setAuth({ state: 'signed-out' });
  };
  /** A stream or request refused the token (it was removed from the server's configuration). */
  const refused = (err: unknown) => {
    if (err instanceof ApiError && err.status === 401) {
      saveToken(undefined);
      setAuth({ state: 'signed-out', error: signInError(err) });
    }
  };

  if (auth.state !== 'signed-in') {
    return (
      <Shell>
        <SignIn
          busy={auth.state === 'checking'}
          {...(auth.state === 'signed-out' && auth.error ? { error: auth.error } : {})}
          onSignIn={signIn}
        />
      </Shell>
    );
  }
  const { api, me } = auth;
  return (
    <Shell me={me} onSignOut={signOut} page={route.page}>
      {route.page === 'inbox' && <InboxPage api={api} me={me} onRefused={refused} />}
      {route.page === 'runs' && <RunsPage api={api} query={route.query} onRefused={refused} />}
      {route.page === 'run' && <RunPage key={route.id} api={api} me={me} id={route.id} onRefused={refused} />}
      {route.page === 'audit' && <AuditPage api={api} query={route.query} onRefused={refused} />}
      {route.page === 'rules' && <RulesPage api={api} me={me} onRefused={refused} />}
    </Shell>
  );
}

function signInError(err: unknown): string {
  if (err instanceof ApiError && err.status === 401)
    return `Sign-in refused: ${err.message}. Check the token (it is one of the server's --tokens file).`;
  return `Cannot sign in: ${err instanceof Error ? err.message : String(err)}`;
}

function Shell(props: { me?: Me; onSignOut?: () => void; page?: string; children: ComponentChildren }) {
  return (
    <>
      <header class="top">
        <a class="brand" href="#/">
          durable-agent
        </a>
        {props.me && (
          <nav>
            <a href="#/" class={props.page === 'inbox' ? 'active' : ''}>
              Approvals
            </a>
            <a href="#/runs" class={props.page === 'runs' || props.page === 'run' ? 'active' : ''}>
              Runs
            </a>
            <a href="#/audit" class={props.page === 'audit' ? 'active' : ''}>
              Audit
            </a>
            <a href="#/rules" class={props.page === 'rules' ? 'active' : ''}>
              Rules
            </a>
          </nav>
        )}
        {props.me && (
          <div class="who">
            <span class="identity" title={`may: ${props.me.permissions.join(', ') || 'nothing'}`}>
              {props.me.identity}
            </span>
            <button type="button" class="link" onClick={props.onSignOut}>
              Sign out
            </button>
          </div>
        )}
      </header>
      <main>{props.children}</main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
