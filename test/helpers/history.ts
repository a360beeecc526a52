import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import type { WorkflowHandle } from '@temporalio/client';

/**
 * Every string in a run's history, with payload data decoded from base64, one per line: what a
 * "this must not appear in history" check has to search (payload bytes are not text in the raw history).
 */
export async function historyText(handle: WorkflowHandle): Promise<string> {
  const out: string[] = [];
  const walk = (v: unknown, key: string): void => {
    if (typeof v === 'string') {
      out.push(v);
      if (key === 'data' || key === 'metadata') out.push(Buffer.from(v, 'base64').toString('utf8'));
    } else if (Array.isArray(v)) v.forEach((x) => walk(x, key));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, key === 'metadata' ? 'metadata' : k);
  };
  walk(JSON.parse(historyToJSON(await handle.fetchHistory())), '');
  return out.join('\n');
}
