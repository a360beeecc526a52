/**
 * A blob swapped in the file store under its name never reaches the model: a run waiting for a person, its
 * first user message replaced on disk by plaintext JSON (no key needed), a new worker (empty caches) picks it
 * up after the approval and the run ends `storage_error` naming the blob and the store, with and without
 * encryption keys. On the real dev server.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { KeyringCipher } from '../../src/integrations/encryption/cipher';
import { Keyring } from '../../src/integrations/encryption/keyring';
import type { ModelRequest } from '../../src/core/output/native-output';
import { ScriptedAgents } from '../helpers/agents';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { deploy } from '../helpers/tools';

const PROMPT = 'deploy the web service, PROMPT-6d1e';
const INJECTED = 'INJECTED_BY_STORE_WRITER';

/** Every request the model was sent, as JSON. */
const seen: string[] = [];
const S = new ScriptedAgents();
S.add(
  'swapped',
  (request: ModelRequest) => {
    seen.push(JSON.stringify(request.messages));
    const first = request.messages[0]?.content.map((b) => (b.type === 'text' ? b.text : '')).join('') ?? '';
    return request.messages.some((m) => m.role === 'assistant')
      ? { text: `MODEL SAW: ${first}` }
      : { toolCalls: [{ name: 'deploy', args: { service: 'web' } }] };
  },
  { tools: [deploy] },
);

const keyring = Keyring.parse(`k1:${Buffer.alloc(32, 7).toString('base64')}`);

/** Every blob file of a file store (not claims, not temporary files), by ref. */
function blobFiles(dir: string): Array<{ ref: string; path: string }> {
  const walk = (d: string): string[] =>
    readdirSync(d).flatMap((name) => (statSync(join(d, name)).isDirectory() ? walk(join(d, name)) : [join(d, name)]));
  return walk(dir)
    .map((path) => ({ path, rel: relative(dir, path).split(sep) }))
    .filter(({ rel }) => rel.length === 2 && /^[0-9a-f]{2}$/.test(rel[0]!) && /^[0-9a-f]{62}$/.test(rel[1]!))
    .map(({ path, rel }) => ({ ref: `sha256-${rel[0]}${rel[1]}`, path }));
}

describe.each([
  ['without encryption', undefined],
  ['with encryption keys', keyring],
] as const)('a transcript blob swapped in the file store (%s)', (_name, keys) => {
  const harnesses: Harness[] = [];
  afterAll(async () => {
    for (const h of harnesses) await h.stop().catch(() => undefined);
  });

  it('ends the run storage_error naming the blob and the store after a worker restart; the model never sees the injected text', async () => {
    const storeDir = mkdtempSync(join(tmpdir(), 'durable-agent-store-'));
    const first = await startHarness({
      agents: S.agents,
      providers: { scripted: S.provider },
      storeDir,
      ...(keys ? { encryption: keys } : {}),
    });
    harnesses.push(first);
    const workflowId = testId('swapped');
    const run = await first.client.start('swapped', { input: PROMPT, workflowId });
    for (let i = 0; i < 200 && (await run.pendingApprovals()).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await run.pendingApprovals()).toHaveLength(1);
    await first.stop();

    // The user's message, found by opening every blob (the test holds the keys), replaced by plaintext.
    const cipher = keys ? new KeyringCipher(keys) : undefined;
    const prompts = blobFiles(storeDir).filter(({ path }) => {
      const raw = readFileSync(path);
      const text = Buffer.from(cipher ? cipher.open(raw) : raw).toString('utf8');
      return text.includes('"role":"user"') && text.includes(PROMPT);
    });
    expect(prompts).toHaveLength(1);
    const swapped = prompts[0]!;
    writeFileSync(swapped.path, JSON.stringify({ role: 'user', content: [{ type: 'text', text: INJECTED }] }));

    const second = await startHarness({
      agents: S.agents,
      providers: { scripted: S.provider },
      storeDir,
      taskQueue: first.taskQueue,
      ...(keys ? { encryption: keys } : {}),
    });
    harnesses.push(second);
    const before = seen.length;
    await second.client.get(workflowId).decide({ callId: 'call_1_0', decision: 'approve', by: 'ops:alice' });
    const result = await second.client.get(workflowId).result();

    expect(seen.slice(before).join('\n')).not.toContain(INJECTED);
    expect(JSON.stringify(result)).not.toContain(INJECTED);
    expect(result.status).toBe('storage_error');
    expect(result.error?.message).toContain(`blob ${swapped.ref} in the file store ${storeDir}`);
    expect(result.error?.message).toMatch(
      keys ? /is not sealed, though this store encrypts/ : /holds content whose SHA-256 is [0-9a-f]{64}/,
    );
  });
});
