import { ApplicationFailure } from '@temporalio/common';
import type { CheckApprovalsInput, CheckApprovalsOutput } from '../core/run/contract';
import type { AgentRegistry } from '../agents/registry';
import { errorMessage } from './heartbeat';
import type { McpCatalog } from '../integrations/mcp/tools';
import { mcpToolOf } from '../integrations/mcp/activity';

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
        const predicate = tool.needsApproval;
        // Not a predicate: `true`, or approvers named (which implies approval).
        if (typeof predicate !== 'function')
          return { callId: call.callId, needsApproval: Boolean(predicate) || Boolean(tool.approvers?.length) };
        const parsed = tool.input.safeParse(call.args);
        if (!parsed.success) return { callId: call.callId, needsApproval: false, note: 'invalid arguments' };
        try {
          return { callId: call.callId, needsApproval: Boolean(await predicate(parsed.data)) };
        } catch (err) {
          return { callId: call.callId, needsApproval: true, note: `approval predicate threw: ${errorMessage(err)}` };
        }
      }),
    );
  };
}
