/** Keys, the AES-256-GCM envelope, the payload codec and the codec server's routes (no network). */
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { METADATA_ENCODING_KEY } from '@temporalio/common';
import type { Payload } from '@temporalio/common';
import { defaultPayloadConverter } from '@temporalio/common';
import { payloadToJSON } from '@temporalio/common/lib/proto-utils';
import { isDurableAgentError } from '../../src/core/run/errors';
import { DecryptionError, KeyringCipher, isSealed, open, seal, sealedKeyId } from '../../src/integrations/encryption/cipher';
import { createCodecApp, exposedCodecWarning, isLoopbackHost } from '../../apps/cli/codec-server';
import { EncryptionConfigError, Keyring, KEYS_ENV } from '../../src/integrations/encryption/keyring';
import { ENCRYPTED_ENCODING, EncryptionCodec, KEY_ID_METADATA } from '../../src/integrations/encryption/payload-codec';
import { resolveKeyring } from '../../src/integrations/encryption/setting';
import { AgentStore, claimName } from '../../src/integrations/store/blob-store';
import { MemoryObjectStore } from '../../src/integrations/store/objects';

const K1 = Buffer.alloc(32, 1).toString('base64');
const K2 = Buffer.alloc(32, 2).toString('base64');
const OTHER = Buffer.alloc(32, 9).toString('base64');
const utf8 = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');

function configError(spec: string): EncryptionConfigError {
  try {
    Keyring.parse(spec);
  } catch (err) {
    expect(err).toBeInstanceOf(EncryptionConfigError);
    expect(isDurableAgentError(err, 'invalid_config')).toBe(true);
    return err as EncryptionConfigError;
  }
  throw new Error(`expected ${JSON.stringify(spec)} to be refused`);
}

function thrown(fn: () => unknown): DecryptionError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DecryptionError);
    return err as DecryptionError;
  }
  throw new Error('expected an error');
}

describe('Keyring', () => {
  it('parses id:base64 pairs; the first key seals; spaces are allowed', () => {
    const ring = Keyring.parse(` k2:${K2} , k1:${K1}`);
    expect(ring.primaryId).toBe('k2');
    expect(ring.ids).toEqual(['k2', 'k1']);
    expect(ring.key('k1')).toEqual(Buffer.alloc(32, 1));
    expect(ring.key('k3')).toBeUndefined();
  });

  it('refuses bad settings with invalid_config errors that name the entry and never show key material', () => {
    const cases: Array<[string, RegExp]> = [
      ['', /DURABLE_AGENT_KEYS is empty/],
      [' , ', /is empty/],
      [K1, /key 1 is not of the form id:base64key/],
      [`k1:${K1},${K2}`, /key 2 is not of the form/],
      [`bad id:${K1}`, /key 1: the key id is invalid/],
      [`:${K1}`, /key 1: the key id is empty/],
      [`${K1.slice(0, 20)}+/:k1`, /key 1: the key id is invalid/], // key and id swapped: the "id" is not shown
      [`k1:${K1},k1:${K2}`, /key 2: key id "k1" appears twice/],
      [`k1:${Buffer.alloc(31, 1).toString('base64')}`, /id "k1"\): the key is 31 bytes, AES-256 needs exactly 32/],
      [`k1:${Buffer.alloc(33, 1).toString('base64')}`, /the key is 33 bytes/],
      ['k1:not base64!', /id "k1"\): the key is not base64/],
    ];
    for (const [spec, message] of cases) {
      const err = configError(spec);
      expect(err.message).toMatch(message);
      expect(err.message).toContain(KEYS_ENV);
      for (const secret of [K1, K2, K1.slice(0, 20)]) expect(err.message).not.toContain(secret);
    }
  });

  it('never prints key material (JSON, inspect)', () => {
    const ring = Keyring.parse(`k1:${K1}`);
    expect(JSON.stringify(ring)).toBe('{"keyIds":["k1"]}');
    expect(inspect(ring)).not.toContain(K1);
    expect(inspect(ring)).toContain('k1');
  });

  it('comes from DURABLE_AGENT_KEYS when set; the encryption option overrides it', () => {
    expect(Keyring.fromEnv({})).toBeUndefined();
    expect(Keyring.fromEnv({ [KEYS_ENV]: '  ' })).toBeUndefined();
    expect(Keyring.fromEnv({ [KEYS_ENV]: `k1:${K1}` })?.primaryId).toBe('k1');
    expect(() => Keyring.fromEnv({ [KEYS_ENV]: 'k1:short' })).toThrow(/the key is 3 bytes/);
    expect(resolveKeyring(false, { [KEYS_ENV]: `k1:${K1}` })).toBeUndefined();
    expect(resolveKeyring(undefined, { [KEYS_ENV]: `k1:${K1}` })?.ids).toEqual(['k1']);
    const given = Keyring.parse(`k9:${K2}`);
    expect(resolveKeyring(given, { [KEYS_ENV]: `k1:${K1}` })).toBe(given);
    expect(Buffer.from(Keyring.generateKey(), 'base64')).toHaveLength(32);
  });
});

