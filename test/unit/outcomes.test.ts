/** What one tool call came to (core/outcomes.ts): the result texts the model reads, and the tool_result event. */
import { describe, expect, it } from 'vitest';
import { outputText } from '../../src/core/messages/messages';
import {
  decisionOutcome,
  errorOutcome,
  expiredOutcome,
  notExecutedOutcome,
  outputBytes,
  policyDeniedOutcome,
  toolResultEvent,
  truncatedOutcome,
  unknownToolOutcome,
  withdrawnOutcome,
} from '../../src/core/tool-calls/outcomes';
import { ok } from './core-fixtures';

/** An error outcome of `text` that was never run. */
const notRun = (callId: string, tool: string, text: string) => ({
  callId,
  tool,
  output: { type: 'text', text },
  isError: true,
  error: text,
  latencyMs: 0,
  attempts: 0,
});

describe('errorOutcome', () => {
  it('is an error the model reads, with the same message for the report', () => {
    expect(errorOutcome('c', 't', 'boom')).toEqual(notRun('c', 't', 'boom'));
  });

  it('takes extra fields, such as the status that ends the run', () => {
    expect(errorOutcome('c', 't', 'boom', { endsRun: 'storage_error', attempts: 2 })).toMatchObject({
      endsRun: 'storage_error',
      attempts: 2,
      isError: true,
    });
  });
});

describe('outcomes the model sees', () => {
  it('deny is an error result naming who denied and why', () => {
    const text = 'Denied by ops:bob: change freeze. The tool was not run.';
    expect(decisionOutcome('call_1_0', 'deploy', { decision: 'deny', by: 'ops:bob', reason: 'change freeze' })).toEqual(
      notRun('call_1_0', 'deploy', text),
    );
  });

  it('deny without a reason', () => {
    const o = decisionOutcome('c', 'deploy', { decision: 'deny', by: 'ops:bob' });
    expect(o.output).toEqual({ type: 'text', text: 'Denied by ops:bob. The tool was not run.' });
    expect(o.error).toBe('Denied by ops:bob. The tool was not run.');
    expect(o.isError).toBe(true);
    expect(o).not.toHaveProperty('endsRun');
  });

  it('skip is not an error, and says who skipped and why', () => {
    expect(decisionOutcome('call_1_0', 'deploy', { decision: 'skip', by: 'ops:carol' })).toEqual({
      callId: 'call_1_0',
      tool: 'deploy',
      output: { type: 'text', text: 'Skipped by ops:carol. The tool was not run.' },
      isError: false,
      latencyMs: 0,
      attempts: 0,
    });
    const withReason = decisionOutcome('c', 'deploy', { decision: 'skip', by: 'ops:carol', reason: 'not needed' });
    expect(withReason.output).toEqual({ type: 'text', text: 'Skipped by ops:carol: not needed. The tool was not run.' });
    expect(withReason).not.toHaveProperty('error');
  });

  it('keeps the reason’s own punctuation and trims it', () => {
    expect(outputText(decisionOutcome('c', 't', { decision: 'deny', by: 'x', reason: '  risky!  ' }).output)).toBe(
      'Denied by x: risky! The tool was not run.',
    );
  });

  it('treats a reason of only whitespace as none', () => {
    expect(outputText(decisionOutcome('c', 't', { decision: 'skip', by: 'x', reason: '   ' }).output)).toBe(
      'Skipped by x. The tool was not run.',
    );
  });

  it('a run-policy denial is an error naming the tool', () => {
    const text = 'Denied by the run\'s policy: "deploy" may not be used in this run. The tool was not run.';
    expect(policyDeniedOutcome('call_1_0', 'deploy')).toEqual(notRun('call_1_0', 'deploy', text));
  });

  it('an expiry is an error that does not end the run by itself', () => {
    const text = 'Denied: nobody decided on this call before its approval expired. The tool was not run.';
    const o = expiredOutcome('call_2_1', 'wire');
    expect(o).toEqual(notRun('call_2_1', 'wire', text));
    expect(o).not.toHaveProperty('endsRun');
  });

  it('an expiry whose tool says `fail` ends the run approval_expired, with the same text', () => {
    const o = expiredOutcome('call_2_1', 'wire', true);
    expect(o.endsRun).toBe('approval_expired');
    expect(o.output).toEqual(expiredOutcome('call_2_1', 'wire').output);
  });

  it('an unknown tool lists the tools the agent has, or says it has none', () => {
    expect(unknownToolOutcome('c', 'ghost', ['a', 'b'])).toEqual(notRun('c', 'ghost', 'Unknown tool "ghost". Available tools: a, b.'));
    expect(unknownToolOutcome('c', 'ghost', []).error).toBe('Unknown tool "ghost". This agent has no tools.');
  });

  it('a call of a cut-off response was not executed', () => {
    expect(truncatedOutcome('c', 'write')).toEqual(
      notRun('c', 'write', 'Not executed: the response was cut off at the output token limit.'),
    );
  });

  it('a call after one that ended the run names the tool that failed, and does not end the run itself', () => {
    const cause = errorOutcome('c1', 'deploy', 'boom', { endsRun: 'tool_error' });
    const o = notExecutedOutcome('c2', 'write', cause);
    expect(o).toEqual(notRun('c2', 'write', 'Not executed: the run ended after the call to "deploy" failed.'));
  });

  it('a call still waiting for a person when the run ended is withdrawn', () => {
    expect(withdrawnOutcome('c', 'deploy')).toEqual(notRun('c', 'deploy', 'Not executed: the run ended first.'));
  });
});

describe('outputBytes', () => {
  it('counts inline text in UTF-8 bytes and stored outputs by their full size', () => {
    expect(outputBytes({ type: 'text', text: 'héllo 日本' })).toBe(13);
    expect(outputBytes({ type: 'text', text: '' })).toBe(0);
    expect(outputBytes({ type: 'stored', ref: 'sha256-x', bytes: 99_999, preview: 'start' })).toBe(99_999);
  });
});

describe('toolResultEvent', () => {
  it('previews long text and reports sizes and storage', () => {
    const long = 'é'.repeat(300);
    const e = toolResultEvent(4, ok('c1', 'read', long, { latencyMs: 9, attempts: 2 }));
    expect(e).toMatchObject({
      type: 'tool_result',
      step: 4,
      callId: 'c1',
      tool: 'read',
      isError: false,
      bytes: 600,
      stored: false,
      latencyMs: 9,
      attempts: 2,
    });
    expect(e.preview).toBe(`${'é'.repeat(200)}… [100 more chars]`);

    const stored = toolResultEvent(
      1,
      ok('c2', 'read', '', { output: { type: 'stored', ref: 'sha256-x', bytes: 99_999, preview: 'start' } }),
    );
    expect(stored).toMatchObject({ preview: 'start', bytes: 99_999, stored: true });
  });

  it('is exactly the fields of the event, whatever else the outcome holds', () => {
    expect(toolResultEvent(2, errorOutcome('c', 't', 'no', { endsRun: 'tool_error' }))).toEqual({
      type: 'tool_result',
      step: 2,
      callId: 'c',
      tool: 't',
      isError: true,
      preview: 'no',
      bytes: 2,
      stored: false,
      latencyMs: 0,
      attempts: 0,
    });
  });
});
