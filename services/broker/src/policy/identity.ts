/**
 * What pins a session or a pane for its whole life, and the one comparison of each.
 * tmux ids restart at `$0`/`%0` with a new server, and a session killed and recreated
 * under the same name gets a new id and creation time, so (server pid, session id,
 * created) names one session and (…, pane id, pane pid) one pane: a respawned pane keeps
 * its id but gets a new pid. Every identity in the broker (grants, bindings, input
 * targets, live streams, waits, watchers, re-read pane facts) is one of these two types.
 */

export interface SessionIdentity {
  readonly serverPid: number;
  readonly sessionId: string;
  /** unix seconds, `#{session_created}` */
  readonly created: number;
}

export interface PaneIdentity extends SessionIdentity {
  readonly paneId: string;
  readonly panePid: number;
}

export function sameSession(a: SessionIdentity, b: SessionIdentity): boolean {
  return a.serverPid === b.serverPid && a.sessionId === b.sessionId && a.created === b.created;
}

export function samePane(a: PaneIdentity, b: PaneIdentity): boolean {
  return sameSession(a, b) && a.paneId === b.paneId && a.panePid === b.panePid;
}

/** Just the session identity of anything that carries one (facts, a pane identity). */
export function sessionIdentityOf(s: SessionIdentity): SessionIdentity {
  return { serverPid: s.serverPid, sessionId: s.sessionId, created: s.created };
}
