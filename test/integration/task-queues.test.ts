/**
 * A worker never takes tasks for agents it does not have: with no task queue given, `createWorker` polls
 * one queue per agent it serves (`agentTaskQueue(name)`) and `AgentClient` starts each run on its
 * agent's queue. Here `durable-agent dev` (its demo worker, as a newcomer runs it beside their own) and a
 * team's own worker with agent `support` run on the same server, both with the defaults: every run of
 * `support` succeeds, none is taken by the demo worker.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { chain } from '../../src/agents/chain';
import { AgentClient } from '../../src/client';
import { agentTaskQueue } from '../../src/core/run/contract';
import { RULES_TASK_QUEUE } from '../../src/core/approvals/rules';
import { DEMO_AGENT } from '../../apps/cli/demo';
import { FileBlobStore } from '../../src/integrations/store/blob-store';
import type { AgentWorker } from '../../src/worker';
import { createWorker } from '../../src/worker';
import { ScriptedAgents } from '../helpers/agents';
import type { RunningCli } from '../helpers/cli-run';
import { freePort, startCli, tempHome } from '../helpers/cli-run';
import { installTestRuntime } from '../helpers/harness';

const address = inject('temporalAddress');
const S = new ScriptedAgents();
S.add('support', [{ text: 'Support here: your ticket is answered.' }]);

let dev: RunningCli;
let team: AgentWorker;
let teamRunning: Promise<void>;
let client: AgentClient;

beforeAll(async () => {
  installTestRuntime();
  // The demo worker as `durable-agent dev` hosts it, on the same server, with its defaults.
  dev = startCli(['dev', '--address', address, '--ui-port', String(await freePort())], { home: tempHome(), timeoutMs: 170_000 });
  await dev.waitFor('Press Ctrl-C to stop.');
  // The team's own worker: createWorker with its defaults (no task queue given).
  team = await createWorker({
    agents: S.agents,
    providers: { scripted: S.provider },
    store: new FileBlobStore(mkdtempSync(join(tmpdir(), 'durable-agent-store-'))),
    encryption: false,
    address,
    workflowBundle: { codePath: inject('workflowBundlePath') },
  });
  teamRunning = team.run();
  client = await AgentClient.connect({ address, encryption: false });
}, 150_000);

afterAll(async () => {
  dev?.child.kill('SIGINT');
  await dev?.done.catch(() => undefined);
  await team?.close();
  await teamRunning?.catch(() => undefined);
  await client?.close();
});

describe('default task queues: one per agent', () => {
  it(
    'the demo worker of `dev` and a team worker with agent support: 12 runs of support all succeed on its own queue, none taken by the demo worker',
    { timeout: 120_000 },
    async () => {
      expect(dev.stdout()).toContain(`task queue "${agentTaskQueue(DEMO_AGENT)}"`);
      expect(team.taskQueues).toEqual([agentTaskQueue('support')]);
      const runs = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          client.start('support', { input: `ticket ${i}`, workflowId: `support-${i}-${randomUUID().slice(0, 8)}` }),
        ),
      );
      const results = await Promise.all(runs.map((r) => r.result()));
      expect(results.map((r) => r.status)).toEqual(Array(12).fill('success'));
      expect(results.every((r) => r.finalText === 'Support here: your ticket is answered.')).toBe(true);
      for (const run of runs)
        expect((await client.temporal.workflow.getHandle(run.workflowId).describe()).taskQueue).toBe('durable-agent.support');
    },
  );

  it(
    'a worker with several agents polls one queue per agent; a chain runs each agent on its own queue, on workers that have only that agent',
    { timeout: 120_000 },
    async () => {
      const tag = randomUUID().slice(0, 8);
      const T = new ScriptedAgents();
      const researcher = T.add(`researcher-${tag}`, [{ text: 'Facts: durable execution survives crashes.' }]);
      const writer = T.add(`writer-${tag}`, [{ text: 'A short piece on durable execution.' }]);
      const store = () => new FileBlobStore(mkdtempSync(join(tmpdir(), 'durable-agent-store-')));
      const common = {
        providers: { scripted: T.provider },
        encryption: false as const,
        address,
        workflowBundle: { codePath: inject('workflowBundlePath') },
      };
      const onlyResearcher = await createWorker({ ...common, agents: [researcher], store: store() });
      const onlyWriter = await createWorker({ ...common, agents: [writer], store: store() });
      const running = [onlyResearcher.run(), onlyWriter.run()];
      try {
        expect(onlyResearcher.taskQueues).toEqual([agentTaskQueue(researcher.name)]);
        const run = await client.startChain(chain(researcher, writer), { input: 'durable execution', workflowId: `chain-${tag}` });
        const result = await run.result();
        expect(result.status).toBe('success');
        expect(result.finalText).toBe('A short piece on durable execution.');
        expect((await client.temporal.workflow.getHandle(`chain-${tag}--2-${writer.name}`).describe()).taskQueue).toBe(
          agentTaskQueue(writer.name),
        );
      } finally {
        await Promise.all([onlyResearcher.close(), onlyWriter.close()]);
        await Promise.all(running.map((r) => r.catch(() => undefined)));
      }
      // One worker with both agents: two queues, both served; close() stops both.
      // Without a bundle given: bundled once at start (or prebuilt) for both of its Temporal workers.
      const { workflowBundle: _given, ...unbundled } = common;
      const both = await createWorker({ ...unbundled, agents: [researcher, writer], store: store() });
      expect(both.taskQueues).toEqual([agentTaskQueue(researcher.name), agentTaskQueue(writer.name)]);
      // …and a third for the rules entity's queue.
      expect(both.workers.map((w) => w.options.taskQueue)).toEqual([
        agentTaskQueue(researcher.name),
        agentTaskQueue(writer.name),
        RULES_TASK_QUEUE,
      ]);
      const bothRunning = both.run();
      const r = await client.start(writer, { input: 'again', workflowId: `writer-${tag}` });
      expect((await r.result()).finalText).toBe('A short piece on durable execution.');
      await both.close();
      await bothRunning;
      expect(both.workers.map((w) => w.getState())).toEqual(['STOPPED', 'STOPPED', 'STOPPED']);
    },
  );

  it("the demo agent's runs go to the demo worker, not the team's", { timeout: 60_000 }, async () => {
    const run = await client.start(DEMO_AGENT, { input: 'what is 2+3?', workflowId: `demo-${randomUUID().slice(0, 8)}` });
    const result = await run.result();
    expect(result.status).toBe('success');
    expect(result.finalText).toContain('2+3 = 5');
  });
});
