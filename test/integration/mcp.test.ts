/**
 * MCP tools on the real dev server, against the reference MCP server (`@modelcontextprotocol/server-everything`)
 * over stdio and over Streamable HTTP: tool lists recorded at run start, calls through the runTool
 * activity, approvals on an MCP tool, a run policy denying one by its `server__tool` name, error results
 * fed back, bad configuration ending the run clearly.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/agents/define';
import type { ToolResultBlock } from '../../src/core/messages/messages';
import { outputText } from '../../src/core/messages/messages';
import type { AgentRunResult } from '../../src/core/run/result';
import { mcpServer, mcpTools } from '../../src/integrations/mcp/server';
import type { ScriptedTurn } from '../../src/integrations/providers/scripted';
import { freePort, terminate } from '../../apps/cli/dev-server/processes';
import { ScriptedAgents } from '../helpers/agents';
import { resultWithin, waitForPending } from '../helpers/events';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { historyText } from '../helpers/history';

const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const SECRET = 'mcp-header-secret-4f1c';

const everything = mcpServer({ name: 'everything', command: process.execPath, args: [EVERYTHING, 'stdio'] });

function toolResults(result: AgentRunResult): ToolResultBlock[] {
  return result.messages.flatMap((m) => m.content.filter((b): b is ToolResultBlock => b.type === 'tool_result'));
}
const texts = (result: AgentRunResult) => toolResults(result).map((b) => outputText(b.output));

const S = new ScriptedAgents();
S.add(
  'mcp_stdio',
  [
    {
      toolCalls: [
        { name: 'everything__echo', args: { message: 'hello over stdio' } },
        { name: 'everything__get-sum', args: { a: 2, b: 3 } },
        { name: 'everything__echo', args: { text: 'wrong field' } },
      ],
    },
    { toolCalls: [{ name: 'everything__get-tiny-image', args: {} }] },
    { text: 'done' },
  ],
  { tools: [], mcp: [everything] },
);
S.add(
  'mcp_error',
  [
    { toolCalls: [{ name: 'everything__gzip-file-as-resource', args: { name: 'x.gz', data: 'ftp://example.com/file' } }] },
    { text: 'noted the error' },
  ],
  { tools: [], mcp: [mcpTools(everything, { include: ['gzip-file-as-resource'] })] },
);
// Answers with the tool results it was sent, so the final text is what the model read.
S.add(
  'mcp_policy',
  (request): ScriptedTurn => {
    const sent = request.messages.flatMap((m) => m.content.filter((b): b is ToolResultBlock => b.type === 'tool_result'));
    if (sent.length === 0)
      return {
        toolCalls: [
          { name: 'everything__echo', args: { message: 'must not run' } },
          { name: 'everything__get-sum', args: { a: 2, b: 3 } },
        ],
      };
    return { text: sent.map((b) => outputText(b.output)).join(' | ') };
  },
  { tools: [], mcp: [everything] },
);
S.add('mcp_missing_command', [{ text: 'never' }], {
  tools: [],
  mcp: [mcpServer({ name: 'missing', command: 'durable-agent-no-such-mcp-server' })],
});
S.add('mcp_collision', [{ text: 'never' }], {
  tools: [
    defineTool({ name: 'everything__echo', description: 'A local tool with an MCP name', input: z.object({}), execute: () => 'local' }),
  ],
  mcp: [everything],
});
S.add('mcp_typo', [{ text: 'never' }], { tools: [], mcp: [mcpTools(everything, { tools: { ehco: { needsApproval: true } } })] });

let http: ChildProcess | undefined;
let unreachableUrl = '';
let h: Harness;

/** Start the reference server over Streamable HTTP on a free port; resolves once it listens. */
async function startHttpServer(): Promise<string> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  http = child;
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the MCP HTTP server did not start: ${stderr}`)), 15_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('listening on port')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`the MCP HTTP server exited (${code}): ${stderr}`)));
  });
  return `http://127.0.0.1:${port}/mcp`;
}

beforeAll(async () => {
  const url = await startHttpServer();
  unreachableUrl = `http://127.0.0.1:${await freePort()}/mcp`;
  const remote = mcpServer({ name: 'remote', url, headers: { 'X-Test-Token': SECRET } });
  S.add('mcp_http', [{ toolCalls: [{ name: 'remote__echo', args: { message: 'hello over http' } }] }, { text: 'approved and echoed' }], {
    tools: [],
    mcp: [
      mcpTools(remote, {
        include: ['echo', 'get-sum'],
        defaults: { readOnly: true },
        tools: { echo: { readOnly: false, needsApproval: true, approvers: ['ops:alice'] } },
      }),
    ],
  });
  S.add('mcp_unreachable', [{ text: 'never' }], {
    tools: [],
    mcp: [mcpServer({ name: 'down', url: unreachableUrl, connectTimeout: '2s' })],
  });
  h = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
}, 60_000);

afterAll(async () => {
  await h?.stop();
  if (http) await terminate(http);
});

