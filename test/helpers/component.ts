/**
 * Suites that need a real component (redis-server, PostgreSQL, an S3 server, the local model): they run
 * when it is there; under CI (`CI=true`) a missing component is a failing test naming what to install;
 * elsewhere the suite is skipped with a loud warning saying so.
 */
import { describe, it } from 'vitest';

/**
 * `describe(name, fn)` when `missing` is undefined; otherwise the failing (CI) or skipped (locally) suite.
 *
 * @param component what the suite needs, for messages ("redis-server", "PostgreSQL")
 * @param missing why the component is unusable and how to install it; undefined when it is there
 */
export function describeNeeding(name: string, component: string, missing: string | undefined, fn: () => void): void {
  if (!missing) {
    describe(name, fn);
  } else if (process.env.CI === 'true') {
    describe(name, () => {
      it(`needs ${component}`, () => {
        throw new Error(`${missing} (CI=true: the tests that need ${component} must run)`);
      });
    });
  } else {
    console.warn(`\n⚠ SKIPPED "${name}": ${missing}\n`);
    describe.skip(name, fn); // reason: the component is missing on this machine (warned above); under CI this fails instead
  }
}
