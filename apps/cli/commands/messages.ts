/**
 * `durable-agent send` gives a running agent a message (or starts a session with it); `end` ends a
 * session. With a worker running, `send` uses the validated `send` update and reports the turn; with none,
 * it sends the `message` signal, which the server keeps until a worker runs.
 */
import { MessageRefusedError } from '../../../src/entry/client';
import { parseUserMessage } from '../../../src/entry/client';
import { CliError } from '../errors';
import { Output } from '../terminal-output';
import { Session } from '../session';
import type { ConnectionFlags } from '../target';
import { resolveTarget } from '../target';
import { findRun } from './existing';

/** Flags of `send`. */
export interface SendFlags extends ConnectionFlags {
  by?: string;
  /** Start a session of this agent under the workflow id if none runs (send-or-start). */
  agent?: string;
  json?: boolean;
}

/** Send `words` as one message to the run `workflowId`. */
export async function sendCommand(workflowId: string, words: string[], flags: SendFlags): Promise<number> {
  if (!workflowId.trim()) throw new CliError('the workflow id is empty');
  const parsed = parseUserMessage({ text: words.join(' '), ...(flags.by !== undefined ? { by: flags.by } : {}) });
  if (!parsed.ok) throw new CliError(parsed.error);
  const message = parsed.value;
  const out = new Output(Boolean(flags.json));
  const target = resolveTarget(flags);
  const session = await Session.open(target, { embed: 'if-state', log: (l) => out.note(l) });
  try {
    if (flags.agent) {
      // Send-or-start: the session of this conversation, started if it does not exist.
      // The writer, when named, is recorded as the starter of a session this starts (the HTTP API lets only it, or an admin, act on it).
      const run = await session
        .agentClient(target.taskQueue)
        .send(workflowId, message, { agent: flags.agent, ...(flags.by !== undefined ? { startedBy: flags.by } : {}) });
      if (flags.json) out.json({ workflowId: run.workflowId, sent: 'signal', ...message });
      else
        out.line(
          `sent to ${run.workflowId} (started as a session of "${flags.agent}" if it was not running); follow with: durable-agent watch ${run.workflowId}`,
        );
      return 0;
    }
    const { run, description, running } = await findRun(session, workflowId);
    if (!running)
      throw new CliError(
        `run "${workflowId}" has already ended (${description.status.name.toLowerCase()}); start a new one with --agent <name>`,
      );
    if (!(await session.hasWorker(description.taskQueue))) {
      await run.signalMessage(message);
      if (flags.json) out.json({ workflowId, sent: 'signal', ...message });
      else out.line(`no worker is running for ${workflowId}: the message was sent as a signal; the agent reads it when a worker starts`);
      return 0;
    }
    try {
      const receipt = await run.send(message);
      if (flags.json) out.json({ workflowId, sent: 'update', ...receipt });
      else
        out.line(
          `sent to ${workflowId}: turn ${receipt.turn} (${receipt.queued} message${receipt.queued === 1 ? '' : 's'} waiting for the model)`,
        );
      return 0;
    } catch (err) {
      if (err instanceof MessageRefusedError) throw new CliError(`refused: ${err.message}`);
      throw err;
    }
  } finally {
    await session.close();
  }
}

/** End the session `workflowId` once the model has answered what it was sent. */
export async function endCommand(workflowId: string, flags: Omit<ConnectionFlags, 'taskQueue'>): Promise<number> {
  const out = new Output();
  const session = await Session.open(resolveTarget(flags), { embed: 'if-state', log: (l) => out.note(l) });
  try {
    const { run, description, running } = await findRun(session, workflowId);
    if (!running) throw new CliError(`run "${workflowId}" has already ended (${description.status.name.toLowerCase()})`);
    await run.end();
    out.line(`asked ${workflowId} to end: it ends once the model has answered what it was sent (durable-agent result ${workflowId})`);
    return 0;
  } finally {
    await session.close();
  }
}
