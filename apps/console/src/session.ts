/** The signed-in token, kept for the browser tab only (sessionStorage). */
const KEY = 'durable-agent.token';

/** The token of this tab, if signed in. */
export function savedToken(): string | undefined {
  try {
    return sessionStorage.getItem(KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

/** Keep `token` for this tab (undefined: sign out). */
export function saveToken(token: string | undefined): void {
  try {
    if (token === undefined) sessionStorage.removeItem(KEY);
    else sessionStorage.setItem(KEY, token);
  } catch {
    // storage disabled: the token lives in memory only
  }
}
