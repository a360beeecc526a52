/**
 * The demo agent `assistant` and what a worker needs to host it. With `ANTHROPIC_API_KEY` in the
 * worker's environment it uses Claude (model from `DURABLE_AGENT_MODEL`, default `claude-sonnet-5-5`);
 * without it, the offline scripted demo model, which is not an LLM.
 */
import type { Agent } from '../../../src/entry/index';
import { defineAgent } from '../../../src/entry/index';
import type { ModelRef } from '../../../src/entry/client';
import { AnthropicProvider } from '../../../src/entry/anthropic';
import { LOCAL_MODEL_PROVIDER, localModelProvider } from './local-model-provider';
import { LOCAL_MODEL_ID } from '../dev-server/local-model';
import { ScriptedProvider } from '../../../src/entry/worker';
import type { ModelProvider } from '../../../src/entry/index';
import { OFFLINE_MODEL, OFFLINE_PROVIDER, offlineDemoScript } from './offline-model';
import { demoTools } from './tools';

export { OFFLINE_LABEL, OFFLINE_MODEL, OFFLINE_PROVIDER } from './offline-model';
export { calculator, currentTime, demoTools, notesFile, saveNote, wordCount } from './tools';

/** Name of the demo agent. */
export const DEMO_AGENT = 'assistant';
/** Claude model used when `DURABLE_AGENT_MODEL` is not set. */
export const DEFAULT_DEMO_MODEL = 'claude-sonnet-5-5';

/** System prompt of the demo agent (the offline model ignores it). */
export const DEMO_SYSTEM_PROMPT = [
  'You are a concise, helpful assistant running as a durable agent: every model call and tool call is a step of a Temporal workflow.',
  'Use your tools instead of guessing: calculator for any arithmetic (never compute in your head), word_count to count words or characters,',
  'current_time for the date or time (pass an IANA time zone when the user names a place), and save_note only when the user asks you to',
  'save, remember or note something. Call independent read-only tools together in one turn. Answer in a few sentences, citing tool results.',
].join(' ');

/** What a worker needs to host the demo agents. */
export interface DemoWorkerConfig {
  /** The demo agents (`assistant`). */
  agents: Agent[];
  /** Providers to register on the worker: `scripted` (the offline model) always, `anthropic` when a key is set. */
  providers: Record<string, ModelProvider>;
  /** True when the agents use the offline scripted model rather than an LLM. */
  offline: boolean;
  /** The model the demo agents call. */
  model: ModelRef;
}

/** The demo agents for an environment (default: this process's). */
export function demoAgents(env: NodeJS.ProcessEnv = process.env): Agent[] {
  return demoWorkerConfig(env).agents;
}

/**
 * The demo agents and their providers. The offline provider is registered even when a key is set, so
 * runs started offline still finish after the worker restarts with a key.
 */
export function demoWorkerConfig(env: NodeJS.ProcessEnv = process.env): DemoWorkerConfig {
  const offline = !env.ANTHROPIC_API_KEY;
  const model: ModelRef = offline
    ? { provider: OFFLINE_PROVIDER, model: OFFLINE_MODEL }
    : { provider: 'anthropic', model: env.DURABLE_AGENT_MODEL || DEFAULT_DEMO_MODEL, maxTokens: 4096 };
  const assistant = defineAgent({
    name: DEMO_AGENT,
    model,
    system: DEMO_SYSTEM_PROMPT,
    tools: demoTools,
    maxSteps: 12,
  });
  const providers: Record<string, ModelProvider> = { [OFFLINE_PROVIDER]: new ScriptedProvider({ [OFFLINE_MODEL]: offlineDemoScript }) };
  if (!offline) providers.anthropic = new AnthropicProvider(env === process.env ? {} : { apiKey: env.ANTHROPIC_API_KEY as string });
  return { agents: [assistant], providers, offline, model };
}

/**
 * The demo agent on the tiny local model served at `baseURL` (llama.cpp running Gemma 3 270M, see
 * server/local-model.ts): real tool calls from a real model, no key. Short answers and few steps: a
 * 270M base model picks a tool and its arguments reasonably often, and writes weak prose.
 */
export function demoLocalModelConfig(baseURL: string): DemoWorkerConfig {
  const model: ModelRef = { provider: LOCAL_MODEL_PROVIDER, model: LOCAL_MODEL_ID, maxTokens: 96 };
  const assistant = defineAgent({ name: DEMO_AGENT, model, tools: demoTools, maxSteps: 4, modelTimeout: '120s' });
  return { agents: [assistant], providers: { [LOCAL_MODEL_PROVIDER]: localModelProvider(baseURL) }, offline: false, model };
}
