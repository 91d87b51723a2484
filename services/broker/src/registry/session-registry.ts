/**
 * Keeps registry.db's session_registry in step with tmux, on tmux's own word: the control
 * client's `%sessions-changed` (created/closed) and `%session-renamed`, its (re)connect (a
 * new server: every session of the old one is gone) and a probe that finds no server at
 * all (adapter.ts `onSessionsChanged`, coalesced: one pass in flight, at most one queued).
 * A session that vanished keeps its row, so `terminal_list_sessions(include_dead=true)`
 * can say what happened to it. While tmux cannot be listed nothing is changed: a broken
 * connection is not evidence that sessions died.
 *
 * The slow timer (`session_lifecycle.reconcile_interval_seconds`, unref'd) stays for the
 * one thing tmux does not announce: what a pane shows. Its pass records the last redacted
 * screen of each session readable now (and forgets it once the session is not), so a
 * session killed later still has a screen; by the time `%sessions-changed` arrives the
 * pane is gone and cannot be read. It also refreshes last_seen and is the fallback for an
 * adapter without notifications.
 *
 * Each node (config `nodes:`) has a registry of its own, the same passes over the node's
 * adapter, gate and reader (`createNodeRegistries`): its rows carry the node, its passes
 * see and change only that node's rows, and a node that is down or unreachable changes
 * nothing (its listing fails; only tmux itself saying that no server runs on the node is
 * "server gone"), as here. A new server pid on the node makes its old sessions MISSING.
 */
import type { DeadSession } from '@terminal-mcp/contract';
import type { Logger } from 'pino';
import type { AccessGate } from '../access/gate.js';
import type { BrokerConfig } from '../config/schema.js';
import { coalesce } from '../effects/tmux/coalesce.js';
import type { SessionFacts, TmuxAdapter } from '../effects/tmux/types.js';
import type { SessionReader } from '../reads/session-reader.js';
import type { RegistryRecord } from '../effects/store/registry-store.js';
import type { StoresOf } from '../capabilities.js';
import { qualify } from '../policy/qualified-name.js';
import { registryName } from '../policy/registry-cleanup.js';
import type { NodeSet } from '../nodes/node-set.js';

/** What the registry uses: tmux's session list, registry.db, and the read gate and reader
 * (a gone session's last screen is kept only for sessions the caller could read). */
export interface RegistryDeps {
  config: BrokerConfig;
  /** The node whose tmux, gate and reader these are; absent: this host. */
  node?: string | undefined;
  tmux: TmuxAdapter;
  stores: StoresOf<'registry'>;
  log: Logger;
  access: AccessGate;
  reader: SessionReader;
  /** Called after each successful pass with the sessions live now (e.g. to start and stop
   * per-session recorders): tmux's listing, or none at all once no server runs. Not called
   * when tmux could not be listed (nothing is known then). A throw is logged and does not
   * undo the pass. */
  onReconciled?: (live: readonly SessionFacts[]) => void | Promise<void>;
}

/** Lines of the visible bottom of the pane kept as "last screen", and a hard cap. */
const SCREEN_LINES = 40;
const SCREEN_MAX_CHARS = 8_000;
const DEAD_LIST_MAX = 200;

const storeOf = (deps: Pick<RegistryDeps, 'stores'>) => deps.stores.registry;

/** What a pass does: list and record (always), read screens too, or (no server runs)
 * record every ACTIVE session as MISSING without asking tmux. */
interface PassRequest {
  screens: boolean;
  serverGone: boolean;
}
/** A queued pass does everything the requests it absorbed asked for; "no server" is a
 * fact about now, so the newest request decides it. */
const mergePasses = (queued: PassRequest, next: PassRequest): PassRequest => ({ screens: queued.screens || next.screens, serverGone: next.serverGone });

export interface SessionRegistry {
  /** Reconciles now (screens too) and subscribes to tmux's session notifications; starts
   * the screens timer. Idempotent. */
  start(): void;
  /** One pass, serialised with the others; false when tmux could not be listed (nothing
   * was changed). */
  reconcile(opts: { screens: boolean }): Promise<boolean>;
  /** Unsubscribes, stops the timer and waits for a pass in flight. */
  stop(): Promise<void>;
}

