/**
 * Toolsets: the gateway's tool families, enabled per kind of caller or per OAuth client in
 * config.yaml (`gateway.toolsets`). A client is listed, and may call, only the tools of its
 * toolsets, so a client that needs reading and typing does not pay in every conversation
 * for the supervisor's or the notes' catalogue. The names are a public config API; which
 * tool belongs to which toolset is the gateway's table (services/gateway/src/tools/toolsets.ts).
 */
import { z } from 'zod';

/** `core` (list, read, status, wait) is always served: every other tool starts from a
 * session name it gives. Families that land later (nodes) are added here. */
export const GATEWAY_TOOLSETS = ['core', 'input', 'transcripts', 'bindings', 'supervisor', 'notes', 'projects', 'lifecycle'] as const;
export type GatewayToolset = (typeof GATEWAY_TOOLSETS)[number];

/** What most clients need: read, wait, type, and read what is new since a cursor. */
export const DEFAULT_GATEWAY_TOOLSETS: readonly GatewayToolset[] = ['core', 'input', 'transcripts'];

/** Who connects, as far as the catalogue cares: the operator's own stdio client, an HTTP
 * client with the static token (or none set), or an OAuth client (with its client id). */
export type CatalogueCallerKind = 'stdio' | 'http' | 'oauth';

export const toolsetListSchema = z
  .array(z.enum(GATEWAY_TOOLSETS))
  .max(GATEWAY_TOOLSETS.length * 2)
  .describe('toolset names; core is always included');

/** An OAuth client id as the authorization server issues it (shown on the dashboard's
 * Connectors page). */
const oauthClientIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'an OAuth client id (letters, digits, _ and -)');

/**
 * `default` applies to every caller without a more specific entry; `stdio`, `http` and
 * `oauth` to that kind of caller; `clients` to one OAuth client by id (most specific).
 * The scopes of an OAuth token then hide what it cannot use.
 */
export const gatewayToolsetsConfigSchema = z
  .object({
    default: toolsetListSchema.default(() => [...DEFAULT_GATEWAY_TOOLSETS]),
    stdio: toolsetListSchema.optional(),
    http: toolsetListSchema.optional(),
    oauth: toolsetListSchema.optional(),
    clients: z
      .record(oauthClientIdSchema, toolsetListSchema)
      .refine((r) => Object.keys(r).length <= 500, 'at most 500 clients')
      .default(() => ({})),
  })
  .strict();
export type GatewayToolsetsConfig = z.output<typeof gatewayToolsetsConfigSchema>;

export const DEFAULT_GATEWAY_TOOLSETS_CONFIG: GatewayToolsetsConfig = gatewayToolsetsConfigSchema.parse({});

/** The toolsets one caller is served: the most specific entry, with core always in. Pure. */
export function toolsetsForCaller(config: GatewayToolsetsConfig, caller: { kind: CatalogueCallerKind; clientId?: string }): ReadonlySet<GatewayToolset> {
  const byClient = caller.kind === 'oauth' && caller.clientId !== undefined ? config.clients[caller.clientId] : undefined;
  const chosen = byClient ?? config[caller.kind] ?? config.default;
  return new Set<GatewayToolset>(['core', ...chosen]);
}