describe('MCP tools', () => {
  it('over stdio: the model calls the server’s tools, gets its real results, and the run records the tool list', async () => {
    const run = await h.client.start('mcp_stdio', { input: 'use the everything server', workflowId: testId('mcp-stdio') });
    const result = await resultWithin(run);
    expect(result.status).toBe('success');
    const [echoed, sum, invalid, image] = toolResults(result);
    expect(outputText(echoed!.output)).toBe('Echo: hello over stdio');
    expect(outputText(sum!.output)).toBe('The sum of 2 and 3 is 5.');
    // Arguments are checked against the server's JSON Schema before the server is asked.
    expect(invalid!.isError).toBe(true);
    expect(outputText(invalid!.output)).toMatch(/Invalid arguments for tool "everything__echo"[\s\S]*message/);
    // Non-text content is described, not passed as bytes.
    expect(outputText(image!.output)).toMatch(/\[image image\/png, \d+ bytes: not shown\]/);
    // The spec recorded by describeAgent holds the MCP tools with the server's schemas: replay never asks the server.
    const history = await historyText(run.handle);
    expect(history).toContain('everything__echo');
    expect(history).toContain('everything__get-sum');
    expect(history).toContain('Message to echo');
  });

  it('a run policy denies an MCP tool by its server__tool name: the model reads the denial, the tool never runs', async () => {
    const run = await h.client.start('mcp_policy', {
      input: 'echo and add',
      workflowId: testId('mcp-policy'),
      policy: { everything__echo: 'deny' },
    });
    const result = await resultWithin(run);
    expect(result.status).toBe('success');
    // The model's second request held the denial (and the allowed MCP call's real result).
    expect(result.finalText).toBe(
      `Denied by the run's policy: "everything__echo" may not be used in this run. The tool was not run. | The sum of 2 and 3 is 5.`,
    );
    expect(toolResults(result).map((b) => b.isError)).toEqual([true, false]);
    // Only the allowed call reached the server: one runTool activity in the whole history.
    const { events } = await run.handle.fetchHistory();
    const scheduled = (events ?? []).flatMap((e) => (e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool' ? [e] : []));
    expect(scheduled).toHaveLength(1);
    expect(result.report.toolCalls.map((c) => [c.tool, c.attempts])).toEqual([
      ['everything__echo', 0],
      ['everything__get-sum', 1],
    ]);
  });

  it('over Streamable HTTP: an MCP tool that needs approval runs once approved; headers never reach history', async () => {
    const run = await h.client.start('mcp_http', { input: 'echo, please', workflowId: testId('mcp-http') });
    const [pending] = await waitForPending(run);
    expect(pending).toMatchObject({ tool: 'remote__echo', args: { message: 'hello over http' }, approvers: ['ops:alice'] });
    await run.decide({ callId: pending!.callId, decision: 'approve', by: 'ops:alice', reason: 'fine' });
    const result = await resultWithin(run);
    expect(result.status).toBe('success');
    expect(texts(result)).toEqual(['Echo: hello over http']);
    const history = await historyText(run.handle);
    expect(history).toContain('remote__get-sum');
    expect(history).not.toContain('remote__get-tiny-image'); // not included
    expect(history).not.toContain(SECRET);
  });

  it('an MCP error result (isError) is fed back to the model, not retried', async () => {
    const run = await h.client.start('mcp_error', { input: 'compress it', workflowId: testId('mcp-error') });
    const result = await resultWithin(run);
    expect(result.status).toBe('success');
    expect(result.finalText).toBe('noted the error');
    const [failed] = toolResults(result);
    expect(failed!.isError).toBe(true);
    expect(outputText(failed!.output)).toMatch(/^Tool "everything__gzip-file-as-resource" failed: .*Unsupported URL protocol/);
    const call = result.report.toolCalls.find((c) => c.tool === 'everything__gzip-file-as-resource');
    expect(call?.attempts).toBe(1);
  });

  it('bad configuration ends the run with a clear error naming the server and the fix', async () => {
    const start = (agent: string) => h.client.start(agent, { input: 'go', workflowId: testId(agent) }).then((r) => resultWithin(r, 60_000));
    const [missing, collision, typo, unreachable] = await Promise.all(
      ['mcp_missing_command', 'mcp_collision', 'mcp_typo', 'mcp_unreachable'].map(start),
    );
    expect(missing!.status).toBe('internal_error');
    expect(missing!.error?.message).toMatch(
      /MCP server "missing": command "durable-agent-no-such-mcp-server" was not found: install it or fix command/,
    );
    expect(collision!.status).toBe('internal_error');
    expect(collision!.error?.message).toMatch(
      /MCP server "everything": its tool "everything__echo" has the name of a tool of the agent "mcp_collision"/,
    );
    expect(typo!.status).toBe('internal_error');
    expect(typo!.error?.message).toMatch(/mcpTools names "ehco", which the server does not list \(it lists: echo, /);
    // A server that cannot be reached is retried (describeAgent's retry policy), then ends the run.
    expect(unreachable!.status).toBe('internal_error');
    expect(unreachable!.error?.message).toContain(`MCP server "down": cannot reach ${unreachableUrl}`);
  }, 90_000);
});
