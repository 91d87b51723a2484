/** Schemas of the access-grant procedures (`grants.*`, web.sock only: no MCP tool can
 * grant). No input names the operator: the dashboard's server sends the operator's
 * session token, and the broker records the user it belongs to with every change. Fields are snake_case like the session summaries they
 * sit next to in the dashboard. Every string and array is capped. */
import { z } from 'zod';
import { listedNodeSchema } from './nodes.js';
import { sessionNameSchema, sessionSummarySchema } from './sessions.js';

export const GRANT_LIMITS = {
  /** Sessions one bulk change may name. */
  bulkSessions: 100,
  /** The longest time box: one year. */
  maxExpiresInSeconds: 366 * 24 * 3600,
  /** Grant events per page. */
  eventsPageMax: 200,
  eventsPageDefault: 50,
} as const;

const isoTime = z.iso.datetime({ offset: true });

/** Optional time box: a duration from now, or an absolute end (ISO 8601, in the future,
 * at most a year ahead). Neither means the grant lasts until revoked. */
const expiryShape = {
  expires_in_s: z.number().int().min(1).max(GRANT_LIMITS.maxExpiresInSeconds).optional(),
  expires_at: isoTime.optional(),
};

/** What the operator saw when deciding: if given, the grant is made only if the session
 * still has this identity (otherwise IDENTITY_CHANGED), so a session replaced between
 * looking and clicking is never granted by accident. A node's session id is listed as
 * `node:$N`; it must name the same node as the session. */
export const expectedSessionSchema = z
  .object({ session_id: z.string().regex(/^(?:[a-z][a-z0-9_-]{0,31}:)?\$\d{1,10}$/), created: isoTime })
  .strict();

type AccessFlags = { read: boolean; input: boolean; expires_in_s?: number | undefined; expires_at?: string | undefined };
const inputNeedsRead = (v: AccessFlags) => !v.input || v.read;
const inputNeedsReadIssue = { message: 'input requires read', path: ['input'] };
const oneExpiry = (v: AccessFlags) => v.expires_in_s === undefined || v.expires_at === undefined;
const oneExpiryIssue = { message: 'give expires_in_s or expires_at, not both', path: ['expires_at'] };

/** Sets a session's grant. `read: false` (with `input: false`) revokes it. */
export const setGrantInputSchema = z
  .object({
    session: sessionNameSchema,
    read: z.boolean(),
    input: z.boolean(),
    ...expiryShape,
    expect: expectedSessionSchema.optional(),
  })
  .strict()
  .refine(inputNeedsRead, inputNeedsReadIssue)
  .refine(oneExpiry, oneExpiryIssue);
export type SetGrantInput = z.infer<typeof setGrantInputSchema>;

export const revokeGrantInputSchema = z.object({ session: sessionNameSchema }).strict();
export type RevokeGrantInput = z.infer<typeof revokeGrantInputSchema>;

export const bulkSetGrantsInputSchema = z
  .object({
    sessions: z
      .array(sessionNameSchema)
      .min(1)
      .max(GRANT_LIMITS.bulkSessions)
      .refine((names) => new Set(names).size === names.length, 'session names must be unique'),
    read: z.boolean(),
    input: z.boolean(),
    ...expiryShape,
  })
  .strict()
  .refine(inputNeedsRead, inputNeedsReadIssue)
  .refine(oneExpiry, oneExpiryIssue);
export type BulkSetGrantsInput = z.infer<typeof bulkSetGrantsInputSchema>;

export const grantEventsInputSchema = z
  .object({
    limit: z.number().int().min(1).max(GRANT_LIMITS.eventsPageMax).optional(),
    /** `next_cursor` of the previous page: events older than it. */
    cursor: z.number().int().min(1).optional(),
    session: sessionNameSchema.optional(),
  })
  .strict();
export type GrantEventsInput = z.infer<typeof grantEventsInputSchema>;

/** `active`: admits now. `expired`: its time box ended. `stale`: the session it was pinned
 * to is gone or was replaced (same name, new identity); it never admits again. */