export function createSessionRegistry(deps: RegistryDeps): SessionRegistry {
  // Every pass goes through one coalescer: notification, timer and explicit passes never
  // overlap, and a burst of requests becomes at most one queued pass.
  const passes = coalesce<PassRequest, boolean>((req) => runPass(deps, req), {
    merge: mergePasses,
    onError: (err) => deps.log.warn({ event: 'registry.reconcile_failed', err }, 'session registry reconcile failed'),
  });
  let timer: NodeJS.Timeout | undefined;
  let unsubscribe: (() => void) | undefined;
  let started = false;

  return {
    start() {
      if (started) return;
      started = true;
      unsubscribe = deps.tmux.onSessionsChanged((change) => passes.request({ screens: false, serverGone: change.cause === 'server-gone' }));
      void passes.request({ screens: true, serverGone: false });
      timer = setInterval(() => void passes.request({ screens: true, serverGone: false }), deps.config.session_lifecycle.reconcile_interval_seconds * 1000);
      timer.unref();
    },
    async reconcile(opts) {
      return (await passes.request({ screens: opts.screens, serverGone: false })) ?? false;
    },
    async stop() {
      unsubscribe?.();
      if (timer !== undefined) clearInterval(timer);
      await passes.stop();
    },
  };
}

/** A registry per configured node (config `nodes:`), each over that node's adapter (its
 * `onSessionsChanged` comes from the node's control client over ssh, as here), gate and
 * reader; started and stopped together. `reconcile` is true when every node's pass listed. */
export function createNodeRegistries(deps: Pick<RegistryDeps, 'config' | 'stores' | 'log'>, nodes: Pick<NodeSet, 'names' | 'get'>): SessionRegistry {
  const each = nodes.names().flatMap((node) => {
    const n = nodes.get(node);
    return n === undefined ? [] : [createSessionRegistry({ ...deps, node, log: deps.log.child({ node }), tmux: n.tmux, access: n.access, reader: n.reader })];
  });
  return {
    start: () => each.forEach((r) => r.start()),
    reconcile: async (opts) => (await Promise.all(each.map((r) => r.reconcile(opts)))).every(Boolean),
    stop: async () => {
      await Promise.all(each.map((r) => r.stop()));
    },
  };
}

async function runPass(deps: RegistryDeps, req: PassRequest): Promise<boolean> {
  let live: SessionFacts[];
  if (req.serverGone) {
    // No server listens: its sessions are gone with it (MISSING: nobody saw them end).
    live = [];
    storeOf(deps).reconcile(deps.node ?? null, [], null, Date.now());
  } else {
    try {
      live = await deps.tmux.listSessions();
    } catch {
      return false;
    }
    const now = Date.now();
    const ids = storeOf(deps).reconcile(
      deps.node ?? null,
      live.map((s) => ({ name: s.name, serverPid: s.serverPid, sessionId: s.sessionId, sessionCreated: s.created, currentCommand: s.activePane?.currentCommand ?? null })),
      live[0]?.serverPid ?? null,
      now,
    );
    if (req.screens) await recordScreens(deps, live, ids, now);
  }
  if (deps.onReconciled) {
    try {
      await deps.onReconciled(live);
    } catch (err) {
      deps.log.warn({ event: 'registry.on_reconciled_failed', err }, 'a session registry listener failed');
    }
  }
  return true;
}

async function recordScreens(deps: RegistryDeps, live: readonly SessionFacts[], ids: ReadonlyMap<string, number>, now: number): Promise<void> {
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
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Sessions the registry remembers that tmux no longer has, newest first, a node's named
 * `node:session` with the id `node:$id`. The last screen is shown under THE rule for gone
 * sessions (access/gate.ts `canReadGone`) of the host the session was on (a node's own
 * gate; none for a node no longer configured), the same one the transcripts listed beside
 * it and every transcript read use. */
export function listDeadSessions(deps: Pick<RegistryDeps, 'config' | 'stores' | 'access'> & { nodes?: Pick<NodeSet, 'get'> | undefined }): DeadSession[] {
  const gateOf = (node: string | null): AccessGate | undefined => (node === null ? deps.access : deps.nodes?.get(node)?.access);
  const shownFor = (r: RegistryRecord) => r.lastScreen !== null && gateOf(r.node)?.canReadGone(r.name, { serverPid: r.serverPid, sessionId: r.sessionId, created: r.sessionCreated }) === true;
  return storeOf(deps)
    .list({ statuses: ['MISSING', 'KILLED', 'DELETED'] })
    .slice(0, DEAD_LIST_MAX)
    .map((r: RegistryRecord) => ({ r, shown: shownFor(r) }))
    .map(({ r, shown }) => ({
      name: registryName(r),
      ...(r.node !== null && { node: r.node }),
      session_id: qualify(r.node, r.sessionId),
      created: new Date(r.sessionCreated * 1000).toISOString(),
      status: r.status,
      first_seen: iso(r.firstSeen)!,
      last_seen: iso(r.lastSeen)!,
      status_changed_at: iso(r.statusChangedAt)!,
      conversation_id: r.conversationId,
      notes: r.notes,
      last_screen: shown ? r.lastScreen : null,
      last_screen_at: shown ? iso(r.lastScreenAt) : null,
      deleted_by: r.deletedBy,
    }));
}
