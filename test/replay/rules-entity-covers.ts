/** Where the rules entity's recorded histories are, and what they must hold. */
import { join } from 'node:path';

/** Folder of the rules entity's histories (apart from the agent workflow's: the unversioned-change check changes only that one). */
export const RULES_ENTITY_DIR = join(__dirname, 'rules-entity');

/** Updates accepted, the push activity, the expiry timer, the memo upserts, the editors signal. */
export const RULES_ENTITY_COVERS = [
  'WORKFLOW_EXECUTION_UPDATE_ACCEPTED',
  'WORKFLOW_EXECUTION_UPDATE_COMPLETED',
  'ACTIVITY_TASK_COMPLETED',
  'TIMER_FIRED',
  'WORKFLOW_PROPERTIES_MODIFIED',
  'WORKFLOW_EXECUTION_SIGNALED',
] as const;
