/**
 * Prompt layers as an agent declares them (`defineAgent({ layers })`): names in a stable order after the
 * base `system` text, stable ones before the prompt-cache breakpoint, and optionally a function that
 * computes a layer before every model call. The functions stay on the worker; the spec records only the
 * order and which layers are computed.
 */
import type { Message } from '../core/messages/messages';
import type { LayerSpec } from '../core/prompt/layers';
import { LAYER_NAME, MAX_LAYERS } from '../core/prompt/layers';
import { DefinitionError } from '../core/run/errors';

/** What a layer function is given: a read-only view of the run as the model call about to be made sees it. */
export interface LayerState {
  agent: string;
  workflowId: string;
  runId: string;
  /** The step whose model call follows (1 for the first call). */
  step: number;
  /** The current values of the agent's layers by name (this layer's last computed value included). */
  layers: Readonly<Record<string, string>>;
  /** The conversation so far, as stored (the whole transcript, not the compacted view). */
  messages: readonly Message[];
  /** Aborted when the model call is cancelled. */
  signal: AbortSignal;
}

/** A function computing a layer's text before each model call; `undefined` (or `''`) leaves the layer out. */
export type LayerFunction = (state: LayerState) => string | undefined | Promise<string | undefined>;

/** One layer of an agent's system prompt. */
export interface LayerDeclaration {
  /** 1–64 letters, digits, `_` or `-`, starting with a letter; unique in the agent. */
  name: string;
  /**
   * Place the layer with the base `system` text, before the prompt-cache breakpoint: for text that rarely
   * changes (memory, tool guidance). Changing a stable layer invalidates the cached prefix. Default false.
   */
  stable?: boolean;
  /**
   * Compute the layer before every model call, on the worker (the value is recorded with the call, so
   * replay never calls it again). Without it the layer is set by tools (`ctx.context.set`) and messages.
   */
  value?: LayerFunction;
}

/**
 * Check an agent's layers and return them in data form (for its spec).
 *
 * @throws {DefinitionError} for a malformed list, a bad or repeated name, or too many layers.
 */
export function checkLayers(agent: string, layers: unknown): LayerSpec[] {
  if (layers === undefined) return [];
  if (!Array.isArray(layers)) throw new DefinitionError(`agent "${agent}": layers must be an array of { name, stable?, value? }`);
  if (layers.length > MAX_LAYERS) throw new DefinitionError(`agent "${agent}": at most ${MAX_LAYERS} layers (got ${layers.length})`);
  const seen = new Set<string>();
  return layers.map((l: unknown, i) => {
    const d = l as Partial<LayerDeclaration> | null;
    if (!d || typeof d !== 'object' || typeof d.name !== 'string' || !LAYER_NAME.test(d.name))
      throw new DefinitionError(
        `agent "${agent}": layer ${i} needs a name of 1-64 letters, digits, _ or - starting with a letter (e.g. { name: 'plan' })`,
      );
    if (seen.has(d.name)) throw new DefinitionError(`agent "${agent}" has two layers named "${d.name}": layer names must be unique`);
    seen.add(d.name);
    if (d.stable !== undefined && typeof d.stable !== 'boolean')
      throw new DefinitionError(`agent "${agent}": layer "${d.name}": stable must be true or false`);
    if (d.value !== undefined && typeof d.value !== 'function')
      throw new DefinitionError(`agent "${agent}": layer "${d.name}": value must be a function of the run's state`);
    return { name: d.name, stable: d.stable === true, ...(d.value ? { computed: true as const } : {}) };
  });
}

/** The agent's layers in data form, as a spec field: absent when it declares none. */
export function layersField(agent: { name: string; layers?: readonly LayerDeclaration[] }): { layers?: LayerSpec[] } {
  const layers = checkLayers(agent.name, agent.layers);
  return layers.length ? { layers } : {};
}