export const grantStateSchema = z.enum(['active', 'expired', 'stale']);
export type GrantState = z.infer<typeof grantStateSchema>;

/** The session identity a grant is pinned to. */
export const pinnedSessionSchema = z.object({
  server_pid: z.number().int(),
  session_id: z.string(),
  created: z.string().describe('ISO 8601 time the pinned session was created'),
});

export const grantViewSchema = z.object({
  session: z.string(),
  read: z.boolean(),
  input: z.boolean(),
  state: grantStateSchema,
  expires_at: z.string().nullable(),
  granted_by: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  pinned: pinnedSessionSchema,
  /** In `orphaned_grants` only: the grant is on a node (`node:session`) that cannot be
   * listed now, so whether its session still lives is not known (`state` then judges the
   * time box alone). It admits nothing while the node is down. */
  node_down: z.literal(true).optional(),
});
export type GrantView = z.infer<typeof grantViewSchema>;

/** One live session as the access dialog sees it. */
export const sessionAccessSchema = sessionSummarySchema.extend({
  /** the config whitelist alone admits reading */
  whitelisted: z.boolean(),
  /** the name contains a sensitive word: it can never be granted */
  sensitive: z.boolean(),
  grantable: z.boolean(),
  /** the stored grant under this name, in whatever state */
  grant: grantViewSchema.nullable(),
  /** input is allowed and the pane's foreground program is a shell (read from the pane's
   * process tree): typing there is operator-level access, it can run `tmux` against every
   * session on the server */
  foreground_shell: z.boolean(),
});
export type SessionAccess = z.infer<typeof sessionAccessSchema>;

export const grantListSchema = z.object({
  read_enabled: z.boolean(),
  input_enabled: z.boolean(),
  sessions: z.array(sessionAccessSchema),
  /** grants whose name no live session has (kept until revoked or re-granted), and grants
   * on nodes that are down (`node_down`) */
  orphaned_grants: z.array(grantViewSchema),
  /** each configured node's state (absent: none configured): `sessions` holds an up node's
   * sessions as `node:session`; a down node's are not known, and it is listed as down */
  nodes: z.array(listedNodeSchema).optional(),
});
export type GrantList = z.infer<typeof grantListSchema>;

export const setGrantResultSchema = z.object({ grant: grantViewSchema.nullable() });
export type SetGrantResult = z.infer<typeof setGrantResultSchema>;

export const revokeGrantResultSchema = z.object({ revoked: z.boolean() });
export type RevokeGrantResult = z.infer<typeof revokeGrantResultSchema>;

export const bulkGrantItemSchema = z.union([
  z.object({ session: z.string(), ok: z.literal(true), grant: grantViewSchema.nullable() }),
  z.object({ session: z.string(), ok: z.literal(false), error_code: z.string(), message: z.string() }),
]);
export type BulkGrantItem = z.infer<typeof bulkGrantItemSchema>;
export const bulkSetGrantsResultSchema = z.object({ results: z.array(bulkGrantItemSchema) });
export type BulkSetGrantsResult = z.infer<typeof bulkSetGrantsResultSchema>;

export const grantFlagsSchema = z.object({ read: z.boolean(), input: z.boolean(), expires_at: z.string().nullable() });

export const grantEventSchema = z.object({
  id: z.number().int(),
  at: z.string(),
  actor: z.string(),
  action: z.enum(['grant', 'revoke']),
  session: z.string(),
  /** the state after the change (all false after a revoke) */
  after: grantFlagsSchema,
  /** the state before, null when there was no grant */
  before: grantFlagsSchema.nullable(),
  pinned: pinnedSessionSchema,
});
export type GrantEvent = z.infer<typeof grantEventSchema>;

export const grantEventsPageSchema = z.object({ events: z.array(grantEventSchema), next_cursor: z.number().int().nullable() });
export type GrantEventsPage = z.infer<typeof grantEventsPageSchema>;
