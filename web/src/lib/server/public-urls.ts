/** The public URLs the connectors page shows for the observer and the gateway: what
 * the operator pastes into claude.ai or ChatGPT. The web service reads the same variables
 * the observer and gateway read (TERMINAL_MCP_OBSERVER_PUBLIC_URL,
 * TERMINAL_MCP_GATEWAY_PUBLIC_URL) when its environment has them; otherwise the observer's
 * URL is taken from the resources its live OAuth grants were issued for. A value that is
 * not a plain http(s) origin is ignored, never shown. */
import type { OAuthGrantSummary } from '@terminal-mcp/contract';

export interface PublicUrl {
  /** The MCP endpoint to paste into the client. */
  url: string;
  source: 'configured' | 'grants';
}

export interface PublicUrls {
  observer: PublicUrl[];
  gateway: PublicUrl[];
}

/** `https://host[:port][/path]` without credentials, query or fragment, as the MCP URL. */
export function mcpUrlFrom(raw: string | undefined): string | undefined {
  const value = raw?.trim();
  if (!value) return undefined;
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return undefined;
  }
  if ((u.protocol !== 'https:' && u.protocol !== 'http:') || u.username || u.password || u.search || u.hash) return undefined;
  const path = u.pathname.replace(/\/+$/, '');
  return `${u.origin}${path.endsWith('/mcp') ? path : `${path}/mcp`}`;
}

export function publicUrls(env: NodeJS.ProcessEnv, grants: readonly OAuthGrantSummary[]): PublicUrls {
  const observerConfigured = mcpUrlFrom(env.TERMINAL_MCP_OBSERVER_PUBLIC_URL);
  const gatewayConfigured = mcpUrlFrom(env.TERMINAL_MCP_GATEWAY_PUBLIC_URL);
  const seen = [...new Set(grants.map((g) => mcpUrlFrom(g.resource)).filter((u): u is string => u !== undefined))]
    .filter((u) => u !== observerConfigured && u !== gatewayConfigured)
    .slice(0, 5);
  return {
    observer: [...(observerConfigured ? [{ url: observerConfigured, source: 'configured' as const }] : []), ...seen.map((url) => ({ url, source: 'grants' as const }))],
    gateway: gatewayConfigured ? [{ url: gatewayConfigured, source: 'configured' }] : [],
  };
}
