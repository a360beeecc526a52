/**
 * The workflows of the composed histories (./composed): the plugin tests' user workflows, with the agent
 * workflows exported beside them — how a prebuilt bundle made without the plugin must hold them.
 */
export * from '../fixtures/user-workflows';
export { agentWorkflow, chainWorkflow } from '../../src/entry/workflow';
