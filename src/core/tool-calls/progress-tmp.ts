// TEMPORARY (deleted at the merge of the metrics branch, which owns ToolProgress and boundProgress).
import { jsonBytes } from '../messages/json';

export interface ToolProgress {
  message: string;
  fraction?: number;
  data?: unknown;
}

export function boundProgress(p: ToolProgress): ToolProgress {
  const message = String(p?.message ?? '').slice(0, 500);
  const f = p?.fraction;
  const fraction = typeof f === 'number' && Number.isFinite(f) ? Math.min(1, Math.max(0, f)) : undefined;
  const data = p?.data !== undefined && jsonBytes(p.data) <= 4096 ? p.data : undefined;
  return { message, ...(fraction !== undefined ? { fraction } : {}), ...(data !== undefined ? { data } : {}) };
}
