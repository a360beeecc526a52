import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileObjectStore } from '../../store/file-objects';
import { MemoryObjectStore } from '../../store/objects';
import { objectStoreContract } from '../helpers/object-store-contract';

objectStoreContract('directory', async () => new FileObjectStore(mkdtempSync(join(tmpdir(), 'durable-agent-objects-'))));
objectStoreContract('memory', async () => new MemoryObjectStore());
