/**
 * The runs recorded into test/replay/histories/: one scenario per path of the agent workflow. Each
 * scenario has its own scripted agent with only the tools it needs, so histories stay small.
 */
import type { RunStatus } from '../../core/result';
import { ScriptedAgents } from '../helpers/agents';
import { boom, echo, slowRead, slowWrite, typed, waitForever } from '../helpers/tools';

/** One recorded run. */
export interface Scenario {
  /** File name stem of its history, and the agent's name. */
  name: string;
  input: string;
  maxSteps?: number;
  /** The status the run must end with for the recording to be kept. */
  status: RunStatus;
  /** Cancel the run once this tool is running. */
  cancelDuring?: string;
}

/** Agents and the scripted provider of every scenario. */
export const replayAgents = new ScriptedAgents();

replayAgents.add('plain', [{ text: 'Hello! How can I help?' }], { tools: [] });
replayAgents.add(
  'tool_cycle',
  [
    {
      text: 'Reading two keys, then writing two.',
      toolCalls: [
        { name: 'slow_read', args: { key: 'a', ms: 50 } },
        { name: 'slow_read', args: { key: 'b', ms: 10 } },
        { name: 'slow_write', args: { key: 'w1', ms: 10 } },
        { name: 'slow_write', args: { key: 'w2', ms: 10 } },
      ],
    },
    { toolCalls: [{ name: 'echo', args: { text: 'checked' } }] },
    { text: 'Read a and b, wrote w1 and w2.' },
  ],
  { tools: [slowRead, slowWrite, echo] },
);
replayAgents.add(
  'tool_errors',
  [
    {
      toolCalls: [
        { name: 'boom', args: {} },
        { name: 'teleport', args: { to: 'mars' } },
        { name: 'typed', args: { count: -2, colour: 'blue' } },
      ],
    },
    { toolCalls: [{ name: 'typed', args: { count: 2, colour: 'red' } }] },
    { text: 'Recovered from three kinds of tool error.' },
  ],
  { tools: [boom, typed] },
);
replayAgents.add(
  'model_retry',
  [{ text: 'Worked on the second try.', failures: [{ message: 'Overloaded', kind: 'overloaded', status: 529, type: 'overloaded_error' }] }],
  { tools: [] },
);
replayAgents.add('max_steps', () => ({ toolCalls: [{ name: 'echo', args: { text: 'again' } }] }), { tools: [echo], maxSteps: 3 });
replayAgents.add(
  'cancelled',
  [
    {
      toolCalls: [
        { name: 'echo', args: { text: 'quick' } },
        { name: 'wait_forever', args: {} },
        { name: 'echo', args: { text: 'after' } },
      ],
    },
    { text: 'never reached' },
  ],
  { tools: [echo, waitForever] },
);
replayAgents.add(
  'max_tokens',
  [
    {
      text: 'Let me write the file',
      stopReason: 'max_tokens',
      toolCalls: [
        { name: 'slow_write', args: { key: 'complete', ms: 1 } },
        { name: 'slow_write', args: { key: 'trunc' }, incomplete: true },
      ],
    },
  ],
  { tools: [slowWrite] },
);
replayAgents.add(
  'provider_error',
  [{ failures: [{ message: 'invalid x-api-key', kind: 'authentication', status: 401, type: 'authentication_error', retryable: false }] }],
  { tools: [] },
);

/** Every scenario; the replay test requires a history for each. */
export const SCENARIOS: readonly Scenario[] = [
  { name: 'plain', input: 'hi', status: 'success' },
  { name: 'tool_cycle', input: 'read and write', status: 'success' },
  { name: 'tool_errors', input: 'use the tools', status: 'success' },
  { name: 'model_retry', input: 'hi', status: 'success' },
  { name: 'max_steps', input: 'loop', status: 'max_steps' },
  { name: 'cancelled', input: 'wait', status: 'cancelled', cancelDuring: 'wait_forever' },
  { name: 'max_tokens', input: 'write', status: 'max_tokens' },
  { name: 'provider_error', input: 'hi', status: 'provider_error' },
];
