/** Reading, writing and checking the recorded workflow histories in test/replay/histories/. */
import { readdirSync, readFileSync } from 'node:fs';
import { homedir, hostname, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { HistoryAndWorkflowId } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';

/** Folder of the committed histories. */
export const HISTORIES_DIR = join(__dirname, 'histories');

/** Task queue, worker and client identity used when recording, so histories name no machine. */
export const RECORD_NAME = 'replay-record';

/** Whether `file` (a history file name) records scenario `name`: `<name>.json` or `<name>.<suffix>.json`. */
export function isHistoryOf(file: string, name: string): boolean {
  return file === `${name}.json` || (file.startsWith(`${name}.`) && file.endsWith('.json'));
}

/** History file names, sorted. */
export function historyFiles(dir = HISTORIES_DIR): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort();
}

/** A history file as a replay input; its workflow id is the file's name without `.json`. */
export function loadHistory(file: string, dir = HISTORIES_DIR): HistoryAndWorkflowId {
  return { workflowId: basename(file, '.json'), history: historyFromJSON(JSON.parse(readFileSync(join(dir, file), 'utf8'))) };
}

/** Drop what replay does not use and what would tie a history to a machine: stack traces. */
export function scrub(json: unknown): unknown {
  if (Array.isArray(json)) return json.map(scrub);
  if (json && typeof json === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(json)) out[k] = k === 'stackTrace' ? '' : scrub(v);
    return out;
  }
  return json;
}

/** Every string of a history JSON, with base64 payload data and metadata decoded. */
function strings(json: unknown, key = ''): string[] {
  if (typeof json === 'string') {
    const decoded = key === 'data' || key === 'encoding' ? [Buffer.from(json, 'base64').toString('utf8')] : [];
    return [json, ...decoded];
  }
  if (Array.isArray(json)) return json.flatMap((v) => strings(v, key));
  if (json && typeof json === 'object') {
    return Object.entries(json).flatMap(([k, v]) => strings(v, key === 'metadata' ? 'encoding' : k));
  }
  return [];
}

/** Machine-specific strings found in a history JSON: this checkout's path, home, temp dir, host name. */
export function leaks(json: unknown, root: string): string[] {
  const needles = [root, homedir(), tmpdir(), hostname()].filter((n) => n.length > 3);
  const found = new Set<string>();
  for (const s of strings(json)) for (const n of needles) if (s.includes(n)) found.add(n);
  return [...found];
}

/** What a history JSON holds: its event types (without `EVENT_TYPE_`) and `patch:<id>` for each `patched()` marker. */
export function historyFeatures(json: unknown): Set<string> {
  const events = (json as { events?: Record<string, unknown>[] }).events ?? [];
  const features = new Set<string>();
  for (const e of events) {
    features.add(String(e.eventType).replace(/^EVENT_TYPE_/, ''));
    const marker = e.markerRecordedEventAttributes as
      { markerName?: string; details?: Record<string, { payloads?: { data?: string }[] }> } | undefined;
    if (marker?.markerName !== 'core_patch') continue;
    for (const p of marker.details?.['patch-data']?.payloads ?? []) {
      const id = (JSON.parse(Buffer.from(p.data ?? '', 'base64').toString('utf8')) as { id?: unknown }).id;
      if (typeof id === 'string') features.add(`patch:${id}`);
    }
  }
  return features;
}

/** The entries of `covers` (see `Scenario.covers`) a history JSON lacks. */
export function missingCoverage(json: unknown, covers: readonly string[]): string[] {
  const features = historyFeatures(json);
  return covers.filter((c) => !features.has(c));
}
