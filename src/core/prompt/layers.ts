/**
 * Prompt layers: named parts of the system prompt, after the agent's base `system` text, in the order the
 * agent declares them, whose values change during a run (a tool sets one, a message sets one, or a
 * function of the run's state computes one before each model call). Pure rules: which names are declared,
 * how big a value may be, how updates apply to the loop's state, and what the report shows of them.
 */
import { utf8Bytes } from '../messages/json';

/** The longest value of a layer, in UTF-8 bytes (values travel inline in activity inputs and the loop state). */
export const MAX_LAYER_BYTES = 16 * 1024;
/** At most this many layers per agent. */
export const MAX_LAYERS = 16;
/** Layer names: 1–64 characters of letters, digits, `_` and `-`, starting with a letter. */
export const LAYER_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/** A declared layer, as recorded in the agent's spec: its name, where it goes, and whether a function computes it. */
export interface LayerSpec {
  name: string;
  /** Placed before the prompt-cache breakpoint with the base `system` text (change it rarely). */
  stable: boolean;
  /** A function of the run's state computes it before every model call (on the worker, recorded). */
  computed?: true;
}

/** Who set a layer's current value. */
export type LayerSource = 'tool' | 'message' | 'function';

/** A layer's current value in the loop state. */
export interface PromptLayer {
  value: string;
  source: LayerSource;
  /** The step (model calls completed) when it was set: a value set at step 2 is first seen by step 3's call. */
  setAtStep: number;
}

/** Current values by layer name (a cleared layer has no entry). */
export type LayerValues = Record<string, PromptLayer>;

/** One change of a layer: a new text, or `null` to clear it. */
export interface LayerUpdate {
  name: string;
  value: string | null;
}

/** A declared layer with its current text, in declared order: what a model call is sent. */
export interface LayerInput extends LayerSpec {
  value?: string;
}

/** What the report shows of a layer: never its text. */
export interface LayerReport {
  name: string;
  source: LayerSource;
  setAtStep: number;
  /** UTF-8 bytes of the value. */
  bytes: number;
  /** FNV-1a (32-bit, hex) of the value: equal values give equal hashes. */
  hash: string;
}

/** Why an update cannot apply (`undefined`: it can): an undeclared name (naming the declared ones) or a value too large. */
export function layerProblem(declared: readonly Pick<LayerSpec, 'name'>[], name: string, value: string | null): string | undefined {
  if (!declared.some((l) => l.name === name)) {
    const names = declared.map((l) => l.name);
    return `unknown prompt layer "${name}": ${names.length ? `this agent declares ${names.join(', ')}` : 'this agent declares no layers'}`;
  }
  if (value === null) return undefined;
  if (typeof value !== 'string') return `prompt layer "${name}" must be a string or null`;
  const bytes = utf8Bytes(value);
  if (bytes > MAX_LAYER_BYTES) return `prompt layer "${name}" is ${bytes} bytes, over the limit of ${MAX_LAYER_BYTES}`;
  return undefined;
}

/**
 * The layer values after `updates`, in order (the last update of a name wins), in declared order; updates
 * of names the agent does not declare are skipped (they were refused where they were made). Returns
 * `values` itself when there is nothing to apply.
 */
export function applyLayerUpdates(
  values: LayerValues | undefined,
  declared: readonly LayerSpec[] | undefined,
  updates: readonly LayerUpdate[],
  source: LayerSource,
  step: number,
): LayerValues | undefined {
  if (updates.length === 0 || !declared?.length) return values;
  const next: LayerValues = { ...values };
  for (const u of updates) {
    if (layerProblem(declared, u.name, u.value) !== undefined) continue;
    if (u.value === null || u.value === '') delete next[u.name];
    else next[u.name] = { value: u.value, source, setAtStep: step };
  }
  // Kept in declared order (the report lists them so).
  const ordered: LayerValues = {};
  for (const l of declared) if (next[l.name]) ordered[l.name] = next[l.name]!;
  return ordered;
}

/** Updates as a record (`{ facts: '…', plan: null }`) become a list in key order. */
export function layerUpdatesOf(record: Readonly<Record<string, string | null>> | undefined): LayerUpdate[] {
  return record ? Object.entries(record).map(([name, value]) => ({ name, value })) : [];
}

/** The declared layers with their current values, in declared order: the `layers` of a model call's input. */
export function layerInputs(declared: readonly LayerSpec[] | undefined, values: LayerValues | undefined): LayerInput[] | undefined {
  if (!declared?.length) return undefined;
  return declared.map((l) => {
    const v = values?.[l.name];
    return { ...l, ...(v ? { value: v.value } : {}) };
  });
}

/** What the report shows of the layers set now, in declared order. */
export function layerReports(declared: readonly LayerSpec[] | undefined, values: LayerValues | undefined): LayerReport[] {
  if (!values) return [];
  const order = declared?.map((l) => l.name) ?? [];
  const names = [...order.filter((n) => values[n]), ...Object.keys(values).filter((n) => !order.includes(n))];
  return names.map((name) => {
    const v = values[name]!;
    return { name, source: v.source, setAtStep: v.setAtStep, bytes: utf8Bytes(v.value), hash: fnv1a(v.value) };
  });
}

/** FNV-1a, 32 bits, over the UTF-16 code units of `text` (no Node APIs), as 8 hex digits. */
export function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/** The `layers` field of a model call's input: absent when the agent declares no layers (inputs stay as they were). */
export function layersInput(spec: { layers?: readonly LayerSpec[] }, loop: { layers?: LayerValues }): { layers?: LayerInput[] } {
  const layers = layerInputs(spec.layers, loop.layers);
  return layers ? { layers } : {};
}
