import { msToNumber } from '@temporalio/common';
import type { ApprovalSpec } from '../core/approvals/approvals';
import type { AgentSpec, ContextSpec, PromptSpec, ToolSpec } from '../core/run/spec';
import { CONTEXT_DEFAULTS } from '../core/context/context';
import type { ContextWindowTable } from '../integrations/providers/context-windows';
import { contextWindowFor, DEFAULT_CONTEXT_WINDOWS } from '../integrations/providers/context-windows';
import type { Budget } from '../core/budget/budget';
import { DEFAULTS } from '../core/run/spec';
import { DefinitionError, DurableAgentError } from '../core/run/errors';
import type { Agent, Tool } from './define';
import { retrySpec } from './define';
import { toBudget } from './budget-options';
import { guardrailsField } from './guardrails';
import { checkWorkerAgent, describeValue } from './validate';
import { checkAgentMcp } from '../integrations/mcp/server';
import { subAgentsOf } from './sub-agents';
import { approvalRulesField } from './approval-rules';
import { layersField } from './layers';

/** Raised for a name no registered agent has (code `unknown_agent`; `name` is `UnknownAgent`). */
export class UnknownAgentError extends DurableAgentError {
  /** The name asked for. */
  readonly agent: string;
  constructor(name: string, known: readonly string[]) {
    super('unknown_agent', `Unknown agent "${name}". Agents on this worker: ${known.length ? known.join(', ') : '(none)'}.`);
    this.agent = name;
    // Kept from earlier versions: the failure type activities report for it.
    this.name = 'UnknownAgent';
  }
}

/** The agents a worker serves, by name. */
export class AgentRegistry {
  private readonly agents = new Map<string, Agent>();

  /**
   * @throws {DefinitionError} when `agents` is not a list of agents made by `defineAgent` (or of the
   * same shape, tools included), or two agents share a name.
   */
  constructor(agents: readonly Agent[]) {
    if (!Array.isArray(agents))
      throw new DefinitionError(`agents must be an array of agents made by defineAgent, got ${describeValue(agents)}`);
    agents.forEach((given: unknown, i) => {
      const a = checkWorkerAgent(given, i);
      checkAgentMcp(a.name, a.mcp);
      if (this.agents.has(a.name)) throw new DefinitionError(`two agents named "${a.name}": agent names must be unique on a worker`);
      this.agents.set(a.name, a);
    });
    // The agents of agent tools are served too (an agent listed by the same name wins).
    for (const a of subAgentsOf([...this.agents.values()])) {
      if (this.agents.has(a.name)) continue;
      const checked = checkWorkerAgent(a, this.agents.size);
      checkAgentMcp(checked.name, checked.mcp);
      this.agents.set(checked.name, checked);
    }
  }

  /** Names of every agent. */
  names(): string[] {
    return [...this.agents.keys()];
  }

  /** The agent called `name`. */
  get(name: string): Agent {
    const agent = this.agents.get(name);
    if (!agent) throw new UnknownAgentError(name, this.names());
    return agent;
  }

  /** The tool `tool` of agent `agent`, if it has one. */
  tool(agent: string, tool: string): Tool | undefined {
    return this.get(agent).tools.find((t) => t.name === tool);
  }
}

/** The model-facing part of an agent. */
export function promptSpec(agent: Agent): PromptSpec {
  return {
    ...(agent.system ? { system: agent.system } : {}),
    tools: agent.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })),
  };
}

/** The data form of a tool; `earlyByDefault`: its agent's `earlyToolStarts`. */
export function toolSpec(tool: Tool, earlyByDefault = false): ToolSpec {
  const timeoutMs = tool.timeout !== undefined ? msToNumber(tool.timeout) : DEFAULTS.toolTimeoutMs;
  const heartbeatTimeoutMs =
    tool.heartbeatTimeout !== undefined ? msToNumber(tool.heartbeatTimeout) : Math.min(DEFAULTS.toolHeartbeatTimeoutMs, timeoutMs);
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    readOnly: tool.readOnly ?? false,
    timeoutMs,
    heartbeatTimeoutMs,
    retry: retrySpec(tool.retry, DEFAULTS.toolRetry),
    onError: tool.onError ?? 'report',
    ...(needsApprovalSpec(tool) ? { approval: approvalSpec(tool) } : {}),
    ...(tool.builtin ? { builtin: tool.builtin } : {}),
    ...(tool.atMostOnce ? { atMostOnce: true as const } : {}),
    ...(tool.subAgent ? { subAgent: { agent: tool.subAgent.agent } } : {}),
    ...(tool.consolidate ? { consolidate: tool.consolidate.spec } : {}),
    ...(tool.untrusted ? { untrusted: true as const } : {}),
    ...(earlyStartField(tool, earlyByDefault) ? { earlyStart: true as const } : {}),
  };
}

/** Whether a tool's calls may start while the model streams: opted in (itself or by its agent), read-only, a plain activity. */
function earlyStartField(tool: Tool, earlyByDefault: boolean): boolean {
  return (tool.earlyStart ?? earlyByDefault) && tool.readOnly === true && !tool.builtin && !tool.subAgent && !tool.atMostOnce;
}

