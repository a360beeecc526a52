/** Is something listening at `host:port`? Its own module, so the CLI can check without loading any Temporal module. */
import { connect } from 'node:net';

/** True when a TCP connection to `address` (`host:port`) opens within `timeoutMs`. */
export function isReachable(address: string, timeoutMs = 1000): Promise<boolean> {
  const idx = address.lastIndexOf(':');
  const host = (idx > 0 ? address.slice(0, idx) : address).replace(/^\[(.*)\]$/, '$1');
  const port = idx > 0 ? Number(address.slice(idx + 1)) : 7233;
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: timeoutMs });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}
