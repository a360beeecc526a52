/**
 * `durable-agent codec-server`: decrypts (and encrypts) Temporal payloads for the Temporal Web UI and CLI
 * with the keys of `DURABLE_AGENT_KEYS`, until Ctrl-C. Optionally protected by a bearer token
 * (`DURABLE_AGENT_CODEC_TOKEN`).
 */
import { createCodecApp, DEFAULT_CODEC_PORT, exposedCodecWarning, serveCodec } from '../codec-server';
import type { CodecServer } from '../codec-server';
import { Keyring } from '../../../src/entry/client';

/** The setting the workers' keys come from (`Keyring.fromEnv` reads it). */
const KEYS_ENV = 'DURABLE_AGENT_KEYS';
import { aborted } from '../abort';
import { CliError, errorMessage } from '../errors';
import { Output } from '../terminal-output';

/** The environment variable holding the codec server's bearer token. */
export const CODEC_TOKEN_ENV = 'DURABLE_AGENT_CODEC_TOKEN';

/** Options of `codec-server`. */
export interface CodecServerFlags {
  /** `--port` (default 8888). */
  port?: number;
  /** `--host` (default 127.0.0.1). */
  host?: string;
  /** `--cors-origin`, repeatable: browser origins allowed (the Temporal UI's). */
  corsOrigin?: string[];
}

/** Serve the codec endpoint until `signal` aborts; returns the exit code. */
export async function codecServerCommand(flags: CodecServerFlags, signal: AbortSignal): Promise<number> {
  const out = new Output();
  let keyring: Keyring | undefined;
  try {
    keyring = Keyring.fromEnv();
  } catch (err) {
    throw new CliError(errorMessage(err));
  }
  if (!keyring)
    throw new CliError(`${KEYS_ENV} is not set: the codec server needs the keys the workers use (id:base64key,…; the first one encrypts)`);
  const token = process.env[CODEC_TOKEN_ENV]?.trim() || undefined;
  const origins = flags.corsOrigin ?? [];
  const app = createCodecApp({
    keyring,
    corsOrigins: origins,
    ...(token ? { token } : {}),
    onError: (err) => out.note(`internal error: ${errorMessage(err)}`),
  });
  const host = flags.host ?? '127.0.0.1';
  const port = flags.port ?? DEFAULT_CODEC_PORT;
  let server: CodecServer;
  try {
    server = await serveCodec(app, { port, hostname: host });
  } catch (err) {
    throw new CliError(`cannot listen on ${host}:${port}: ${errorMessage(err)}`);
  }
  out.line(
    '',
    out.styles.bold('durable-agent codec-server'),
    `  Codec endpoint:    ${server.url}  (temporal --codec-endpoint ${server.url} …; Temporal UI: Settings → Codec Server)`,
    `  Keys:              ${keyring.ids.join(', ')} (new payloads: ${keyring.primaryId})`,
    `  CORS origins:      ${origins.length ? origins.join(', ') : 'none (add --cors-origin <the UI origin> for the Temporal UI)'}`,
    `  Bearer token:      ${token ? `required (${CODEC_TOKEN_ENV})` : `none (set ${CODEC_TOKEN_ENV} to require one)`}`,
    '',
    'Press Ctrl-C to stop.',
  );
  const exposed = exposedCodecWarning(host, token !== undefined);
  if (exposed) process.stderr.write(`${exposed}\n`);
  await aborted(signal);
  out.line('', 'stopping the codec server...');
  await server.close();
  return 0;
}
