import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileObjectStore, SYNC_WRITE_MAX_BYTES } from '../../src/integrations/store/file-objects';
import { MemoryObjectStore } from '../../src/integrations/store/objects';
import { objectStoreContract } from '../helpers/object-store-contract';

objectStoreContract('directory', async () => new FileObjectStore(mkdtempSync(join(tmpdir(), 'durable-agent-objects-'))));
objectStoreContract('memory', async () => new MemoryObjectStore());

describe('FileObjectStore directories', () => {
  // Small blobs are written with synchronous calls, large ones through fs/promises: both paths.
  const sizes = { small: 3, large: SYNC_WRITE_MAX_BYTES + 1 };
  for (const [label, bytes] of Object.entries(sizes)) {
    it(`writes a ${label} blob again after its directory was removed under it (it remembers which directories it made)`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'durable-agent-objects-'));
      const store = new FileObjectStore(dir);
      const name = `sha256-${'ab'.repeat(32)}`;
      await store.write('blob', name, new Uint8Array(bytes).fill(1));
      rmSync(dir, { recursive: true, force: true });
      const other = `sha256-ab${'cd'.repeat(31)}`;
      await store.write('blob', other, new Uint8Array(bytes).fill(2));
      expect(new Uint8Array((await store.read('blob', other))!)).toEqual(new Uint8Array(bytes).fill(2));
      expect(await store.read('blob', name)).toBeUndefined();
      // Written whole, then renamed: no temporary file is left beside it.
      expect(readdirSync(join(dir, 'ab'))).toEqual([`${'cd'.repeat(31)}`]);
      rmSync(dir, { recursive: true, force: true });
    });
  }
});
