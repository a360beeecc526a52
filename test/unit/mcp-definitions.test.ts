/** MCP declarations, tool names and result texts: the pure parts (no server). */
import { describe, expect, it } from 'vitest';
import { defineAgent } from '../../src/agents/define';
import { DefinitionError } from '../../src/core/run/errors';
import { mcpToolName } from '../../src/integrations/mcp/names';
import { resultText } from '../../src/integrations/mcp/results';
import { mcpServer, mcpTools } from '../../src/integrations/mcp/server';
import { NAME } from '../../src/agents/validate';

const model = { provider: 'scripted', model: 'x' };

describe('mcpServer and mcpTools', () => {
  it('accept a stdio server and a Streamable HTTP server', () => {
    expect(mcpServer({ name: 'fs', command: 'npx', args: ['-y', 'server'] })).toMatchObject({
      kind: 'mcp_server',
      transport: 'stdio',
      name: 'fs',
    });
    expect(mcpServer({ name: 'docs', url: 'http://localhost:3001/mcp', headers: { Authorization: 'Bearer x' } })).toMatchObject({
      transport: 'http',
      url: 'http://localhost:3001/mcp',
    });
  });

  it('refuse bad declarations with a message naming the fix', () => {
    expect(() => mcpServer({ name: 'a__b', command: 'x' })).toThrow(/no "__"/);
    expect(() => mcpServer({ name: 'x', command: 'node', url: 'http://h/mcp' } as never)).toThrow(/either command .* or url .*not both/);
    expect(() => mcpServer({ name: 'x' } as never)).toThrow(/not neither/);
    expect(() => mcpServer({ name: 'x', url: 'ftp://h/mcp' })).toThrow(/http or https/);
    expect(() => mcpServer({ name: 'x', url: 'not a url' })).toThrow(DefinitionError);
    expect(() => mcpServer({ name: 'x', command: 'node', header: {} } as never)).toThrow(/unknown option "header"/);
    expect(() => mcpServer({ name: 'x', command: 'node', connectTimeout: 'soon' })).toThrow(/connectTimeout must be a positive duration/);
    const fs = mcpServer({ name: 'fs', command: 'node' });
    expect(() => mcpTools(fs, { tools: { write: { needApproval: true } as never } })).toThrow(
      /tools\.write: unknown setting "needApproval"/,
    );
    expect(() => mcpTools(fs, { only: ['x'] } as never)).toThrow(/unknown option "only"/);
  });

  it('agents refuse two servers of one name and anything that is not a server', () => {
    const a = mcpServer({ name: 'fs', command: 'node' });
    const b = mcpServer({ name: 'fs', url: 'http://h/mcp' });
    expect(() => defineAgent({ name: 'x', model, mcp: [a, mcpTools(b)] })).toThrow(/two MCP servers named "fs"/);
    expect(() => defineAgent({ name: 'x', model, mcp: [{ name: 'fs' }] as never })).toThrow(/mcp\[0\] is not an MCP server or toolset/);
    expect(defineAgent({ name: 'x', model, mcp: [a] }).mcp).toEqual([a]);
  });
});

describe('mcpToolName', () => {
  it('is server__tool, within the rules of tool names, distinct for long names', () => {
    expect(mcpToolName('fs', 'read_file')).toBe('fs__read_file');
    expect(mcpToolName('gh', 'repos.list/all')).toBe('gh__repos_list_all');
    const long1 = mcpToolName('server', `${'x'.repeat(80)}a`);
    const long2 = mcpToolName('server', `${'x'.repeat(80)}b`);
    expect(long1).toMatch(NAME);
    expect(long2).toMatch(NAME);
    expect(long1).not.toBe(long2);
    expect(mcpToolName('server', `${'x'.repeat(80)}a`)).toBe(long1);
  });
});

describe('resultText', () => {
  it('joins text, describes images and binary resources, keeps text resources and links', () => {
    const text = resultText({
      content: [
        { type: 'text', text: 'first' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'inside' } },
        { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AAAAAA==' } },
        { type: 'resource_link', uri: 'file:///c', name: 'c', description: 'a link' },
      ],
    });
    expect(text).toBe(
      [
        'first',
        '[image image/png, 3 bytes: not shown]',
        '[resource file:///a.txt (text/plain)]\ninside',
        '[resource file:///b.bin, 4 bytes of binary content: not shown]',
        '[resource link "c": file:///c] a link',
      ].join('\n'),
    );
  });

  it('shows structured content when there is no content', () => {
    expect(resultText({ content: [], structuredContent: { sum: 5 } })).toBe('{\n  "sum": 5\n}');
  });
});
