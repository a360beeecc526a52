/**
 * Encryption end to end on the real dev server, verified on the raw artefacts: Temporal's history as the
 * `temporal` CLI shows it (without and with the codec server) and the store's files.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/agents/define';
import { AgentClient } from '../../src/client';
import type { CodecServer } from '../../apps/cli/codec-server';
import { createCodecApp, serveCodec } from '../../apps/cli/codec-server';
import { Keyring } from '../../src/integrations/encryption/keyring';
import { ScriptedAgents } from '../helpers/agents';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { freePort, runCli, soleError, startCli, tempHome } from '../helpers/cli-run';

const exec = promisify(execFile);

const PROMPT = 'PROMPT-aubergine-7c1f';
const ARG = 'ARG-quetzal-93ab';
const OUTPUT = 'OUTPUT-marmalade-5e2d';
const SECRETS = [PROMPT, ARG, OUTPUT];
const UI = 'http://localhost:8233';

const vault = defineTool({
  name: 'vault_lookup',
  description: 'Look a code up in the vault',
  input: z.object({ code: z.string() }),
  readOnly: true,
  execute: ({ code }) => `${OUTPUT} for ${code.length} chars`,
});

const S = new ScriptedAgents();
S.add(
  'sealed',
  [{ text: 'Looking it up.', toolCalls: [{ name: 'vault_lookup', args: { code: ARG } }] }, { text: 'Done: the vault answered.' }],
  { tools: [vault] },
);

const KEYS = `k2:${Buffer.alloc(32, 2).toString('base64')},k1:${Buffer.alloc(32, 1).toString('base64')}`;
const keyring = Keyring.parse(KEYS);

/** Every file under `dir`, read as bytes (latin1, so any clear text would show). */
function rawFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? rawFiles(path) : [readFileSync(path).toString('latin1')];
  });
}

/** Every payload's data and metadata values in `value` (protobuf JSON: base64), decoded. */
function payloadTexts(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(payloadTexts);
  if (typeof value !== 'object' || value === null) return [];
  const record = value as Record<string, unknown>;
  const own =
    typeof record.data === 'string' && typeof record.metadata === 'object' && record.metadata !== null
      ? [record.data, ...Object.values(record.metadata as Record<string, string>)].map((b64) =>
          Buffer.from(String(b64), 'base64').toString('latin1'),
        )
      : [];
  return [...own, ...Object.values(record).flatMap(payloadTexts)];
}

/**
 * What `temporal workflow show -o json` lets anyone read of a run: its output, plus every payload in it
 * decoded from base64 (the CLI prints payloads as protobuf JSON).
 */
