/** The gateway's api.md and skills.md for a tool list (the caller's: today every scope
 * set serves the same tools, see http/oauth-profile.ts), generated from the definitions
 * and cached per distinct list, since stateless HTTP builds a server per request. */
import { renderApiMarkdown, renderSkillMarkdown, type InstanceDocs } from '@terminal-mcp/mcp-kit';
import type { GatewayTool } from './tools/index.js';

const TITLE = 'Terminal MCP gateway';
// eslint-disable-next-line terminal-mcp/no-module-state -- a bounded memo of a pure render of constant tool definitions, keyed by its whole input: unobservable
const cache = new Map<string, InstanceDocs>();

export function gatewayDocs(tools: readonly GatewayTool[], mcpUrl?: string): InstanceDocs {
  const key = JSON.stringify([mcpUrl ?? null, tools.map((t) => t.name)]);
  let docs = cache.get(key);
  if (docs === undefined) {
    const info = { title: TITLE, ...(mcpUrl ? { mcpUrl } : {}) };
    docs = { api: renderApiMarkdown(tools, info), skills: renderSkillMarkdown(tools, info) };
    // A handful of tool lists and URLs exist per process; the bound is only a guard.
    if (cache.size > 32) cache.clear();
    cache.set(key, docs);
  }
  return docs;
}
