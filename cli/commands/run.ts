/** `durable-agent run "<prompt>"`: start a run of a demo agent, follow it, print the result. */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { DEMO_AGENT } from '../../demo';
import { INTERRUPTED_EXIT, untilAborted } from '../abort';
import { CliError } from '../errors';
import { exitCodeOf, followRun, OFFLINE_NOTE, printResult } from '../follow';
import { Output } from '../output';
import { Session } from '../session';
import type { ConnectionFlags } from '../target';
import { resolveTarget } from '../target';

/** Options of `run`. */
export interface RunFlags extends ConnectionFlags {
  agent?: string;
  maxSteps?: number;
  workflowId?: string;
  json?: boolean;
}

/** Run `prompt` and return the exit code. */
export async function runCommand(promptWords: string[], flags: RunFlags, signal: AbortSignal): Promise<number> {
  const prompt = promptWords.join(' ').trim();
  if (!prompt) throw new CliError('the prompt is empty');
  const agent = flags.agent ?? DEMO_AGENT;
  const out = new Output(flags.json);
  const target = resolveTarget(flags);
  const session = await Session.open(target, { embed: 'auto', log: (l) => out.note(l) });
  try {
    out.note(`Temporal: ${session.address}${session.server ? ' (embedded dev server, stopped when this run ends)' : ''}`);
    const taskQueue = target.taskQueue;
    let offlineNoted = false;
    if (await session.hasWorker(taskQueue)) {
      out.note(`worker: using the worker(s) already polling task queue "${taskQueue}"`);
    } else {
      const names = session.demo.agents.map((a) => a.name);
      if (!names.includes(agent)) throw new CliError(`unknown agent "${agent}" (agents: ${names.join(', ')})`);
      out.note(`worker: starting an in-process worker on task queue "${taskQueue}" (agents: ${names.join(', ')})...`);
      await untilAborted(session.hostWorker(taskQueue), signal);
      if (session.demo.offline) {
        out.line(out.styles.yellow(`note: ${OFFLINE_NOTE}`));
        offlineNoted = true;
      } else {
        out.note(`model: ${session.demo.model.provider}/${session.demo.model.model}`);
      }
    }
    let run;
    try {
      run = await session.agentClient(taskQueue).start(agent, {
        input: prompt,
        ...(flags.workflowId ? { workflowId: flags.workflowId } : {}),
        ...(flags.maxSteps !== undefined ? { maxSteps: flags.maxSteps } : {}),
      });
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) throw new CliError(`a run with workflow id "${flags.workflowId}" already exists`);
      throw err;
    }
    out.line(out.styles.bold(`run ${run.workflowId} started`));
    const stopWatching = new AbortController();
    const watching = session.hostsWorker
      ? Promise.resolve()
      : session.watchWorker(taskQueue, AbortSignal.any([signal, stopWatching.signal]), () =>
          out.note(`worker: the worker on "${taskQueue}" went away; started an in-process one`),
        );
    try {
      const result = await followRun(run, out, { signal, offlineNoted, check: () => session.checkWorker() });
      if (!result) {
        out.line('', `interrupted. The run is durable and continues whenever a worker runs: durable-agent watch ${run.workflowId}`);
        return INTERRUPTED_EXIT;
      }
      printResult(out, result);
      return exitCodeOf(result);
    } finally {
      stopWatching.abort();
      await watching;
    }
  } finally {
    await session.close();
  }
}