describe('the envelope (AES-256-GCM)', () => {
  const old = Keyring.parse(`k1:${K1}`);
  const rotated = Keyring.parse(`k2:${K2},k1:${K1}`);

  it('round-trips; each sealing uses a fresh IV; the plaintext is not in the bytes', () => {
    const a = seal(old, utf8('the secret plan'));
    const b = seal(old, utf8('the secret plan'));
    expect(isSealed(a)).toBe(true);
    expect(Buffer.compare(a, b)).not.toBe(0);
    expect(a.toString('latin1')).not.toContain('secret');
    expect(text(open(old, a))).toBe('the secret plan');
  });

  it('rotation: new content is sealed with the first key; content sealed with an old key still opens', () => {
    const before = seal(old, utf8('sealed under k1'));
    const after = seal(rotated, utf8('sealed under k2'));
    expect(sealedKeyId(before)).toBe('k1');
    expect(sealedKeyId(after)).toBe('k2');
    expect(text(open(rotated, before))).toBe('sealed under k1');
    expect(text(open(rotated, after))).toBe('sealed under k2');
  });

  it('an unknown key id is a clear invalid_config error naming the id and DURABLE_AGENT_KEYS', () => {
    const onlyNew = Keyring.parse(`k2:${K2}`);
    const err = thrown(() => open(onlyNew, seal(old, utf8('x')), 'a blob'));
    expect(err.code).toBe('invalid_config');
    expect(err.keyId).toBe('k1');
    expect(err.message).toMatch(
      /a blob is encrypted with key id "k1", which this process does not hold \(it holds "k2"\): add that key to DURABLE_AGENT_KEYS/,
    );
    expect(err.message).not.toContain(K2);
  });

  it('tampering anywhere (key id, IV, tag, ciphertext) fails authentication', () => {
    const sealed = seal(old, utf8('do not touch'));
    const sameLengthId = Keyring.parse(`k1:${K1},k0:${K2}`);
    for (let i = 6; i < sealed.length; i++) {
      const copy = Buffer.from(sealed);
      copy[i]! ^= i === 7 ? 0x01 : 0x80; // byte 7 is the key id "1" → "0": a key this keyring holds
      const err = thrown(() => open(sameLengthId, copy));
      expect(err.code, `byte ${i}`).toBe('storage_error');
      expect(err.message).toMatch(/failed authentication: it was altered, or DURABLE_AGENT_KEYS holds a different key under that id/);
    }
    expect(thrown(() => open(old, sealed.subarray(0, 20))).message).toMatch(/truncated envelope/);
    const v2 = Buffer.from(sealed);
    v2[4] = 2;
    expect(thrown(() => open(old, v2)).message).toMatch(/envelope version 2/);
  });

  it('a different key under the same id fails authentication, not with garbage', () => {
    const impostor = Keyring.parse(`k1:${OTHER}`);
    expect(thrown(() => open(impostor, seal(old, utf8('x')))).code).toBe('storage_error');
  });

  it('KeyringCipher passes through bytes that are not an envelope (content stored before encryption)', () => {
    const cipher = new KeyringCipher(old);
    expect(text(cipher.open(utf8('{"role":"user"}')))).toBe('{"role":"user"}');
    expect(text(cipher.open(new Uint8Array()))).toBe('');
    expect(text(cipher.open(cipher.seal(utf8('sealed'))))).toBe('sealed');
  });

  it('a store with the cipher keeps no plaintext, refuses a blob that is not sealed (stored before, or swapped in), and rotates', async () => {
    const objects = new MemoryObjectStore();
    const plainStore = new AgentStore(objects);
    const legacy = await plainStore.put('written before encryption');
    const v1 = new AgentStore(objects, { cipher: new KeyringCipher(old) });
    const sealedRef = await v1.put('the secret transcript');
    const raw = await objects.read('blob', sealedRef);
    expect(raw && isSealed(raw)).toBe(true);
    expect(Buffer.from(raw!).toString('latin1')).not.toContain('secret');
    const v2 = new AgentStore(objects, { cipher: new KeyringCipher(rotated) });
    await expect(v2.get(legacy)).rejects.toThrow(
      new RegExp(`blob ${legacy} in the memory store is not sealed, though this store encrypts`),
    );
    expect(await v2.get(sealedRef)).toBe('the secret transcript');
    const fresh = await v2.put('after rotation');
    expect(sealedKeyId((await objects.read('blob', fresh))!)).toBe('k2');
    await expect(v1.get(fresh)).rejects.toThrow(/key id "k2", which this process does not hold/);
    await expect(plainStore.get(sealedRef)).rejects.toThrow(/is encrypted, and this store has no keys to open it: set DURABLE_AGENT_KEYS/); // no keys: no plaintext, no garbage
  });
});

