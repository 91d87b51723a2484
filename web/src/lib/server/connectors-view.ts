/** The observer's OAuth clients and their live grants, as the `/connectors` page shows
 * them. The broker keeps no per-request "last used" time; a client's last use is the
 * newest token issue or refresh among its live grants (tokens are refreshed as they are
 * used, so it trails real use by at most one access-token lifetime). */
import type { OAuthClientSummary, OAuthGrantSummary } from '@terminal-mcp/contract';
import { broker } from './broker.js';
import { publicUrls, type PublicUrls } from './public-urls.js';

export interface ConnectorClientView extends OAuthClientSummary {
  /** ISO 8601, or null when the client holds no live grant. */
  lastUsedAt: string | null;
}

export interface ConnectorsPageData {
  clients: ConnectorClientView[];
  revokedClients: ConnectorClientView[];
  grants: OAuthGrantSummary[];
  /** Users with live grants, each with how many (for "revoke all for user"). */
  users: { username: string; grants: number }[];
  publicUrls: PublicUrls;
}

export function lastUseByClient(grants: readonly OAuthGrantSummary[]): Map<string, string> {
  const last = new Map<string, string>();
  for (const g of grants) {
    const prev = last.get(g.clientId);
    if (prev === undefined || Date.parse(g.lastRefreshedAt) > Date.parse(prev)) last.set(g.clientId, g.lastRefreshedAt);
  }
  return last;
}

export async function loadConnectors(): Promise<ConnectorsPageData> {
  const [clients, grants] = await Promise.all([broker().oauthAdmin.listClients.query(), broker().oauthAdmin.listGrants.query()]);
  const lastUse = lastUseByClient(grants);
  const views = clients.map((c): ConnectorClientView => ({ ...c, lastUsedAt: lastUse.get(c.clientId) ?? null }));
  const perUser = new Map<string, number>();
  for (const g of grants) perUser.set(g.username, (perUser.get(g.username) ?? 0) + 1);
  return {
    clients: views.filter((c) => c.revokedAt === null),
    revokedClients: views.filter((c) => c.revokedAt !== null),
    grants,
    publicUrls: publicUrls(process.env, grants),
    users: [...perUser].map(([username, n]) => ({ username, grants: n })).sort((a, b) => a.username.localeCompare(b.username)),
  };
}
