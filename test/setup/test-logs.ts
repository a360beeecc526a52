/**
 * Setup file of every test file (vitest `setupFiles`): the Temporal runtime's log (test/helpers/test-logs.ts)
 * is kept per test and printed only for a test that fails, and, at the end of a file with a failure, what
 * was logged outside its tests.
 */
import type { RunnerTask } from 'vitest';
import { afterAll, beforeEach } from 'vitest';
import { testLogs } from '../helpers/test-logs';

beforeEach((context) => {
  const finish = testLogs.begin(context.task.name);
  context.onTestFinished(() => finish(context.task.result?.state === 'fail'));
});

/** Whether `task` or any task in it failed (a test, or a suite's hook). */
function failed(task: RunnerTask): boolean {
  if (task.result?.state === 'fail') return true;
  return 'tasks' in task && task.tasks.some(failed);
}

// vitest reads the first argument's destructuring pattern (its fixtures): none here, the suite is the second.
// eslint-disable-next-line no-empty-pattern
afterAll(({}, suite) => {
  testLogs.finishOutside(failed(suite), suite.name);
});
