/** A session pinned by identity: tmux ids restart at `$0` with a new server, and a
 * session killed and recreated under the same name gets a new id, so (server pid,
 * session id, created) names one session for its whole life. */
import { AppError } from '@terminal-mcp/contract';
import type { SessionFacts } from '../effects/tmux/types.js';

export interface SessionIdentity {
  readonly serverPid: number;
  readonly sessionId: string;
  readonly created: number;
}

export function identityOf(s: Pick<SessionFacts, 'serverPid' | 'sessionId' | 'created'>): SessionIdentity {
  return { serverPid: s.serverPid, sessionId: s.sessionId, created: s.created };
}

export function sameIdentity(a: SessionIdentity, b: SessionIdentity): boolean {
  return a.serverPid === b.serverPid && a.sessionId === b.sessionId && a.created === b.created;
}

export function assertSameIdentity(pinned: SessionIdentity, now: SessionIdentity): void {
  if (!sameIdentity(pinned, now)) {
    throw new AppError('IDENTITY_CHANGED', 'the session was replaced by another one with the same name');
  }
}
