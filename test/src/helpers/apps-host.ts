/** Client options of an MCP host that shows MCP Apps views (ChatGPT, claude.ai): it declares
 * the ui extension at initialize, and only then does terminal_tail / terminal_status carry
 * the view's fields as structuredContent (shared/mcp-kit tool-server.ts; docs/tools.md).
 * Tests that read those fields connect as such a host. */
export const APPS_HOST_OPTIONS = {
  capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } },
} as const;
