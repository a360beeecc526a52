/**
 * Errors are recognised across two copies of the package (two versions side by side, or a bundler
 * that duplicated the module): `instanceof` goes by brand, not class identity. The copy here is a
 * separate file in a temporary folder, so it is a separate module instance with its own classes.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalRefusedError, RunNotFoundError } from '../../src/client/errors';
import { DefinitionError, DurableAgentError, isDurableAgentError } from '../../src/core/run/errors';
import type * as ClientErrors from '../../src/client/errors';
import type * as CoreErrors from '../../src/core/run/errors';

type ErrorsModule = typeof CoreErrors;
type ClientErrorsModule = typeof ClientErrors;

const ROOT = resolve(__dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'durable-agent-copy-'));
let copy: ErrorsModule;
let copyClient: ClientErrorsModule;

beforeAll(async () => {
  mkdirSync(join(dir, 'core', 'run'), { recursive: true });
  mkdirSync(join(dir, 'client'));
  cpSync(join(ROOT, 'src', 'core', 'run', 'errors.ts'), join(dir, 'core', 'run', 'errors.ts'));
  cpSync(join(ROOT, 'src', 'client', 'errors.ts'), join(dir, 'client', 'errors.ts'));
  copy = (await import(join(dir, 'core', 'run', 'errors.ts'))) as ErrorsModule;
  copyClient = (await import(join(dir, 'client', 'errors.ts'))) as ClientErrorsModule;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the error brand across two copies of the package', () => {
  it('the copy is a separate module with its own classes', () => {
    expect(copy.DurableAgentError).not.toBe(DurableAgentError);
    expect(copyClient.ApprovalRefusedError).not.toBe(ApprovalRefusedError);
  });

  it('an error from the copy is an instance of this copy’s classes, and the reverse', () => {
    const theirs = new copyClient.ApprovalRefusedError('not allowed');
    expect(theirs).toBeInstanceOf(ApprovalRefusedError);
    expect(theirs).toBeInstanceOf(DurableAgentError);
    expect(theirs).not.toBeInstanceOf(RunNotFoundError);
    expect(theirs).not.toBeInstanceOf(DefinitionError);
    expect(isDurableAgentError(theirs, 'approval_refused')).toBe(true);

    const ours = new RunNotFoundError('wf-1');
    expect(ours).toBeInstanceOf(copyClient.RunNotFoundError);
    expect(ours).toBeInstanceOf(copy.DurableAgentError);
    expect(ours).not.toBeInstanceOf(copyClient.ApprovalRefusedError);
    expect(copy.isDurableAgentError(ours, 'run_not_found')).toBe(true);
    expect(copy.isDurableAgentError(ours, 'approval_refused')).toBe(false);
  });

  it('plain errors and look-alikes are not durable-agent errors', () => {
    expect(new Error('x')).not.toBeInstanceOf(DurableAgentError);
    expect({ code: 'approval_refused', name: 'ApprovalRefusedError', message: 'x' }).not.toBeInstanceOf(ApprovalRefusedError);
    expect(isDurableAgentError(null)).toBe(false);
  });
});

describe('the client’s errors', () => {
  it('keep their code, name, message and cause', () => {
    const cause = new Error('update failed');
    const refused = new ApprovalRefusedError('call c1 was already decided', { cause });
    expect(refused).toMatchObject({
      code: 'approval_refused',
      name: 'ApprovalRefusedError',
      message: 'call c1 was already decided',
      cause,
    });
    expect(refused).toBeInstanceOf(Error);
    const missing = new RunNotFoundError('wf-9');
    expect(missing).toMatchObject({
      code: 'run_not_found',
      name: 'RunNotFoundError',
      workflowId: 'wf-9',
      message: 'no run with workflow id "wf-9"',
    });
  });
});
