/**
 * The behaviour every {@link ObjectStore} backend must have, as one vitest suite: run it against each
 * backend (directory, memory, PostgreSQL, S3) with a factory giving a fresh, empty store.
 */
import { describe, expect, it } from 'vitest';
import { AgentStore, BlobIntegrityError, BlobNotFoundError, blobRef, storeName } from '../../src/integrations/store/blob-store';
import type { ObjectStore } from '../../src/integrations/store/objects';
import { KeyringCipher } from '../../src/integrations/encryption/cipher';
import { Keyring } from '../../src/integrations/encryption/keyring';

const bytes = (s: string) => new TextEncoder().encode(s);
const str = (b: Uint8Array | undefined) => (b === undefined ? undefined : new TextDecoder().decode(b));
/** Replace a blob's bytes as someone writing to the backend directly would (a blob write keeps an existing blob). */
const swap = async (s: ObjectStore, ref: string, data: Uint8Array) => {
  await s.remove('blob', ref);
  await s.write('blob', ref, data);
};
const claimName = (i: number) => i.toString(16).padStart(64, '0');

/** Register the contract suite for one backend. `fresh` gives an empty store; the suite closes each one. */
export function objectStoreContract(name: string, fresh: () => Promise<ObjectStore>): void {
  const withStore = async (fn: (s: ObjectStore) => Promise<void>) => {
    const store = await fresh();
    try {
      await fn(store);
    } finally {
      await store.close();
    }
  };

  describe(`${name}: ObjectStore contract`, () => {
    it('reads back what it wrote, byte for byte, and undefined for what it never wrote', () =>
      withStore(async (s) => {
        const data = new Uint8Array([0, 1, 2, 255, 254, 10, 13]);
        const ref = blobRef('binary');
        expect(await s.read('blob', ref)).toBeUndefined();
        await s.write('blob', ref, data);
        expect(Buffer.from((await s.read('blob', ref)) ?? [])).toEqual(Buffer.from(data));
      }));

    it('keeps blobs and claims apart, and write of an existing blob is idempotent', () =>
      withStore(async (s) => {
        const ref = blobRef('x');
        await s.write('blob', ref, bytes('x'));
        await s.write('blob', ref, bytes('x'));
        expect(str(await s.read('blob', ref))).toBe('x');
        expect(await s.read('claim', claimName(1))).toBeUndefined();
      }));

    it("create is atomic: of 16 concurrent creators exactly one wins, and the winner's bytes stay", () =>
      withStore(async (s) => {
        const results = await Promise.all(Array.from({ length: 16 }, (_, i) => s.create('claim', claimName(7), bytes(`taker ${i}`))));
        expect(results.filter(Boolean)).toHaveLength(1);
        const winner = results.indexOf(true);
        expect(str(await s.read('claim', claimName(7)))).toBe(`taker ${winner}`);
        expect(await s.create('claim', claimName(7), bytes('late'))).toBe(false);
      }));

    it('write replaces a claim; remove deletes it and create may take it again', () =>
      withStore(async (s) => {
        expect(await s.create('claim', claimName(2), bytes('first'))).toBe(true);
        await s.write('claim', claimName(2), bytes('settled'));
        expect(str(await s.read('claim', claimName(2)))).toBe('settled');
        await s.remove('claim', claimName(2));
        expect(await s.read('claim', claimName(2))).toBeUndefined();
        await s.remove('claim', claimName(2));
        expect(await s.create('claim', claimName(2), bytes('again'))).toBe(true);
      }));

    it('stores a 3 MB blob', () =>
      withStore(async (s) => {
        const big = 'y'.repeat(3 * 1024 * 1024);
        const ref = blobRef(big);
        await s.write('blob', ref, bytes(big));
        expect((await s.read('blob', ref))?.byteLength).toBe(big.length);
      }));

    it('names no secret in its location', () =>
      withStore(async (s) => {
        expect(s.location).not.toMatch(/:[^/@:]+@/);
      }));

    it('as an AgentStore: blobs by content address, a missing blob names the ref, claims taken once', () =>
      withStore(async (s) => {
        const store = new AgentStore(s);
        const ref = await store.put('hello');
        expect(ref).toBe(blobRef('hello'));
        expect(await store.get(ref)).toBe('hello');
        const missing = blobRef('never stored');
        await expect(store.get(missing)).rejects.toBeInstanceOf(BlobNotFoundError);
        const taken = await Promise.all([1, 2, 3].map((attempt) => store.claim('run/call-1', { attempt, holder: `w${attempt}` })));
        expect(taken.filter((t) => t.kind === 'claimed')).toHaveLength(1);
        expect(taken.filter((t) => t.kind === 'in_doubt')).toHaveLength(2);
        await store.settle('run/call-1', '{"ok":true}');
        expect(await store.claim('run/call-1', { attempt: 4, holder: 'w4' })).toMatchObject({ kind: 'settled', result: '{"ok":true}' });
      }));

    it('as an AgentStore: a blob swapped under its name is refused on read, naming the blob and the store', () =>
      withStore(async (s) => {
        const store = new AgentStore(s);
        const ref = await store.put('{"role":"user","content":"genuine"}');
        await swap(s, ref, bytes('{"role":"user","content":"INJECTED_BY_STORE_WRITER"}'));
        const err: unknown = await store.get(ref).then(
          (text) => text,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(BlobIntegrityError);
        expect(err).toMatchObject({ code: 'storage_error', ref, store: storeName(s) });
        expect((err as Error).message).toContain(ref);
        expect((err as Error).message).toContain(s.location);
        expect((err as Error).message).not.toContain('INJECTED_BY_STORE_WRITER');
      }));

    it('as an AgentStore with a cipher: an unsealed blob is refused (even its genuine text), and so is another sealed blob copied under its name', () =>
      withStore(async (s) => {
        const store = new AgentStore(s, { cipher: new KeyringCipher(Keyring.parse(`k1:${Buffer.alloc(32, 1).toString('base64')}`)) });
        const genuine = '{"role":"user","content":"genuine"}';
        const ref = await store.put(genuine);
        expect(await store.get(ref)).toBe(genuine);
        const other = await store.put('{"role":"user","content":"INJECTED_BY_STORE_WRITER"}');
        for (const swapped of [
          bytes('{"role":"user","content":"INJECTED_BY_STORE_WRITER"}'),
          bytes(genuine),
          (await s.read('blob', other))!,
        ]) {
          await swap(s, ref, swapped);
          await expect(store.get(ref)).rejects.toMatchObject({
            code: 'storage_error',
            ref,
            store: storeName(s),
            message: expect.stringContaining(ref),
          });
        }
        // Its own envelope with one byte of the ciphertext changed: fails authentication, named the same way.
        const sealed = Uint8Array.from((await s.read('blob', other))!);
        sealed[sealed.length - 1]! ^= 1;
        await swap(s, other, sealed);
        const err: unknown = await store.get(other).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(BlobIntegrityError);
        expect(err).toMatchObject({
          code: 'storage_error',
          ref: other,
          store: storeName(s),
          message: expect.stringMatching(/failed authentication/),
        });
      }));
  });
}