async function workflowShow(workflowId: string, ...extra: string[]): Promise<string> {
  const cli = inject('temporalCliPath');
  expect(cli).not.toBe('');
  const { stdout } = await exec(
    cli,
    ['workflow', 'show', '--workflow-id', workflowId, '--address', inject('temporalAddress'), '-o', 'json', ...extra],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  const texts = payloadTexts(JSON.parse(stdout));
  expect(texts.length).toBeGreaterThan(0);
  return [stdout, ...texts].join('\n');
}

describe('encryption', () => {
  let sealed: Harness;
  let plain: Harness;
  let codec: CodecServer;
  let workflowId: string;

  beforeAll(async () => {
    sealed = await startHarness({ agents: S.agents, providers: { scripted: S.provider }, encryption: keyring });
    plain = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
    codec = await serveCodec(createCodecApp({ keyring, corsOrigins: [UI] }), { port: 0 });
    workflowId = testId('sealed');
    const run = await sealed.client.start('sealed', { input: PROMPT, workflowId });
    const result = await run.result();
    expect(result.status).toBe('success');
    // The client holds the keys: it reads the run in clear.
    expect(JSON.stringify(result.messages)).toContain(OUTPUT);
    expect(JSON.stringify(result.messages)).toContain(ARG);
  });

  afterAll(async () => {
    await codec?.close();
    await sealed?.stop();
    await plain?.stop();
  });

  it('control: without encryption, `temporal workflow show` shows the prompt, the arguments and the output in clear', async () => {
    const id = testId('clear');
    expect((await (await plain.client.start('sealed', { input: PROMPT, workflowId: id })).result()).status).toBe('success');
    const shown = await workflowShow(id);
    for (const secret of SECRETS) expect(shown).toContain(secret);
    expect(rawFiles(plain.storeDir).join('\n')).toContain(PROMPT);
  });

  it('`temporal workflow show` without the codec shows none of the prompt, arguments or output', async () => {
    const shown = await workflowShow(workflowId);
    expect(shown).toContain('binary/encrypted'); // the payloads are there, marked encrypted…
    for (const secret of SECRETS) expect(shown).not.toContain(secret); // …and nothing in clear
  });

  it('`temporal workflow show --codec-endpoint` of the running codec server shows them', async () => {
    const shown = await workflowShow(workflowId, '--codec-endpoint', codec.url);
    for (const secret of SECRETS) expect(shown).toContain(secret);
  });

  it('the store directory holds none of them in clear', () => {
    const files = rawFiles(sealed.storeDir);
    expect(files.length).toBeGreaterThan(0);
    for (const secret of SECRETS) expect(files.join('\n')).not.toContain(secret);
  });

  it('a CORS preflight from the Temporal UI gets the right headers', async () => {
    const res = await fetch(`${codec.url}/decode`, {
      method: 'OPTIONS',
      headers: {
        Origin: UI,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type,x-namespace,authorization',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(UI);
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-namespace');
  });

  it('a client without the key gets a clear error naming DURABLE_AGENT_KEYS, not garbage', async () => {
    const address = inject('temporalAddress');
    const noKeys = await AgentClient.connect({ address, taskQueue: sealed.taskQueue, encryption: false });
    const wrongKeys = await AgentClient.connect({
      address,
      taskQueue: sealed.taskQueue,
      encryption: Keyring.parse(`k9:${Buffer.alloc(32, 9).toString('base64')}`),
    });
    try {
      await expect(noKeys.get(workflowId).result()).rejects.toThrow(
        /encrypted with key id "k2" and this process has no encryption keys: set DURABLE_AGENT_KEYS/,
      );
      await expect(wrongKeys.get(workflowId).result()).rejects.toThrow(
        /key id "k2", which this process does not hold \(it holds "k9"\): add that key to DURABLE_AGENT_KEYS/,
      );
    } finally {
      await noKeys.close();
      await wrongKeys.close();
    }
  });

  it('rotation: a worker and client whose first key is new still read runs sealed under the old key', async () => {
    const old = Keyring.parse(`k1:${Buffer.alloc(32, 1).toString('base64')}`);
    const address = inject('temporalAddress');
    const id = testId('rotated');
    const oldClient = await AgentClient.connect({ address, taskQueue: sealed.taskQueue, encryption: old });
    try {
      // Started (input sealed) under k1 only; run by the worker holding k2,k1; read back with k2,k1.
      const run = await oldClient.start('sealed', { input: PROMPT, workflowId: id });
      expect((await sealed.client.get(id).result()).status).toBe('success');
      expect(run.workflowId).toBe(id);
      const shown = await workflowShow(id, '--codec-endpoint', codec.url);
      expect(shown).toContain(PROMPT);
    } finally {
      await oldClient.close();
    }
  });

  it('the CLI: `durable-agent codec-server` serves the temporal CLI; `result` reads the run with DURABLE_AGENT_KEYS, and refuses bad keys clearly', async () => {
    const home = tempHome();
    const port = await freePort();
    const server = startCli(['codec-server', '--port', String(port), '--cors-origin', `${UI}/`], {
      home,
      env: { DURABLE_AGENT_KEYS: KEYS },
    });
    try {
      await server.waitFor('Press Ctrl-C');
      expect(server.stdout()).toContain(`CORS origins:      ${UI}`);
      expect(server.stdout()).not.toContain(KEYS.split(',')[0]!.slice(3));
      const shown = await workflowShow(workflowId, '--codec-endpoint', `http://127.0.0.1:${port}`);
      for (const secret of SECRETS) expect(shown).toContain(secret);
    } finally {
      server.child.kill('SIGINT');
      await server.done;
    }
    const common = ['--address', inject('temporalAddress'), '--task-queue', sealed.taskQueue];
    const read = await runCli(['result', workflowId, '--json', ...common], { home, env: { DURABLE_AGENT_KEYS: KEYS } });
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout).toContain(OUTPUT);
    const bad = await runCli(['result', workflowId, '--json', ...common], { home, env: { DURABLE_AGENT_KEYS: 'k1:c2hvcnQ=' } });
    expect(soleError(bad)).toMatch(/DURABLE_AGENT_KEYS, key 1 \(id "k1"\): the key is 5 bytes, AES-256 needs exactly 32/);
    const none = await runCli(['codec-server', '--port', String(port)], { home, env: { DURABLE_AGENT_KEYS: '' } });
    expect(soleError(none)).toMatch(/DURABLE_AGENT_KEYS is not set: the codec server needs the keys/);
  });

  it('the CLI: `durable-agent codec-server` warns when it listens beyond loopback without a token, not otherwise', async () => {
    const home = tempHome();
    const served = async (args: string[], env: Record<string, string>) => {
      const server = startCli(['codec-server', '--port', String(await freePort()), ...args], {
        home,
        env: { DURABLE_AGENT_KEYS: KEYS, ...env },
      });
      await server.waitFor('Press Ctrl-C');
      server.child.kill('SIGINT');
      return server.done;
    };
    const exposed = await served(['--host', '0.0.0.0'], { DURABLE_AGENT_CODEC_TOKEN: '' });
    expect(exposed.code).toBe(0);
    expect(exposed.stderr).toContain(
      'warning: the codec server listens on 0.0.0.0 without a bearer token: anyone who can reach it can decrypt your payloads',
    );
    expect(exposed.stderr).toContain('DURABLE_AGENT_CODEC_TOKEN');
    const withToken = await served(['--host', '0.0.0.0'], { DURABLE_AGENT_CODEC_TOKEN: 'codec-token-for-the-test' });
    expect(withToken.stderr).not.toContain('warning');
    expect(withToken.stdout + withToken.stderr).not.toContain('codec-token-for-the-test');
    const loopback = await served([], { DURABLE_AGENT_CODEC_TOKEN: '' });
    expect(loopback.stderr).not.toContain('warning');
  });
});