describe('claims in a store with the cipher', () => {
  it('a claim that is not sealed (swapped in) is in doubt: its recorded result is never returned, the call never runs again', async () => {
    const objects = new MemoryObjectStore();
    const store = new AgentStore(objects, { cipher: new KeyringCipher(Keyring.parse(`k1:${K1}`)) });
    const forged = {
      v: 1,
      key: 'run/call-1',
      attempt: 1,
      holder: 'w1',
      at: '2026-01-01T00:00:00.000Z',
      result: 'INJECTED_BY_STORE_WRITER',
    };
    await objects.write('claim', claimName('run/call-1'), utf8(JSON.stringify(forged)));
    const found = await store.claim('run/call-1', { attempt: 2, holder: 'w2' });
    expect(found.kind).toBe('in_doubt');
    expect(JSON.stringify(found)).not.toContain('INJECTED_BY_STORE_WRITER');
  });
});

describe('EncryptionCodec', () => {
  const old = Keyring.parse(`k1:${K1}`);
  const rotated = Keyring.parse(`k2:${K2},k1:${K1}`);
  const payload = (value: unknown): Payload => defaultPayloadConverter.toPayload(value);
  const meta = (p: Payload, key: string) => text(p.metadata![key]!);

  it('encrypts whole payloads (metadata too) under the first key, and decodes them back', async () => {
    const inner = payload({ prompt: 'the secret prompt' });
    const [encoded] = await new EncryptionCodec(rotated).encode([inner]);
    expect(meta(encoded!, METADATA_ENCODING_KEY)).toBe(ENCRYPTED_ENCODING);
    expect(meta(encoded!, KEY_ID_METADATA)).toBe('k2');
    expect(Object.keys(encoded!.metadata!).sort()).toEqual([METADATA_ENCODING_KEY, KEY_ID_METADATA].sort());
    expect(Buffer.from(encoded!.data!).toString('latin1')).not.toMatch(/secret|json\/plain/);
    const [decoded] = await new EncryptionCodec(rotated).decode([encoded!]);
    expect(defaultPayloadConverter.fromPayload(decoded!)).toEqual({ prompt: 'the secret prompt' });
    expect(meta(decoded!, METADATA_ENCODING_KEY)).toBe('json/plain');
  });

  it('rotation: payloads encoded under an old key still decode', async () => {
    const [encoded] = await new EncryptionCodec(old).encode([payload('old run')]);
    const [decoded] = await new EncryptionCodec(rotated).decode([encoded!]);
    expect(defaultPayloadConverter.fromPayload(decoded!)).toBe('old run');
  });

  it('passes through payloads of other encodings (runs recorded before encryption)', async () => {
    const plain = [payload({ a: 1 }), payload(null), payload(new Uint8Array([1, 2]))];
    expect(await new EncryptionCodec(rotated).decode(plain)).toEqual(plain);
    expect(await new EncryptionCodec(undefined).encode(plain)).toEqual(plain);
  });

  it('without keys, or without the right key, decoding fails with an error naming the key id and DURABLE_AGENT_KEYS', async () => {
    const [encoded] = await new EncryptionCodec(rotated).encode([payload('x')]);
    await expect(new EncryptionCodec(undefined).decode([encoded!])).rejects.toThrow(
      /a Temporal payload is encrypted with key id "k2" and this process has no encryption keys: set DURABLE_AGENT_KEYS/,
    );
    await expect(new EncryptionCodec(old).decode([encoded!])).rejects.toMatchObject({ code: 'invalid_config', keyId: 'k2' });
  });

  it('a payload whose data was replaced or altered fails, never decodes to garbage', async () => {
    const [encoded] = await new EncryptionCodec(old).encode([payload('x')]);
    const flipped = Buffer.from(encoded!.data!);
    flipped[flipped.length - 1]! ^= 1;
    await expect(new EncryptionCodec(old).decode([{ ...encoded!, data: flipped }])).rejects.toMatchObject({ code: 'storage_error' });
    await expect(new EncryptionCodec(old).decode([{ ...encoded!, data: utf8('"plain"') }])).rejects.toThrow(
      /does not hold a durable-agent envelope/,
    );
  });
});

