/**
 * A webhook that refuses its approval notifications is counted (`durable_agent_notifications_failed`, by
 * agent, target name and kind) on the worker's Prometheus endpoint; one that takes them is not. This file
 * runs its own Temporal runtime (with metrics), so it starts its worker itself.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { AgentClient } from '../../src/client';
import { FileBlobStore } from '../../src/integrations/store/blob-store';
import type { AgentWorker } from '../../src/worker';
import { createWorker } from '../../src/worker';
import { ScriptedAgents } from '../helpers/agents';
import { freePort } from '../helpers/cli-run';
import { pollUntil, resultWithin, waitForPending } from '../helpers/events';
import { testId } from '../helpers/harness';
import { deploy } from '../helpers/tools';

const S = new ScriptedAgents();
S.add('notified_metrics', [{ toolCalls: [{ name: 'deploy', args: { service: 'api' } }] }, { text: 'done' }], { tools: [deploy] });

/** `/ok` takes every notification; `/broken` refuses them (400: not retried). */
const received: string[] = [];
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    received.push(req.url ?? '');
    res.writeHead(req.url === '/ok' ? 204 : 400).end();
  });
});
const SECRET = `whsec_${Buffer.from('metrics test secret, 32 bytes!!!').toString('base64')}`;

let metricsUrl: string;
let native: NativeConnection;
let worker: AgentWorker;
let running: Promise<void>;
let client: AgentClient;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const hooks = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const port = await freePort();
  metricsUrl = `http://127.0.0.1:${port}/metrics`;
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { metrics: { prometheus: { bindAddress: `127.0.0.1:${port}` } } },
  });
  native = await NativeConnection.connect({ address: inject('temporalAddress') });
  const taskQueue = `notify-metrics-${randomUUID()}`;
  worker = await createWorker({
    agents: S.agents,
    providers: { scripted: S.provider },
    store: new FileBlobStore(mkdtempSync(join(tmpdir(), 'durable-agent-notify-metrics-'))),
    encryption: false,
    connection: native,
    taskQueue,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    notifications: {
      webhooks: [
        { name: 'ok', url: `${hooks}/ok`, secret: SECRET, events: ['approval.requested'] },
        { name: 'broken', url: `${hooks}/broken`, secret: SECRET, events: ['approval.requested'] },
      ],
      retry: { maximumAttempts: 1 },
    },
  });
  running = worker.run();
  client = await AgentClient.connect({
    address: inject('temporalAddress'),
    namespace: 'default',
    taskQueue,
    encryption: false,
    deltas: false,
  });
}, 60_000);
afterAll(async () => {
  await client?.close();
  worker?.shutdown();
  await running;
  await native?.close();
  server.close();
});

describe('notification metrics', () => {
  it('count the deliveries that failed by agent, target and kind', { timeout: 60_000 }, async () => {
    const run = await client.start('notified_metrics', { input: 'deploy', workflowId: testId('notify-metrics') });
    await waitForPending(run);
    await pollUntil(
      async () => (await run.readEvents(0)).events.filter((e) => e.type === 'notification_failed'),
      (failed) => failed.length === 1,
      'one notification_failed',
    );
    await run.decide({ callId: 'call_1_0', decision: 'approve', by: 'ops:alice' });
    expect((await resultWithin(run)).status).toBe('success');
    expect(received.sort()).toEqual(['/broken', '/ok']);
    const failed = (text: string, target: string) =>
      text
        .split('\n')
        .filter(
          (l) =>
            l.startsWith('durable_agent_notifications_failed') &&
            l.includes('agent="notified_metrics"') &&
            l.includes(`target="${target}"`) &&
            l.includes('kind="approval.requested"'),
        )
        .map((l) => Number(l.slice(l.lastIndexOf(' ') + 1)));
    // Metrics are exported on the runtime's period.
    const text = await pollUntil(
      async () => (await fetch(metricsUrl)).text(),
      (t) => failed(t, 'broken').length > 0,
      'the failed delivery counted',
    );
    expect(failed(text, 'broken')).toEqual([1]);
    expect(failed(text, 'ok')).toEqual([]);
  });
});
