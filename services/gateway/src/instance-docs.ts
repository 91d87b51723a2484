/** The gateway's api.md and skills.md for a tool list (the caller's: today every scope
 * set serves the same tools, see http/oauth-profile.ts), generated from the definitions
 * and cached per distinct list by its owner (createDocsCache), since stateless HTTP builds
 * a server per request. */
import { renderApiMarkdown, renderSkillMarkdown, type InstanceDocs } from '@terminal-mcp/mcp-kit';
import { renderCurlSection } from './curl-docs.js';
import type { GatewayTool } from './tools/index.js';

const TITLE = 'Terminal MCP gateway';
/** Renders api.md and skills.md for a tool list. */
export function gatewayDocs(tools: readonly GatewayTool[], mcpUrl?: string): InstanceDocs {
  const info = { title: TITLE, ...(mcpUrl ? { mcpUrl } : {}) };
  // The scripts' API lives on the HTTP gateway only (stdio has no URL).
  const curl = mcpUrl ? renderCurlSection(tools, mcpUrl.replace(/\/mcp$/, '')) : '';
  return { api: renderApiMarkdown(tools, info), skills: renderSkillMarkdown(tools, info) + (curl ? `\n${curl}` : '') };
}

export type GatewayDocsOf = typeof gatewayDocs;

/** The docs of one gateway (startGatewayHttp owns one for all its per-request servers; a
 * server built alone owns its own), rendered once per distinct tool list and URL. A
 * handful exist; the bound is only a guard. */
export function createDocsCache(max = 32): GatewayDocsOf {
  const cache = new Map<string, InstanceDocs>();
  return (tools, mcpUrl) => {
    const key = JSON.stringify([mcpUrl ?? null, tools.map((t) => t.name)]);
    let docs = cache.get(key);
    if (docs === undefined) {
      docs = gatewayDocs(tools, mcpUrl);
      if (cache.size >= max) cache.clear();
      cache.set(key, docs);
    }
    return docs;
  };
}
