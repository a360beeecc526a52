import { ApplicationFailure } from '@temporalio/common';
import type { CheckApprovalsInput, CheckApprovalsOutput } from '../core/run/contract';
import type { AgentRegistry } from '../agents/registry';
import { errorMessage } from './heartbeat';
import type { McpCatalog } from '../integrations/mcp/tools';
import { mcpToolOf } from '../integrations/mcp/activity';
import type { AnyTool } from '../agents/types';
import type { JsonObject } from '../core/messages/json';

/**
 * Evaluate the approval predicates of a step's calls (tools declared with `needsApproval: (args) => …`).
 * Arguments that fail the tool's schema need no approval (the call will fail validation and not run).
 * A predicate that throws asks for approval: when in doubt, a person decides.
 */
export function checkApprovalsActivity(registry: AgentRegistry, mcp?: McpCatalog) {
  return async function checkApprovals(input: CheckApprovalsInput): Promise<CheckApprovalsOutput> {
    return Promise.all(
      input.calls.map(async (call) => {
        let tool;
        try {
          tool = registry.tool(input.agent, call.tool);
        } catch (err) {
          throw ApplicationFailure.nonRetryable(errorMessage(err), 'UnknownAgent');
        }
        tool ??= await mcpToolOf(registry.get(input.agent), call.tool, mcp, { attempt: 0, latencyMs: 0 });
        if (!tool) return { callId: call.callId, needsApproval: false, note: 'unknown tool' };
        const rules = await ruleAnswers(registry, input.agent, tool, call.args);
        return { ...(await toolAnswer(tool, call)), ...(rules ? { rules } : {}) };
      }),
    );
  };
}

/** The answers of the agent's function rules for a call of `tool` (rule id → matches; null: it threw or the arguments are invalid). */
async function ruleAnswers(
  registry: AgentRegistry,
  agent: string,
  tool: AnyTool,
  args: JsonObject,
): Promise<Record<string, boolean | null> | undefined> {
  const fns = (registry.get(agent).approvalRules ?? []).filter(
    (r) => typeof r.when === 'function' && (r.tool === tool.name || r.tool === '*'),
  );
  if (!fns.length) return undefined;
  const parsed = tool.input.safeParse(args);
  const answers: Record<string, boolean | null> = {};
  for (const r of fns) {
    if (!parsed.success) answers[r.id] = null;
    else
      try {
        answers[r.id] = Boolean(await (r.when as (a: JsonObject) => boolean | Promise<boolean>)(parsed.data as JsonObject));
      } catch {
        answers[r.id] = null;
      }
  }
  return answers;
}

/** What the tool's own approval setting says about a call. */
async function toolAnswer(tool: AnyTool, call: CheckApprovalsInput['calls'][number]): Promise<CheckApprovalsOutput[number]> {
  const predicate = tool.needsApproval;
  // Not a predicate: `true`, or approvers named (which implies approval).
  if (typeof predicate !== 'function') return { callId: call.callId, needsApproval: Boolean(predicate) || Boolean(tool.approvers?.length) };
  const parsed = tool.input.safeParse(call.args);
  if (!parsed.success) return { callId: call.callId, needsApproval: false, note: 'invalid arguments' };
  try {
    return { callId: call.callId, needsApproval: Boolean(await predicate(parsed.data)) };
  } catch (err) {
    return { callId: call.callId, needsApproval: true, note: `approval predicate threw: ${errorMessage(err)}` };
  }
}
