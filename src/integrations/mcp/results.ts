/** What the model reads of an MCP tool's result. */
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';

/** Bytes of base64 data. */
function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/**
 * One content block as text: text as it is; images and audio described (type, MIME type, size: the
 * model gets no bytes); an embedded resource with its text, or described when binary; a resource link
 * by name and URI.
 */
export function contentText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}, ${base64Bytes(block.data)} bytes: not shown]`;
    case 'resource': {
      const r = block.resource;
      const head = `[resource ${r.uri}${r.mimeType ? ` (${r.mimeType})` : ''}]`;
      return 'text' in r && typeof r.text === 'string'
        ? `${head}\n${r.text}`
        : `${head.slice(0, -1)}, ${base64Bytes(String((r as { blob?: string }).blob ?? ''))} bytes of binary content: not shown]`;
    }
    case 'resource_link':
      return `[resource link "${block.name}": ${block.uri}${block.mimeType ? ` (${block.mimeType})` : ''}]${block.description ? ` ${block.description}` : ''}`;
    default:
      return `[${String((block as { type?: unknown }).type)} content: not shown]`;
  }
}

/**
 * The text of a whole result: its content blocks joined by new lines; with no content, its structured
 * content as JSON; an older server's `toolResult` as JSON.
 */
export function resultText(result: CallToolResult | { toolResult: unknown }): string {
  if ('toolResult' in result && !('content' in result)) return JSON.stringify(result.toolResult, null, 2) ?? '';
  const r = result as CallToolResult;
  const content = Array.isArray(r.content) ? r.content : [];
  if (content.length === 0 && r.structuredContent !== undefined) return JSON.stringify(r.structuredContent, null, 2);
  return content.map(contentText).join('\n');
}
