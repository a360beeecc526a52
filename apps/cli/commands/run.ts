/** `durable-agent run "<prompt>"`: start a run of a demo agent, follow it, print the result. */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { INTERRUPTED_EXIT, untilAborted } from '../abort';
import { CliError } from '../errors';
import { agentTaskQueue, DEFAULT_TASK_QUEUE } from '../../../src/entry/client';
import { exitCodeOf, followRun, OFFLINE_NOTE, printSummary, resumeHint } from '../follow';
import { Output } from '../terminal-output';
import { DEMO_AGENT_NAME, localModelDemoAgents, servedAgents } from '../served';
import type * as LocalModelModule from '../dev-server/local-model';
import type { LocalModelServer } from '../dev-server/local-model';
import { LOCAL_MODEL_LABEL } from '../demo/local-model-provider'; // the OpenAI SDK loads at its first call
import { Session } from '../session';
import { definitionOf, parsePolicyFlag, withPolicyChecked } from '../policy-flag';
import { checkPolicyEarly } from '../../../src/entry/client';
import { cliTracing } from '../tracing';
import type { ConnectionFlags } from '../target';
import { resolveTarget } from '../target';

/** Options of `run`. */
export interface RunFlags extends ConnectionFlags {
  agent?: string;
  /** A module of the user's agents, served instead of the demo agents. */
  agents?: string;
  maxSteps?: number;
  workflowId?: string;
  json?: boolean;
  /** Run the demo agent on the tiny local model (a llama.cpp server started for this run). */
  localModel?: boolean;
  /** `--policy tool=rule` entries (repeatable, comma-separated). */
  policy?: string[];
  /** `--approval-waiver <identity>`: who may loosen approvals in the policy. */
  approvalWaiver?: string;
}

/** Start the local model server for `run --local-model`. @throws {CliError} when it is not installed. */
async function startLocalModel(out: Output): Promise<LocalModelServer> {
  // Loaded here: only this option needs it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startLocalModelServer } = require('../dev-server/local-model') as typeof LocalModelModule;
  try {
    const server = await startLocalModelServer();
    out.note(
      `local model: llama.cpp server at ${server.baseURL} (started in ${(server.startMs / 1000).toFixed(1)} s, stopped when this run ends)`,
    );
    return server;
  } catch (err) {
    throw new CliError(`--local-model: ${(err as Error).message}`);
  }
}

/** The agent `run` starts without `--agent`: the demo's, or the module's only one. */
function defaultAgent(names: readonly string[], file: string | undefined): string {
  if (!file) return DEMO_AGENT_NAME;
  if (names.length === 1) return names[0] as string;
  throw new CliError(`--agents ${file} exports several agents (${names.join(', ')}): choose one with --agent <name>`);
}

/** Run `prompt` and return the exit code. */
export async function runCommand(promptWords: string[], flags: RunFlags, signal: AbortSignal): Promise<number> {
  const prompt = promptWords.join(' ').trim();
  if (!prompt) throw new CliError('the prompt is empty');
  if (flags.localModel && flags.agents) throw new CliError('--local-model runs the demo agent: it cannot be combined with --agents');
  const out = new Output(flags.json);
  const local = flags.localModel ? await startLocalModel(out) : undefined;
  try {
    return await runWith(prompt, flags, out, signal, local);
  } finally {
    await local?.stop();
  }
}

async function runWith(
  prompt: string,
  flags: RunFlags,
  out: Output,
  signal: AbortSignal,
  local: LocalModelServer | undefined,
): Promise<number> {
  const policy = parsePolicyFlag(flags.policy);
  const served = local ? localModelDemoAgents(local.baseURL) : await servedAgents(flags.agents);
  const agent = flags.agent ?? defaultAgent(served.names, flags.agents);
  const waiver = flags.approvalWaiver !== undefined ? { by: flags.approvalWaiver } : undefined;
  // A policy is checked early against the served definition, before any server or worker is started (the
  // run checks it again, whatever worker runs it).
  const definition = policy && served.names.includes(agent) ? definitionOf(served.load().agents, agent) : undefined;
  if (definition) await withPolicyChecked(async () => checkPolicyEarly(definition, policy, waiver, `run --agent ${agent}`));
  const resolved = resolveTarget(flags);
  // Its own task queue: a worker already polling the usual one would answer with another model.
  const target = local ? { ...resolved, taskQueue: `${resolved.taskQueue ?? DEFAULT_TASK_QUEUE}-local-model` } : resolved;
  const tracing = cliTracing(out);
  const session = await Session.open(target, { embed: 'auto', agents: served, log: (l) => out.note(l), ...(tracing ? { tracing } : {}) });
  try {
    out.note(`Temporal: ${session.address}${session.server ? ' (embedded dev server, stopped when this run ends)' : ''}`);
    // Without --task-queue, the agent's own queue: only workers that have the agent poll it.
    const taskQueue = target.taskQueue ?? agentTaskQueue(agent);
    let offlineNoted = false;
    if (await session.hasWorker(taskQueue)) {
      out.note(`worker: using the worker(s) already polling task queue "${taskQueue}"`);
    } else {
      const names = served.names;
      if (!names.includes(agent)) throw new CliError(`unknown agent "${agent}" (agents: ${names.join(', ')})`);
      out.note(`worker: starting an in-process worker on task queue "${taskQueue}" (agents: ${names.join(', ')})...`);
      const hosted = await untilAborted(session.hostWorker(), signal);
      if (hosted.workflowCode.kind === 'bundled') out.note(`worker: bundled the workflow code at start: ${hosted.workflowCode.reason}`);
      const demo = served.load().demo;
      if (local) {
        out.line(
          out.styles.yellow(
            `note: ${LOCAL_MODEL_LABEL}: a 270M-parameter base model on this machine. It drives real tools through real tool calls, but often picks wrong arguments or writes weak answers; it is here to show the machinery, not to be useful.`,
          ),
        );
      } else if (demo?.offline) {
        out.line(out.styles.yellow(`note: ${OFFLINE_NOTE}`));
        offlineNoted = true;
      } else if (demo) {
        out.note(`model: ${demo.model.provider}/${demo.model.model}`);
      }
    }
    let run;
    try {
      const client = session.agentClient();
      const options = {
        input: prompt,
        ...(flags.workflowId ? { workflowId: flags.workflowId } : {}),
        ...(flags.maxSteps !== undefined ? { maxSteps: flags.maxSteps } : {}),
        ...(policy ? { policy } : {}),
        ...(waiver ? { approvalWaiver: waiver } : {}),
      };
      run = await withPolicyChecked(() => (definition ? client.start(definition, options) : client.start(agent, options)));
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError)
        throw new CliError(`a run with workflow id "${flags.workflowId}" already exists`);
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
      const followed = await followRun(run, out, { signal, offlineNoted, check: () => session.checkWorker() });
      if (!followed.result) {
        out.line(
          '',
          `interrupted. The run is durable and continues whenever a worker runs: ${resumeHint(run.workflowId, followed.lastSeq)}`,
        );
        return INTERRUPTED_EXIT;
      }
      printSummary(out, followed.result, { finalTextShown: followed.finalTextShown });
      return exitCodeOf(followed.result);
    } finally {
      stopWatching.abort();
      await watching;
    }
  } finally {
    await session.close();
  }
}
