/** The answer of an MCP tool, shared by the note tools (tools.ts) and the history tools (history-tools.ts). */

/** A tool's answer: structured content, or an error with the REST envelope's code. */
export type McpToolResult = {
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  isError?: boolean;
};

/** A successful answer carrying `data` both as text and as structured content. */
export const toolResult = (data: Record<string, unknown>): McpToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(data) }],
  structuredContent: data,
});
