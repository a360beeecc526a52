/** The sign-in page: a bearer token of the server's configuration, kept for this tab. */
import { useState } from 'preact/hooks';

/** The sign-in form; `error` says why the last attempt failed. */
export function SignIn(props: { busy: boolean; error?: string; onSignIn: (token: string) => void }) {
  const [token, setToken] = useState('');
  return (
    <form
      class="card sign-in"
      onSubmit={(e) => {
        e.preventDefault();
        if (token.trim()) props.onSignIn(token.trim());
      }}
    >
      <h1>Sign in</h1>
      <p class="muted">Paste a bearer token from the server's token file (durable-agent serve --tokens). It is kept in this tab only.</p>
      <label for="token">Token</label>
      <input
        id="token"
        name="token"
        type="password"
        autocomplete="off"
        value={token}
        onInput={(e) => setToken(e.currentTarget.value)}
        required
      />
      {props.error && (
        <p class="error" role="alert">
          {props.error}
        </p>
      )}
      <button type="submit" class="primary" disabled={props.busy || !token.trim()}>
        {props.busy ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}
