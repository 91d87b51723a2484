/**
 * Making and revoking grants. The session is resolved from tmux at the moment of the
 * change, never from what the dashboard says, and the grant is pinned to the identity
 * found. Every applied change writes its `grant_events` row in the same transaction
 * (effects/store/grants-store.ts), so nothing changes without its audit row.
 */
import { AppError } from '@terminal-mcp/contract';
import type { Logger } from 'pino';
import type { StoresOf } from '../capabilities.js';
import type { SessionFacts, TmuxAdapter } from '../effects/tmux/types.js';
import type { GrantMutation } from '../effects/store/grants-store.js';
import { SENSITIVE_NAME_WORDS } from '../policy/access.js';
import { checkGrantRequest, type GrantRecord } from '../policy/grants.js';
import { sameSession, sessionIdentityOf } from '../policy/identity.js';
import { qualify, splitNodeName, type NodeSessionName } from '../nodes/node-names.js';
import type { NodeSet } from '../nodes/node-set.js';

export interface GrantRequest {
  session: string;
  /** false (with input false): revoke */
  read: boolean;
  input: boolean;
  /** ms since the epoch; null: until revoked */
  expiresAt: number | null;
  /** the identity the operator saw; the change is refused if the session has another */
  expect?: { sessionId: string; created: number } | undefined;
}

export type GrantOutcome = { session: string; ok: true; grant: GrantRecord | undefined } | { session: string; ok: false; error: AppError };

/** `nodes`: a `node:session` is resolved on that node's tmux (absent: this host only). */
type GrantDeps = { tmux: TmuxAdapter; stores: StoresOf<'grants'>; log: Logger; nodes?: NodeSet | undefined };

/** The bare tmux id of an expected `node:$N` (or `$N` for this host); '' when it names
 * another host than the session's, which matches no session. */
function expectedId(listed: string, node: string | undefined): string {
  const colon = listed.indexOf(':');
  if (colon < 0) return node === undefined ? listed : '';
  return listed.slice(0, colon) === node ? listed.slice(colon + 1) : '';
}

/** The live sessions of each host the requests name, listed once per host, at the time of
 * the change; a node that cannot be listed is its error (its requests fail with it). */
async function listingsOf(deps: GrantDeps, hosts: ReadonlySet<string | undefined>): Promise<Map<string | undefined, readonly SessionFacts[] | AppError>> {
  const out = new Map<string | undefined, readonly SessionFacts[] | AppError>();
  await Promise.all(
    [...hosts].map(async (node) => {
      try {
        out.set(node, node === undefined ? await deps.tmux.listSessions() : await deps.nodes!.on(node, (n) => n.tmux.listSessions()));
      } catch (err) {
        if (node === undefined || !(err instanceof AppError)) throw err;
        out.set(node, err);
      }
    }),
  );
  return out;
}

const SENSITIVE_REFUSAL = new AppError(
  'FORBIDDEN',
  `sessions whose names contain ${SENSITIVE_NAME_WORDS.join(', ')} can never be granted`,
  'A sensitive session can only be read by listing its exact name in allowed_session_patterns in config.yaml.',
);

function saveFailed(deps: { log: Logger }, err: unknown): AppError {
  deps.log.error({ event: 'grants.store_failed', err }, 'grant change could not be written; nothing was changed');
  return new AppError('STORE_UNAVAILABLE', 'the grant change could not be saved; nothing was changed');
}

/**
 * Applies each request that may be applied, all in one transaction, and reports every
 * request's outcome in order: refused ones (sensitive name, no such session, identity
 * changed) do not stop the others.
 */
export async function changeGrants(deps: GrantDeps, actor: string, requests: readonly GrantRequest[], now: number): Promise<GrantOutcome[]> {
  const nodeNames = deps.nodes?.names() ?? [];
  // Each request's host and name there (an unknown node is its refusal).
  const named = requests.map((r): NodeSessionName | AppError => {
    try {
      return splitNodeName(r.session, nodeNames);
    } catch (err) {
      if (err instanceof AppError) return err;
      throw err;
    }
  });
  const hosts = new Set(named.flatMap((n, i) => (n instanceof AppError || !requests[i]!.read ? [] : [n.node])));
  const listings = await listingsOf(deps, hosts);
  const planned = requests.map((r, i): { session: string; error: AppError } | { session: string; mutation: GrantMutation } => {
    const name = named[i]!;
    // Revoking needs no live session nor a configured node: a stale grant (of a node no
    // longer configured too) can be taken back under the name it is stored as.
    if (!r.read && !r.input) return { session: r.session, mutation: { kind: 'revoke', sessionName: name instanceof AppError ? r.session : qualify(name.node, name.session) } };
    if (name instanceof AppError) return { session: r.session, error: name };
    const refusal = checkGrantRequest(name.session, r);
    if (refusal === 'SENSITIVE_NAME') {
      deps.log.warn({ event: 'security.grant_refused', actor, reason: 'sensitive_name' }, 'refused to grant a sensitive session');
      return { session: r.session, error: SENSITIVE_REFUSAL };
    }
    if (refusal === 'INPUT_NEEDS_READ') return { session: r.session, error: new AppError('INVALID_ARGUMENT', 'input requires read') };
    const sessions = listings.get(name.node)!;
    if (sessions instanceof AppError) return { session: r.session, error: sessions };
    const found = sessions.find((s) => s.name === name.session);
    if (found === undefined) return { session: r.session, error: new AppError('SESSION_NOT_FOUND', 'no session has exactly that name') };
    // What the page showed names no server: the one running is the one it was listed on. A
    // node's id was listed as node:$N; naming another host's id is no match either.
    if (r.expect !== undefined && !sameSession({ serverPid: found.serverPid, created: r.expect.created, sessionId: expectedId(r.expect.sessionId, name.node) }, found)) {
      return { session: r.session, error: new AppError('IDENTITY_CHANGED', 'the session was replaced since it was listed; nothing was granted') };
    }
    // A node's grant is stored under node:session, pinned to the node's server and session.
    return { session: r.session, mutation: { kind: 'grant', sessionName: qualify(name.node, name.session), identity: sessionIdentityOf(found), input: r.input, expiresAt: r.expiresAt } };
  });

  const mutations = planned.flatMap((p) => ('mutation' in p ? [p.mutation] : []));
  let applied: { grant: GrantRecord | undefined; changed: boolean }[] = [];
  if (mutations.length > 0) {
    try {
      applied = deps.stores.grants.apply(mutations, actor, now);
    } catch (err) {
      throw saveFailed(deps, err);
    }
  }
  let next = 0;
  return planned.map((p): GrantOutcome => {
    if ('error' in p) return { session: p.session, ok: false, error: p.error };
    const result = applied[next++]!;
    if (result.changed) {
      const flags = result.grant ? { read: result.grant.read, input: result.grant.input, expiresAt: result.grant.expiresAt } : { read: false, input: false };
      deps.log.info({ event: 'grants.changed', actor, action: p.mutation.kind, ...flags }, 'session access grant changed');
    }
    return { session: p.session, ok: true, grant: result.grant };
  });
}

/** Takes the grant under `session` away (read and input); false when there was none. */
export function revokeGrant(deps: Omit<GrantDeps, 'tmux'>, actor: string, session: string, now: number): boolean {
  let changed: boolean;
  try {
    changed = deps.stores.grants.apply([{ kind: 'revoke', sessionName: session }], actor, now)[0]!.changed;
  } catch (err) {
    throw saveFailed(deps, err);
  }
  if (changed) deps.log.info({ event: 'grants.changed', actor, action: 'revoke' }, 'session access grant changed');
  return changed;
}
