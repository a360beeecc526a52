import { msToNumber } from '@temporalio/common';
import type { ApprovalSpec } from '../core/approvals';
import type { AgentSpec, PromptSpec, ToolSpec } from '../core/spec';
import { DEFAULTS } from '../core/spec';
import type { Agent, Tool } from './define';
import { retrySpec } from './define';

/** Raised for a name no registered agent has. */
export class UnknownAgentError extends Error {
  constructor(name: string, known: readonly string[]) {
    super(`Unknown agent "${name}". Agents on this worker: ${known.length ? known.join(', ') : '(none)'}.`);
    this.name = 'UnknownAgent';
  }
}

/** The agents a worker serves, by name. */
export class AgentRegistry {
  private readonly agents = new Map<string, Agent>();

  constructor(agents: readonly Agent[]) {
    for (const a of agents) {
      if (this.agents.has(a.name)) throw new Error(`two agents named "${a.name}"`);
      this.agents.set(a.name, a);
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

/** The data form of a tool. */
export function toolSpec(tool: Tool): ToolSpec {
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
    ...(tool.needsApproval ? { approval: approvalSpec(tool) } : {}),
  };
}

/** The data form of a tool's approval settings. */
export function approvalSpec(tool: Tool): ApprovalSpec {
  return {
    mode: typeof tool.needsApproval === 'function' ? 'conditional' : tool.needsApproval ? 'always' : 'never',
    ...(tool.approvers?.length ? { approvers: [...tool.approvers] } : {}),
    ...(tool.approvalTimeout !== undefined ? { timeoutMs: msToNumber(tool.approvalTimeout) } : {}),
    onTimeout: tool.onApprovalTimeout ?? 'deny',
  };
}

/** The data form of an agent, given where its prompt is stored and whether search attributes are registered. */
export function agentSpec(agent: Agent, promptRef: string, searchAttributes = false): AgentSpec {
  return {
    name: agent.name,
    models: [agent.model, ...(agent.fallbackModels ?? [])].map((m) => ({ ...m, maxTokens: m.maxTokens ?? DEFAULTS.maxTokens })),
    tools: agent.tools.map(toolSpec),
    limits: {
      maxSteps: agent.maxSteps ?? DEFAULTS.maxSteps,
      toolResultInlineBytes: agent.toolResultInlineBytes ?? DEFAULTS.toolResultInlineBytes,
      resultMessagesInlineBytes: agent.resultMessagesInlineBytes ?? DEFAULTS.resultMessagesInlineBytes,
    },
    modelRetry: retrySpec(agent.modelRetry, DEFAULTS.modelRetry),
    modelTimeoutMs: agent.modelTimeout !== undefined ? msToNumber(agent.modelTimeout) : DEFAULTS.modelTimeoutMs,
    modelHeartbeatTimeoutMs:
      agent.modelHeartbeatTimeout !== undefined ? msToNumber(agent.modelHeartbeatTimeout) : DEFAULTS.modelHeartbeatTimeoutMs,
    promptRef,
    ...(searchAttributes ? { searchAttributes: true } : {}),
  };
}
