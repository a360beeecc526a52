/** Agent modules as a user writes them, for `durable-agent ... --agents <file>` tests: written to a temp folder. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const repo = resolve(__dirname, '..', '..');
const q = (path: string) => JSON.stringify(path);

/**
 * A TypeScript agents module with two scripted agents (named exports, plus `providers`):
 * - `greeter` calls `greet({ who: "tester" })`, then answers "greeted the tester";
 * - `wiper` calls `greet` (id `call_greet`, needs no approval) and `wipe` (id `call_wipe`, always needs
 *   approval, approvers `ops:alice` only) in one step, then answers "done wiping".
 */
export const SCRIPTED_AGENTS_TS = `
import { z } from ${q(require.resolve('zod'))};
import { defineAgent, defineTool } from ${q(join(repo, 'src', 'agents', 'define'))};
import { ScriptedProvider } from ${q(join(repo, 'src', 'integrations', 'providers', 'scripted'))};

const greet = defineTool({ name: 'greet', description: 'Greet someone', input: z.object({ who: z.string() }), execute: ({ who }) => 'hello ' + who });
const wipe = defineTool({
  name: 'wipe',
  description: 'Wipe everything',
  input: z.object({}),
  needsApproval: true,
  approvers: ['ops:alice'],
  execute: () => 'wiped',
});

export const greeter = defineAgent({ name: 'greeter', model: { provider: 'scripted', model: 'greeter' }, tools: [greet] });
export const wiper = defineAgent({ name: 'wiper', model: { provider: 'scripted', model: 'wiper' }, tools: [greet, wipe] });

export const providers = {
  scripted: new ScriptedProvider({
    greeter: [{ toolCalls: [{ name: 'greet', args: { who: 'tester' } }] }, { text: 'greeted the tester' }],
    wiper: [
      { toolCalls: [{ name: 'greet', args: { who: 'ops' }, id: 'call_greet' }, { name: 'wipe', args: {}, id: 'call_wipe' }] },
      { text: 'done wiping' },
    ],
  }),
};
`;

/** An ES module (.mjs) with one agent and a provider written by hand: plain objects, no imports. */
export const PLAIN_AGENTS_MJS = `
const reply = { role: 'assistant', content: [{ type: 'text', text: 'hello from an ES module' }] };
export default [{ kind: 'agent', name: 'plain', model: { provider: 'plain', model: 'plain-1' }, tools: [] }];
export const providers = {
  plain: {
    async generate(request) {
      return { message: reply, stopReason: 'end_turn', usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 }, model: request.model };
    },
  },
};
`;

/** Write `files` (name to content) into a fresh temp folder; returns the folder. */
export function writeModules(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'durable-agent-agents-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}
