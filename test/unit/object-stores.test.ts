import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileObjectStore } from '../../store/file-objects';
import { MemoryObjectStore } from '../../store/objects';
import { objectStoreContract } from '../helpers/object-store-contract';

objectStoreContract('directory', async () => new FileObjectStore(mkdtempSync(join(tmpdir(), 'durable-agent-objects-'))));
objectStoreContract('memory', async () => new MemoryObjectStore());

describe('FileObjectStore directories', () => {
  it('writes again after its directory was removed under it (it remembers which directories it made)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'durable-agent-objects-'));
    const store = new FileObjectStore(dir);
    const name = `sha256-${'ab'.repeat(32)}`;
    await store.write('blob', name, new TextEncoder().encode('one'));
    rmSync(dir, { recursive: true, force: true });
    const other = `sha256-ab${'cd'.repeat(31)}`;
    await store.write('blob', other, new TextEncoder().encode('two'));
    expect(new TextDecoder().decode(await store.read('blob', other))).toBe('two');
    expect(await store.read('blob', name)).toBeUndefined();
    rmSync(dir, { recursive: true, force: true });
  });
});
