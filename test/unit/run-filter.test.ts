/** The run filter of `AgentClient.listRuns` (and `GET /runs`): a bad one is a typed error naming its field. */
import { describe, expect, it } from 'vitest';
import { RunFilterError, runsQuery } from '../../src/client';
import { runsLimit } from '../../src/client/run-list';
import { toHttpError } from '../../apps/http/errors';

function refusal(f: () => unknown): RunFilterError {
  try {
    f();
  } catch (err) {
    if (err instanceof RunFilterError) return err;
    throw err;
  }
  throw new Error('no error');
}

describe('run filter', () => {
  it('names the bad field and says what to give', () => {
    expect(refusal(() => runsQuery({ status: 'done' }))).toMatchObject({
      field: 'status',
      code: 'invalid_input',
      message: expect.stringMatching(/^status "done" is not a run status; use one of: running, /),
    });
    expect(refusal(() => runsQuery({ agent: "a'b" }))).toMatchObject({ field: 'agent' });
    expect(refusal(() => runsQuery({ since: 'later' }))).toMatchObject({
      field: 'since',
      message: 'since "later" is not a duration: give one like 30m, 24h or 7d',
    });
    expect(refusal(() => runsLimit(0))).toMatchObject({ field: 'limit' });
    expect(refusal(() => runsLimit(1.5))).toMatchObject({ field: 'limit' });
    expect(runsLimit(undefined)).toBe(20);
  });
  it('is a 400 naming the query parameter in the HTTP API', () => {
    const err = toHttpError(refusal(() => runsQuery({ status: 'done' })));
    expect([err.status, err.body().error.field, err.body().error.code]).toEqual([400, 'status', 'invalid_request']);
  });
});
