/** Checking a run's input, which comes from any Temporal client (ours, the `temporal` CLI, another SDK). */
import { budgetProblems } from '../core/budget/budget';
import type { AgentWorkflowInput } from '../core/run/contract';
import { policyValueProblem, waiverProblem } from '../core/approvals/run-policy';

/** What is wrong with a run's input, in one line, or undefined when it is well formed. */
export function inputProblems(input: AgentWorkflowInput): string | undefined {
  const problems: string[] = [];
  if (!input || typeof input !== 'object') problems.push('input must be an object { agent, prompt }');
  else {
    if (typeof input.agent !== 'string' || !input.agent) problems.push('agent must be a non-empty string');
    const session = input.session;
    if (session !== undefined) {
      if (!session || typeof session !== 'object' || Array.isArray(session)) problems.push('session must be an object { idleTimeoutMs? }');
      else {
        const extra = Object.keys(session).filter((k) => k !== 'idleTimeoutMs');
        if (extra.length) problems.push(`session has unknown field(s): ${extra.join(', ')}`);
        if (session.idleTimeoutMs !== undefined && (!Number.isInteger(session.idleTimeoutMs) || session.idleTimeoutMs < 1)) {
          problems.push('session.idleTimeoutMs must be a positive integer');
        }
      }
    }
    // A session may start empty and wait for its first message; a one-shot run needs its prompt.
    if (input.prompt !== undefined || session === undefined) {
      if (typeof input.prompt !== 'string' || !input.prompt) problems.push('prompt must be a non-empty string');
    }
    if (input.maxSteps !== undefined && (!Number.isInteger(input.maxSteps) || input.maxSteps < 1)) {
      problems.push('maxSteps must be a positive integer');
    }
    if (input.policy !== undefined) {
      if (!input.policy || typeof input.policy !== 'object' || Array.isArray(input.policy))
        problems.push('policy must be an object of tool name → allow | ask | deny | entries');
      else {
        for (const [tool, rule] of Object.entries(input.policy)) {
          const problem = policyValueProblem(tool, rule);
          if (problem) problems.push(problem);
        }
      }
    }
    const waiver = waiverProblem(input.approvalWaiver);
    if (waiver) problems.push(waiver);
    problems.push(...budgetProblems(input.budget, 'budget'));
  }
  return problems.length ? problems.join('; ') : undefined;
}
