/**
 * The client's early check of a run policy, when it holds the agent's definition: the same rules the
 * workflow enforces (`core/run-policy.ts`), thrown as a {@link PolicyError} before anything starts. Tools
 * of MCP servers are listed by the worker, so here any `server__…` key of a declared server is accepted
 * (the workflow checks it against the listed tools).
 */
import type { AnyAgent, AnyTool } from '../agents/define';
import { subAgentsOf } from '../agents/sub-agents';
import type { RunPolicy } from '../core/approvals/approvals';
import type { ApprovalWaiver, PolicyTool } from '../core/approvals/run-policy';
import { PolicyError, policyProblems } from '../core/approvals/run-policy';
import { DurableAgentError } from '../core/run/errors';
import { waiverProblem } from '../core/approvals/run-policy';

/** A tool's name and approval settings, as the policy check sees them. */
function policyTool(tool: AnyTool): PolicyTool {
  const approvers = tool.approvers?.length ? { approvers: [...tool.approvers] } : {};
  if (typeof tool.needsApproval === 'function')
    return { name: tool.name, approval: { mode: 'conditional', onTimeout: 'deny', ...approvers } };
  if (tool.needsApproval || tool.approvers?.length)
    return { name: tool.name, approval: { mode: 'always', onTimeout: 'deny', ...approvers } };
  return { name: tool.name };
}

/**
 * Check `policy` against `agent` when it is a definition (a name: nothing to check here, the run checks).
 *
 * @throws {PolicyError} a key that names no tool, or `allow` on a tool that needs approval without `waiver`.
 * @throws {DurableAgentError} code `invalid_input` for a malformed `waiver`.
 */
export function checkPolicyEarly(
  agent: AnyAgent | string,
  policy: RunPolicy | undefined,
  waiver: ApprovalWaiver | undefined,
  where: string,
): void {
  const bad = waiverProblem(waiver);
  if (bad) throw new DurableAgentError('invalid_input', `${where}: options.${bad}`);
  if (typeof agent === 'string' || !policy || typeof policy !== 'object' || !Array.isArray(agent?.tools)) return;
  checkPolicyAgainst([agent], policy, waiver);
}

/**
 * Check `policy` against every agent of `agents` (their sub-agents included): a chain's policy applies to each.
 *
 * @throws {PolicyError} as {@link checkPolicyEarly}.
 */
export function checkPolicyAgainst(agents: readonly AnyAgent[], policy: RunPolicy | undefined, waiver: ApprovalWaiver | undefined): void {
  if (!policy || typeof policy !== 'object') return;
  const all = [...agents, ...subAgentsOf(agents)];
  const tools = all.flatMap((a) => a.tools.map(policyTool));
  const acceptedPrefixes = all.flatMap((a) => (a.mcp ?? []).map((m) => `${m.kind === 'mcp_tools' ? m.server.name : m.name}__`));
  const problems = policyProblems(policy, tools, { ...(waiver ? { waiver } : {}), acceptedPrefixes });
  if (problems.length) throw new PolicyError(problems);
}
