/**
 * Access grants, for the dashboard only: roles/web.ts is the one router that names this
 * file, so no MCP client (gateway, observer) can grant; every procedure is an operator
 * procedure, so it also refuses any other role, and on web.sock it needs the signed-in
 * operator's session token. The grant events record that operator's user name, which the
 * broker derived from the token: the caller cannot name anyone.
 */
import {
  AppError,
  bulkSetGrantsInputSchema,
  GRANT_LIMITS,
  grantEventsInputSchema,
  revokeGrantInputSchema,
  setGrantInputSchema,
  type BulkSetGrantsResult,
  type GrantEventsPage,
  type GrantList,
  type RevokeGrantResult,
  type SetGrantResult,
} from '@terminal-mcp/contract';
import { changeGrants, revokeGrant, type GrantRequest } from '../../grants/change-grants.js';
import { grantEventView, grantView, listGrantAccess } from '../../grants/grant-views.js';
import { resolveGrantExpiry } from '../../policy/grants.js';
import { operatorProcedure } from '../operator.js';
import { raise } from '../trpc.js';

/** The time box the operator asked for, as ms since the epoch (null: until revoked). */
function expiryOf(input: { expires_in_s?: number | undefined; expires_at?: string | undefined }, now: number): number | null {
  const expiry = resolveGrantExpiry({ expiresInSeconds: input.expires_in_s, expiresAt: input.expires_at }, now, GRANT_LIMITS.maxExpiresInSeconds);
  if (expiry.ok) return expiry.expiresAt;
  raise(new AppError('INVALID_ARGUMENT', expiry.reason === 'NOT_IN_FUTURE' ? 'expires_at must be in the future' : 'a grant can last at most 366 days'));
}

const unixSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

export const grants = {
  /** Every live session with its access and grant, plus grants left without a session. */
  list: operatorProcedure.query(({ ctx }): Promise<GrantList> => listGrantAccess(ctx.deps, Date.now())),

  /** Grants read (and optionally input) to one session, pinned to the identity it has now;
   * `read: false` revokes. */
  set: operatorProcedure.input(setGrantInputSchema).mutation(async ({ ctx, input }): Promise<SetGrantResult> => {
    const now = Date.now();
    const request: GrantRequest = {
      session: input.session,
      read: input.read,
      input: input.input,
      expiresAt: input.read ? expiryOf(input, now) : null,
      expect: input.expect && { sessionId: input.expect.session_id, created: unixSeconds(input.expect.created) },
    };
    const [outcome] = await changeGrants(ctx.deps, ctx.operator.username, [request], now);
    if (!outcome!.ok) raise(outcome!.error);
    const grant = outcome!.grant;
    return { grant: grant === undefined ? null : grantView(grant, grant.identity, now) };
  }),

  /** Takes read and input away; also for stale grants. */
  revoke: operatorProcedure.input(revokeGrantInputSchema).mutation(({ ctx, input }): RevokeGrantResult => ({
    revoked: revokeGrant(ctx.deps, ctx.operator.username, input.session, Date.now()),
  })),

  /** The same flags for up to 100 sessions, in one transaction; each session's outcome is
   * reported (a sensitive or missing one does not stop the others). */
  bulkSet: operatorProcedure.input(bulkSetGrantsInputSchema).mutation(async ({ ctx, input }): Promise<BulkSetGrantsResult> => {
    const now = Date.now();
    const expiresAt = input.read ? expiryOf(input, now) : null;
    const requests = input.sessions.map((session): GrantRequest => ({ session, read: input.read, input: input.input, expiresAt }));
    const outcomes = await changeGrants(ctx.deps, ctx.operator.username, requests, now);
    return {
      results: outcomes.map((o) =>
        o.ok
          ? { session: o.session, ok: true as const, grant: o.grant === undefined ? null : grantView(o.grant, o.grant.identity, now) }
          : { session: o.session, ok: false as const, error_code: o.error.code, message: o.error.message },
      ),
    };
  }),

  /** The change log, newest first; pass `next_cursor` back as `cursor` for older events. */
  events: operatorProcedure.input(grantEventsInputSchema).query(({ ctx, input }): GrantEventsPage => {
    const limit = input.limit ?? GRANT_LIMITS.eventsPageDefault;
    const events = ctx.deps.stores.grants.events({ limit, before: input.cursor, sessionName: input.session });
    return { events: events.map(grantEventView), next_cursor: events.length === limit ? events.at(-1)!.id : null };
  }),
};
