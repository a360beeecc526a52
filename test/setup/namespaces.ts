/**
 * Namespaces of the run's one dev server besides `default`. The rules entity is one per namespace, and every
 * run of a namespace reads its rules and version: each test file that changes rules has a namespace of its
 * own, so no other file's runs (or versions) see its changes.
 */
export const RULES_TEST_NAMESPACES = {
  entity: 'durable-agent-rules-entity-tests',
  standing: 'durable-agent-standing-rules-tests',
  console: 'durable-agent-console-rules-tests',
} as const;
