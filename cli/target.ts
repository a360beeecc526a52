/** Which Temporal server the CLI talks to, and where it would start its own. */
import { DEFAULT_TASK_QUEUE } from '../core/contract';
import { CliError } from './errors';

/** Port of the default address, and of the embedded dev server unless overridden. */
export const DEFAULT_PORT = 7233;
/** Port of the Temporal UI the embedded server serves under `dev`. */
export const DEFAULT_UI_PORT = 8233;

/** Connection options every command takes (commander fills them from flags and environment). */
export interface ConnectionFlags {
  /** `--address` or `TEMPORAL_ADDRESS`. */
  address?: string;
  /** `--port` or `DURABLE_AGENT_DEV_PORT`: the embedded server's port. */
  port?: number;
  /** `--task-queue` or `DURABLE_AGENT_TASK_QUEUE`. */
  taskQueue?: string;
}

/** A resolved connection target. */
export interface Target {
  /** host:port to connect to. */
  address: string;
  /** True when the user named the address (`--address` or `TEMPORAL_ADDRESS`). */
  explicit: boolean;
  /** Port an embedded dev server would bind. */
  serverPort: number;
  /** Host an embedded dev server would bind, when the address is local. */
  serverIp: string | undefined;
  taskQueue: string;
}

const LOCAL_HOSTS: Record<string, string> = { localhost: '127.0.0.1', '127.0.0.1': '127.0.0.1', '0.0.0.0': '0.0.0.0', '[::1]': '::1', '::1': '::1' };

/** Split `host:port`, checking the port. */
export function parseAddress(address: string): { host: string; port: number } {
  const idx = address.lastIndexOf(':');
  const host = idx > 0 ? address.slice(0, idx) : '';
  const port = Number(idx > 0 ? address.slice(idx + 1) : NaN);
  if (!host || !Number.isInteger(port) || port < 1 || port > 65535) throw new CliError(`invalid address "${address}": expected host:port`);
  return { host, port };
}

/** Resolve flags into a target. Without an explicit address: `localhost:<dev port>`. */
export function resolveTarget(flags: ConnectionFlags): Target {
  const taskQueue = flags.taskQueue || DEFAULT_TASK_QUEUE;
  if (flags.address) {
    const { host, port } = parseAddress(flags.address);
    return { address: flags.address, explicit: true, serverPort: flags.port ?? port, serverIp: LOCAL_HOSTS[host], taskQueue };
  }
  const port = flags.port ?? DEFAULT_PORT;
  return { address: `localhost:${port}`, explicit: false, serverPort: port, serverIp: '127.0.0.1', taskQueue };
}
