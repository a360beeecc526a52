/** Shared builders for the unit tests of the pure core modules (state, plan, transitions, outcomes, report). */
import { expect } from 'vitest';
import type { AgentEventBody } from '../../src/core/events/events';
import type { JsonValue } from '../../src/core/messages/json';
import type { AssistantContent, Message, ToolResultBlock, ToolUseBlock } from '../../src/core/messages/messages';
import type { StopReason } from '../../src/core/output/native-output';
import type { ToolOutcome } from '../../src/core/tool-calls/outcomes';
import type { PlannedCall } from '../../src/core/tool-calls/plan';
import type { AgentSpec, ToolErrorPolicy, ToolSpec } from '../../src/core/run/spec';
import type { ModelStep } from '../../src/core/loop/state';
import type { Usage } from '../../src/core/budget/usage';

export const RETRY = { maximumAttempts: 3, initialIntervalMs: 1000, backoffCoefficient: 2, maximumIntervalMs: 30_000 };

export function toolSpec(name: string, readOnly: boolean, onError: ToolErrorPolicy = 'report'): ToolSpec {
  return {
    name,
    description: `the ${name} tool`,
    inputSchema: { type: 'object', properties: {} },
    readOnly,
    timeoutMs: 60_000,
    heartbeatTimeoutMs: 10_000,
    retry: RETRY,
    onError,
  };
}

export const READ = toolSpec('read', true);
export const WRITE = toolSpec('write', false);

export function agentSpec(tools: ToolSpec[] = [READ, WRITE], maxSteps = 5): AgentSpec {
  return {
    name: 'tester',
    models: [{ provider: 'scripted', model: 'm' }],
    tools,
    limits: { maxSteps, toolResultInlineBytes: 1024 },
    modelRetry: RETRY,
    modelTimeoutMs: 60_000,
    modelHeartbeatTimeoutMs: 10_000,
    promptRef: 'sha256-prompt',
  };
}

export function usage(inputTokens: number, outputTokens: number, cacheReadTokens = 0, cacheWriteTokens = 0): Usage {
  return { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens };
}

/** A tool_use block; `input` is kept exactly as given (it need not be an object). */
export function use(id: string, name: string, input: JsonValue = {}, incomplete = false): ToolUseBlock {
  return { type: 'tool_use', id, name, input, ...(incomplete ? { incomplete: true as const } : {}) };
}

let heads = 0;
export function modelStep(content: AssistantContent[], stopReason?: StopReason, u: Usage = usage(10, 5)): ModelStep {
  return {
    head: `sha256-head${++heads}`,
    message: { role: 'assistant', content },
    stopReason: stopReason ?? (content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn'),
    usage: u,
    provider: 'scripted',
    model: 'm',
    latencyMs: 42,
    attempts: 1,
  };
}

/** A successful outcome (override anything with `extra`). */
export function ok(callId: string, tool: string, text: string, extra: Partial<ToolOutcome> = {}): ToolOutcome {
  return { callId, tool, output: { type: 'text', text }, isError: false, latencyMs: 7, attempts: 1, ...extra };
}

export function planned(callId: string, tool: ToolSpec): PlannedCall {
  return { step: 1, callId, tool, args: {} };
}

/** The transcript rule: every tool_use is answered, in the next (user) message, in call order, exactly once. */
export function expectEveryCallAnswered(messages: readonly Message[]): void {
  messages.forEach((m, i) => {
    if (m.role !== 'assistant') return;
    const ids = m.content.filter((b): b is ToolUseBlock => b.type === 'tool_use').map((b) => b.id);
    if (ids.length === 0) return;
    const reply = messages[i + 1];
    expect(reply?.role, `message ${i} has tool calls but no reply`).toBe('user');
    const results = (reply?.content ?? []).filter((b): b is ToolResultBlock => b.type === 'tool_result').map((b) => b.toolUseId);
    expect(results).toEqual(ids);
  });
}

export function types(events: readonly AgentEventBody[]): string[] {
  return events.map((e) => e.type);
}
