/** Entry point of the workflow bundle: every workflow a durable-agent worker runs. */
export { agentWorkflow } from './agent';
export { chainWorkflow } from './chain';
export { consolidateWorkflow } from './consolidate-workflow';
export { deliverNotifications } from './notify';
export { approvalRulesWorkflow } from './rules-entity';
