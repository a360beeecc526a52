/**
 * Prompt layers on the worker: a model call's layer functions evaluated (before the provider is called,
 * their values returned with the call's output, so replay never calls them again) and its system prompt
 * composed; and the `ctx.context` a tool sets layers through.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { CallModelInput, ModelFailureDetails } from '../core/run/contract';
import type { Message } from '../core/messages/messages';
import type { LayerSpec, LayerUpdate } from '../core/prompt/layers';
import { layerProblem } from '../core/prompt/layers';
import { composeSystem } from '../core/prompt/compose';
import type { SystemPart } from '../core/output/native-output';
import type { AgentRegistry } from '../agents/registry';
import type { Agent } from '../agents/define';
import { ToolError } from '../agents/define';
import type { LayerState } from '../agents/layers';
import { checkLayers } from '../agents/layers';
import type { ToolLayers } from '../agents/tool-config';
import { errorMessage } from './heartbeat';
import type { RedactorSource } from './redaction';
import { NO_SECRETS } from './redaction';

/** A model call's composed system prompt, and what its layer functions computed (for the call's output). */
export interface LayeredPrompt {
  /** Spread into the provider's request: the whole system text and its parts (absent: no layers). */
  request: { system?: string; systemParts?: SystemPart[] };
  /** Spread into the call's output. */
  recorded: { layers?: Record<string, string | null> };
}

function layerFailure(message: string, retryable: boolean): ApplicationFailure {
  return ApplicationFailure.create({
    message,
    type: 'PromptLayer',
    nonRetryable: !retryable,
    details: [{ retryable } satisfies ModelFailureDetails],
  });
}

/**
 * Evaluate the call's computed layers (in declared order, each given the others' current values) and
 * compose the system prompt from the base text and every layer.
 *
 * @throws ApplicationFailure `PromptLayer`: retryable when a function throws (the call's retry policy
 * applies), final when a function is missing on this worker or returns something other than a string of
 * at most 16 KiB.
 */
export async function layeredPrompt(
  registry: AgentRegistry | undefined,
  input: CallModelInput,
  base: string | undefined,
  messages: readonly Message[],
  redact: RedactorSource = NO_SECRETS,
): Promise<LayeredPrompt> {
  if (!input.layers?.length) return { request: {}, recorded: {} };
  const computed: Record<string, string | null> = {};
  const functions = input.layers.some((l) => l.computed) ? registry?.get(input.agent).layers : undefined;
  const current: Record<string, string> = {};
  for (const l of input.layers) if (l.value !== undefined) current[l.name] = l.value;
  const ctx = Context.current();
  const info = ctx.info.workflowExecution;
  for (const l of input.layers) {
    if (!l.computed) continue;
    const fn = functions?.find((d) => d.name === l.name)?.value;
    if (!fn) throw layerFailure(`prompt layer "${l.name}" of agent "${input.agent}" has no value function on this worker`, false);
    const state: LayerState = {
      agent: input.agent,
      workflowId: info?.workflowId ?? '',
      runId: info?.runId ?? '',
      step: input.step,
      layers: { ...current },
      messages,
      signal: ctx.cancellationSignal,
    };
    let value: string | undefined;
    try {
      // Known secrets never reach the recorded value (nor the model).
      value = redact().value(await fn(state));
    } catch (err) {
      throw layerFailure(`prompt layer "${l.name}": its value function failed: ${errorMessage(err)}`, true);
    }
    if (value !== undefined && typeof value !== 'string')
      throw layerFailure(`prompt layer "${l.name}": its value function must return a string or undefined`, false);
    const why = layerProblem(input.layers, l.name, value ?? null);
    if (why) throw layerFailure(why, false);
    computed[l.name] = value || null;
    if (value) current[l.name] = value;
    else delete current[l.name];
  }
  return {
    request: composeSystem(base, input.layers, computed),
    recorded: Object.keys(computed).length ? { layers: computed } : {},
  };
}

/**
 * The `ctx.context` of one tool call, and the layers it set (for the activity's output).
 * `set` throws a non-retryable {@link ToolError} for a layer the agent does not declare (naming the ones
 * it does) or a value over 16 KiB: the call fails with that message.
 */
export function toolLayers(agent: Agent): { context: ToolLayers; updates: () => { context?: LayerUpdate[] } } {
  let declared: LayerSpec[] | undefined;
  const set: LayerUpdate[] = [];
  return {
    context: {
      set(name: string, text: string | undefined): void {
        declared ??= checkLayers(agent.name, agent.layers);
        const value = text === undefined || text === '' ? null : text;
        const why = layerProblem(declared, name, value);
        if (why) throw new ToolError(`ctx.context.set: ${why}`, { retryable: false });
        set.push({ name, value });
      },
    },
    updates: () => (set.length ? { context: [...set] } : {}),
  };
}
