/**
 * Keeps registry.db's session_registry in step with tmux: on every session list (cheap:
 * identities and status only) and on a slow, unref'd timer that also records the last
 * redacted screen of each session readable now (and forgets it once the session is not).
 * A session that vanished keeps its row, so `terminal_list_sessions(include_dead=true)`
 * can say what happened to it. While tmux cannot be listed nothing is changed: a broken
 * connection is not evidence that sessions died.
 *
 * Polling is a stop-gap: once the control-mode client (effects/tmux) reports
 * %sessions-changed / %session-renamed notifications, reconcile on those instead.
 */
import type { DeadSession } from '@terminal-mcp/contract';
import type { Logger } from 'pino';
import type { AccessGate } from '../access/gate.js';
import type { BrokerConfig } from '../config/schema.js';
import type { StoreSet } from '../effects/store/store-set.js';
import type { ListedSession, TmuxAdapter } from '../effects/tmux/types.js';
import type { SessionReader } from '../reads/session-reader.js';
import { sessionRegistryStore, type RegistryRecord } from '../effects/store/registry-store.js';

/** What the registry uses: tmux's session list, registry.db, and the read gate and reader
 * (a gone session's last screen is kept only for sessions the caller could read). */
export interface RegistryDeps {
  config: BrokerConfig;
  tmux: TmuxAdapter;
  stores: StoreSet;
  log: Logger;
  access: AccessGate;
  reader: SessionReader;
}

/** Lines of the visible bottom of the pane kept as "last screen", and a hard cap. */
const SCREEN_LINES = 40;
const SCREEN_MAX_CHARS = 8_000;
const DEAD_LIST_MAX = 200;

const storeOf = (deps: Pick<RegistryDeps, 'stores'>) => sessionRegistryStore(deps.stores.db('registry'));

/** What each store last reconciled: the identities of the sessions listed then. */
const lastListing = new WeakMap<StoreSet, string>();
const listingKey = (live: readonly ListedSession[]) => live.map((s) => `${s.serverPid}\t${s.sessionId}\t${s.created}\t${s.name}`).join('\n');

/** Records a listing taken for another reason (terminal_list_sessions): a write only when
 * a session came, went or was renamed since the last reconcile, so listing stays a read.
 * The timer's full pass (reconcileSessionRegistry) keeps last_seen and screens current. */
export function noteSessionListing(deps: RegistryDeps, live: readonly ListedSession[]): void {
  if (lastListing.get(deps.stores) === listingKey(live)) return;
  reconcileListing(deps, live, Date.now());
}

function reconcileListing(deps: RegistryDeps, live: readonly ListedSession[], now: number): Map<string, number> {
  const ids = storeOf(deps).reconcile(
    live.map((s) => ({ name: s.name, serverPid: s.serverPid, sessionId: s.sessionId, sessionCreated: s.created, currentCommand: s.activePane?.currentCommand ?? null })),
    live[0]?.serverPid ?? null,
    now,
  );
  lastListing.set(deps.stores, listingKey(live));
  return ids;
}

/** One reconcile pass; false when tmux could not be listed (nothing was changed). */
export async function reconcileSessionRegistry(deps: RegistryDeps, opts: { screens: boolean }): Promise<boolean> {
  let live;
  try {
    live = await deps.tmux.listSessions();
  } catch {
    return false;
  }
  const now = Date.now();
  const ids = reconcileListing(deps, live, now);
  if (!opts.screens) return true;
  for (const s of live) {
    const id = ids.get(s.sessionId);
    if (id === undefined) continue;
    if (!deps.access.canRead(s.name, deps.access.grantOf(s.name, s))) {
      storeOf(deps).setScreen(id, null, now);
      continue;
    }
    try {
      const screen = await deps.reader.tail(s.name, SCREEN_LINES, true);
      storeOf(deps).setScreen(id, screen.text.slice(-SCREEN_MAX_CHARS), Date.now());
    } catch {
      // Gone or denied between the list and the read: keep what was recorded.
    }
  }
  return true;
}

export interface SessionRegistryTimer {
  stop(): void;
}

/** Reconciles now and every `session_lifecycle.reconcile_interval_seconds`; a pass still
 * running when the next is due is not doubled. */
export function startSessionRegistry(deps: RegistryDeps): SessionRegistryTimer {
  let running = false;
  const pass = () => {
    if (running) return;
    running = true;
    reconcileSessionRegistry(deps, { screens: true })
      .catch((err: unknown) => deps.log.warn({ event: 'registry.reconcile_failed', err }, 'session registry reconcile failed'))
      .finally(() => {
        running = false;
      });
  };
  pass();
  const timer = setInterval(pass, deps.config.session_lifecycle.reconcile_interval_seconds * 1000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Sessions the registry remembers that tmux no longer has, newest first. The last screen
 * is shown only when the caller could read a session of that name by the config now (a
 * grant was pinned to the live session and died with it). */
export function listDeadSessions(deps: Pick<RegistryDeps, 'config' | 'stores' | 'access'>): DeadSession[] {
  return storeOf(deps)
    .list({ statuses: ['MISSING', 'KILLED', 'DELETED'] })
    .slice(0, DEAD_LIST_MAX)
    .map((r: RegistryRecord) => ({
      name: r.name,
      session_id: r.sessionId,
      created: new Date(r.sessionCreated * 1000).toISOString(),
      status: r.status,
      first_seen: iso(r.firstSeen)!,
      last_seen: iso(r.lastSeen)!,
      status_changed_at: iso(r.statusChangedAt)!,
      conversation_id: r.conversationId,
      notes: r.notes,
      last_screen: r.lastScreen !== null && deps.access.canRead(r.name, null) ? r.lastScreen : null,
      last_screen_at: r.lastScreen !== null && deps.access.canRead(r.name, null) ? iso(r.lastScreenAt) : null,
      deleted_by: r.deletedBy,
    }));
}