describe('the codec server routes', () => {
  const keyring = Keyring.parse(`k2:${K2},k1:${K1}`);
  const UI = 'http://localhost:8233';
  const post = (app: ReturnType<typeof createCodecApp>, path: string, body: unknown, headers: Record<string, string> = {}) =>
    app.request(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: UI, ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('encodes and decodes { payloads } in protobuf JSON, at / and under /<namespace>/', async () => {
    const app = createCodecApp({ keyring, corsOrigins: [UI] });
    const plain = payloadToJSON(defaultPayloadConverter.toPayload({ tool: 'secret args' }));
    const enc = await post(app, '/encode', { payloads: [plain] });
    expect(enc.status).toBe(200);
    const encoded = ((await enc.json()) as { payloads: Array<{ metadata: Record<string, string>; data: string }> }).payloads;
    expect(Buffer.from(encoded[0]!.metadata.encoding!, 'base64').toString()).toBe(ENCRYPTED_ENCODING);
    expect(Buffer.from(encoded[0]!.data, 'base64').toString('latin1')).not.toContain('secret');
    for (const path of ['/decode', '/default/decode']) {
      const dec = await post(app, path, { payloads: encoded }, { 'X-Namespace': 'default' });
      expect(dec.status).toBe(200);
      expect(dec.headers.get('access-control-allow-origin')).toBe(UI);
      expect(await dec.json()).toEqual({ payloads: [plain] });
    }
  });

  it('answers the UI preflight with the allowed origin, methods and headers; not other origins', async () => {
    const app = createCodecApp({ keyring, corsOrigins: [UI], token: 'tok' });
    const preflight = await app.request('/decode', {
      method: 'OPTIONS',
      headers: {
        Origin: UI,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type,x-namespace,authorization',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(UI);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toMatch(
      /x-namespace.*authorization|authorization.*x-namespace/,
    );
    expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');
    const elsewhere = await app.request('/decode', {
      method: 'OPTIONS',
      headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' },
    });
    expect(elsewhere.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('with a token, refuses requests without it (401), accepts the bearer', async () => {
    const app = createCodecApp({ keyring, token: 'tok' });
    expect((await post(app, '/decode', { payloads: [] })).status).toBe(401);
    expect((await post(app, '/decode', { payloads: [] }, { Authorization: 'Bearer nope' })).status).toBe(401);
    const ok = await post(app, '/decode', { payloads: [] }, { Authorization: 'Bearer tok' });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ payloads: [] });
  });

  it('says what is wrong: a malformed body (400), a payload sealed with a key it does not hold (422)', async () => {
    const app = createCodecApp({ keyring: Keyring.parse(`k1:${K1}`) });
    expect((await post(app, '/decode', 'not json')).status).toBe(400);
    const noPayloads = await post(app, '/decode', { items: [] });
    expect(noPayloads.status).toBe(400);
    expect(await noPayloads.json()).toMatchObject({ error: expect.stringMatching(/\{"payloads": \[\.\.\.\]\}/) as unknown });
    const [sealedK2] = await new EncryptionCodec(keyring).encode([defaultPayloadConverter.toPayload('x')]);
    const res = await post(app, '/decode', { payloads: [payloadToJSON(sealedK2!)] });
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({
      code: 'invalid_config',
      error: expect.stringMatching(/key id "k2".*DURABLE_AGENT_KEYS/) as unknown,
    });
    expect((await app.request('/nothing', { method: 'POST' })).status).toBe(404);
  });
});

describe('the codec server exposure warning', () => {
  it('knows loopback hosts from every-interface and public ones', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', '::1', '[::1]', '::ffff:127.0.0.1'])
      expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['0.0.0.0', '::', '[::]', '10.0.0.5', '192.168.1.2', 'codec.internal', '128.0.0.1'])
      expect(isLoopbackHost(h), h).toBe(false);
  });

  it('warns only beyond loopback without a token', () => {
    expect(exposedCodecWarning('0.0.0.0', false)).toMatch(/^warning: the codec server listens on 0\.0\.0\.0 without a bearer token/);
    expect(exposedCodecWarning('0.0.0.0', true)).toBeUndefined();
    expect(exposedCodecWarning('127.0.0.1', false)).toBeUndefined();
  });
});