/** Whether a tool's calls may need a person: it says so, or it names who approves (which implies it). */
function needsApprovalSpec(tool: Tool): boolean {
  return Boolean(tool.needsApproval) || Boolean(tool.approvers?.length);
}

/**
 * The data form of a tool's approval settings. Naming approvers without `needsApproval` means every
 * call asks them (`always`).
 */
export function approvalSpec(tool: Tool): ApprovalSpec {
  const mode = typeof tool.needsApproval === 'function' ? 'conditional' : needsApprovalSpec(tool) ? 'always' : 'never';
  return {
    mode,
    ...(tool.approvers?.length ? { approvers: [...tool.approvers] } : {}),
    ...(tool.approvalTimeout !== undefined ? { timeoutMs: msToNumber(tool.approvalTimeout) } : {}),
    onTimeout: tool.onApprovalTimeout ?? 'deny',
    ...(tool.escalate ? { escalation: { afterMs: msToNumber(tool.escalate.after), to: [...tool.escalate.to] } } : {}),
  };
}

/** The agent's budget in data form, as a spec field: none when it sets no limit (specs without budgets stay as they were). */
function budgetField(agent: Agent): { budget?: Budget } {
  const budget = agent.budget !== undefined ? toBudget(agent.budget) : {};
  return Object.keys(budget).length ? { budget } : {};
}

/**
 * The agent's context settings in data form: its own window, else the table's for its model, and the
 * defaults of the rest.
 */
export function contextSpec(agent: Agent, windows: ContextWindowTable = DEFAULT_CONTEXT_WINDOWS): ContextSpec {
  const o = agent.context ?? {};
  const windowTokens = o.windowTokens ?? contextWindowFor(agent.model.model, windows);
  return {
    ...(windowTokens !== undefined ? { windowTokens } : {}),
    compactAt: o.compactAt ?? CONTEXT_DEFAULTS.compactAt,
    keepRecentTokens:
      o.keepRecentTokens ??
      (windowTokens !== undefined ? Math.floor(windowTokens * CONTEXT_DEFAULTS.keepRecentShare) : CONTEXT_DEFAULTS.keepRecentTokens),
    keepToolResults: o.keepToolResults ?? CONTEXT_DEFAULTS.keepToolResults,
    summarize: o.summarize ?? true,
    ...(o.summaryModel ? { summaryModel: { ...o.summaryModel, maxTokens: o.summaryModel.maxTokens ?? DEFAULTS.maxTokens } } : {}),
    ...(o.summaryPrompt !== undefined ? { summaryPrompt: o.summaryPrompt } : {}),
  };
}

/** The data form of an agent, given where its prompt is stored, whether search attributes are registered, and the worker's context windows. */
export function agentSpec(
  agent: Agent,
  promptRef: string,
  searchAttributes = false,
  windows: ContextWindowTable = DEFAULT_CONTEXT_WINDOWS,
): AgentSpec {
  return {
    name: agent.name,
    models: [agent.model, ...(agent.fallbackModels ?? [])].map((m) => ({ ...m, maxTokens: m.maxTokens ?? DEFAULTS.maxTokens })),
    tools: agent.tools.map((t) => toolSpec(t, agent.earlyToolStarts === true)),
    limits: {
      maxSteps: agent.maxSteps ?? DEFAULTS.maxSteps,
      toolResultInlineBytes: agent.toolResultInlineBytes ?? DEFAULTS.toolResultInlineBytes,
      resultMessagesInlineBytes: agent.resultMessagesInlineBytes ?? DEFAULTS.resultMessagesInlineBytes,
      ...(agent.maxTokensRecoveries ? { maxTokensRecoveries: agent.maxTokensRecoveries } : {}),
      ...(agent.maxTokensRecoveries && agent.recoveryMaxTokens ? { recoveryMaxTokens: agent.recoveryMaxTokens } : {}),
      ...(agent.continueAsNewAfterEvents ? { continueAsNewAfterEvents: agent.continueAsNewAfterEvents } : {}),
      ...(agent.onBudgetExhausted === 'ask' ? { onBudgetExhausted: 'ask' as const } : {}),
    },
    modelRetry: retrySpec(agent.modelRetry, DEFAULTS.modelRetry),
    modelTimeoutMs: agent.modelTimeout !== undefined ? msToNumber(agent.modelTimeout) : DEFAULTS.modelTimeoutMs,
    modelHeartbeatTimeoutMs:
      agent.modelHeartbeatTimeout !== undefined ? msToNumber(agent.modelHeartbeatTimeout) : DEFAULTS.modelHeartbeatTimeoutMs,
    promptRef,
    ...(searchAttributes ? { searchAttributes: true } : {}),
    ...budgetField(agent),
    context: contextSpec(agent, windows),
    ...guardrailsField(agent.guardrails),
    ...layersField(agent),
    ...approvalRulesField(agent.approvalRules),
  };
}
