import type { NativeConnection } from '@temporalio/worker';
// Deep import: the type's wire enum for the operator service is not exported from @temporalio/common's root.
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes';
import { SEARCH_ATTRIBUTE_KEYS } from '../workflows/search-attributes';

/**
 * Make sure durable-agent's search attributes exist in the namespace, registering the missing ones.
 * Returns false (runs then skip search attributes) when the server refuses, e.g. for lack of permission.
 */
export async function ensureSearchAttributes(
  connection: NativeConnection,
  namespace: string,
  warn: (message: string) => void,
): Promise<boolean> {
  try {
    const existing = await connection.operatorService.listSearchAttributes({ namespace });
    const known = new Set([...Object.keys(existing.customAttributes ?? {}), ...Object.keys(existing.systemAttributes ?? {})]);
    const missing = SEARCH_ATTRIBUTE_KEYS.filter((k) => !known.has(k.name));
    if (missing.length === 0) return true;
    const searchAttributes: Record<string, number> = {};
    for (const k of missing) searchAttributes[k.name] = encodeSearchAttributeIndexedValueType(k.type) as number;
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
    return true;
  } catch (err) {
    warn(`durable-agent: could not register search attributes (${(err as Error).message}); runs will not be findable by approval state`);
    return false;
  }
}
