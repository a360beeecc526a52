/** The warning a worker prints when its store serves one machine while Temporal serves many. */
import type { BlobStore } from '../integrations/store/blob-store';
import { STORE_ENV } from '../integrations/store/open';

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '::1', '[::1]', '0.0.0.0']);

/** True when `address` (`host:port`) names this machine. */
export function isLocalAddress(address: string): boolean {
  const host = address.startsWith('[') ? address.slice(0, address.indexOf(']') + 1) : address.replace(/:\d+$/, '');
  return LOCAL_HOSTS.has(host.toLowerCase());
}

/**
 * The warning for a store that only this machine reads (a directory, memory) serving a Temporal server
 * on another host, where workers on other machines may pick up this worker's runs; undefined otherwise.
 * Stores that say nothing about sharing are trusted.
 */
export function localStoreWarning(store: BlobStore, address: string): string | undefined {
  const shared = (store as { shared?: unknown }).shared;
  if (shared !== false || isLocalAddress(address)) return undefined;
  const where = (store as { location?: unknown }).location;
  return (
    `durable-agent: this worker keeps conversations in a store only this machine reads (${typeof where === 'string' ? where : 'local'}), ` +
    `but Temporal at ${address} may hand its runs to workers on other machines, where they would end storage_error. ` +
    `Give every worker one shared store: ${STORE_ENV}=postgres://user:pass@host/db or s3://bucket/prefix (or createWorker({ store })).`
  );
}
