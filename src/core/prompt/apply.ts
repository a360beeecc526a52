/**
 * How layer changes enter the loop state: a step's tool calls in the order the model made them (the last
 * set of a name wins), messages in the order they arrived, and what layer functions computed for a model
 * call. Values set after step N's call are first sent with step N+1's.
 */
import type { UserMessageInput } from '../messages/user-messages';
import type { ToolUseBlock } from '../messages/messages';
import type { LoopState, ModelStep } from '../loop/state';
import type { ToolOutcome } from '../tool-calls/outcomes';
import type { AgentSpec } from '../run/spec';
import type { LayerUpdate } from './layers';
import { applyLayerUpdates, layerUpdatesOf } from './layers';

function withLayers(
  state: LoopState,
  spec: Pick<AgentSpec, 'layers'>,
  updates: readonly LayerUpdate[],
  source: 'tool' | 'message' | 'function',
  step: number,
): LoopState {
  const layers = applyLayerUpdates(state.layers, spec.layers, updates, source, step);
  if (layers === state.layers) return state;
  return { ...state, layers };
}

/** The state with the layers a step's tool calls set, in call order (whatever order they completed in). */
export function withToolLayers(
  state: LoopState,
  spec: Pick<AgentSpec, 'layers'>,
  calls: readonly ToolUseBlock[],
  outcomes: readonly ToolOutcome[],
): LoopState {
  const byId = new Map(outcomes.map((o) => [o.callId, o]));
  const updates = calls.flatMap((c) => byId.get(c.id)?.context ?? []);
  return withLayers(state, spec, updates, 'tool', state.step);
}

/** The state with the layers messages set (`send({ text, context })`), in the order they arrived. */
export function withMessageLayers(
  state: LoopState,
  spec: Pick<AgentSpec, 'layers'>,
  messages: ReadonlyArray<{ message: UserMessageInput }>,
): LoopState {
  const updates = messages.flatMap((m) => layerUpdatesOf(m.message.context));
  return withLayers(state, spec, updates, 'message', state.step);
}

/** The state with what the agent's layer functions computed for step `step`'s model call. */
export function withComputedLayers(
  state: LoopState,
  spec: Pick<AgentSpec, 'layers'>,
  out: Pick<ModelStep, 'layers'>,
  step: number,
): LoopState {
  return withLayers(state, spec, layerUpdatesOf(out.layers), 'function', step);
}
