/** Hash routes (`#/`, `#/runs`, `#/runs/<id>`, `#/audit`, `#/rules`): static serving stays one file. */
import { useEffect, useState } from 'preact/hooks';

/** A page of the console. */
export type Route =
  | { page: 'inbox' }
  | { page: 'runs'; query: URLSearchParams }
  | { page: 'run'; id: string }
  | { page: 'audit'; query: URLSearchParams }
  | { page: 'rules' };

/** The route of a hash. */
export function parseRoute(hash: string): Route {
  const [path = '', search = ''] = hash.replace(/^#/, '').split('?', 2);
  const parts = path.split('/').filter(Boolean);
  if (parts[0] === 'runs' && parts[1] !== undefined) return { page: 'run', id: decodeURIComponent(parts.slice(1).join('/')) };
  if (parts[0] === 'runs') return { page: 'runs', query: new URLSearchParams(search) };
  if (parts[0] === 'audit') return { page: 'audit', query: new URLSearchParams(search) };
  if (parts[0] === 'rules') return { page: 'rules' };
  return { page: 'inbox' };
}

/** The hash of a run's page. */
export const runHref = (id: string): string => `#/runs/${encodeURIComponent(id)}`;

/** The current route, following hash changes. */
export function useRoute(): Route {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const changed = () => setHash(location.hash);
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return parseRoute(hash);
}
