/**
 * Which pane a read or an input goes to, and whether it is still the one a binding
 * pinned. Identity is a PaneIdentity (policy/identity.ts): a session recreated under the
 * same name, a restarted server or a respawned pane is another identity. Names are
 * resolved exactly (never by tmux's prefix or glob matching).
 */
import { AppError } from '@terminal-mcp/contract';
import type { BindingRecord } from '../effects/store/bindings-store.js';
import type { PaneDelivery } from '../effects/tmux/deliver.js';
import type { PaneFacts, SessionFacts, SessionPanes, TmuxAdapter } from '../effects/tmux/types.js';
import { paneMatches, parsePaneRef } from '../policy/pane-ref.js';
import type { EffectiveGrant } from '../policy/grants.js';
import { sameSession, samePane, type PaneIdentity, type SessionIdentity } from '../policy/identity.js';

export interface ResolvedTarget {
  sessionName: string;
  binding: { name: string; inputEnabled: boolean } | null;
  identity: PaneIdentity;
  currentCommand: string;
  inCopyMode: boolean;
  /** The operator's effective grant for this very session (access/gate.ts); null when
   * there is none. */
  grant: EffectiveGrant | null;
}

/** A target whose content may be read, with its pane's facts read now (size, history,
 * `#{window_activity}`), so every reader (named, bound, live, wait, batch, input context)
 * reads and classifies it the same way. */
export interface ReadableTarget extends ResolvedTarget {
  pane: PaneFacts;
}

/** A session (its active pane, or `pane` inside it: `%id` or `window.pane`, resolved
 * against the session's own listing of panes), or a binding's pinned pane. */
export type TargetRef = { session: string; pane?: string | undefined; binding?: undefined } | { binding: string; session?: undefined; pane?: undefined };

export function identityOfBinding(b: BindingRecord): PaneIdentity {
  return { serverPid: b.serverPid, sessionId: b.sessionId, created: b.sessionCreated, paneId: b.paneId, panePid: b.panePid };
}

/** The bound session as callers and audit rows name it: `node:session` for a node's. */
export const boundSessionName = (b: Pick<BindingRecord, 'node' | 'sessionName'>): string => (b.node === null ? b.sessionName : `${b.node}:${b.sessionName}`);

export const boundOrNull = (b: Pick<BindingRecord, 'node' | 'sessionName'> | undefined): string | null => (b === undefined ? null : boundSessionName(b));

/** The session's active pane as a target; SESSION_NOT_FOUND when there is none. */
export function targetOfSession(s: SessionFacts): ReadableTarget {
  const pane = s.activePane;
  if (!pane) throw new AppError('SESSION_NOT_FOUND', 'the session has no active pane');
  return targetIn(s, pane);
}

/** One pane of session `s` as a target: the identity pins the pane and its session. */
function targetIn(s: SessionFacts, pane: NonNullable<SessionFacts['activePane']>): ReadableTarget {
  return {
    sessionName: s.name,
    binding: null,
    identity: { serverPid: s.serverPid, sessionId: s.sessionId, created: s.created, paneId: pane.paneId, panePid: pane.panePid },
    currentCommand: pane.currentCommand,
    inCopyMode: pane.inMode,
    pane,
    grant: null,
  };
}

/** No pane of the session matches: the same answer whether the value names a pane of
 * another session, a pane that never existed, or one that just closed, so it reveals
 * nothing about any session but this one. */
export const paneNotFound = () =>
  new AppError('SESSION_NOT_FOUND', 'the session has no pane that matches pane', 'Call terminal_list_panes for the session\'s panes (pane id or window.pane) and retry.');

/**
 * `pane` (`%id` or `window.pane`, parsed again here) inside the session `s`, from one
 * listing of that session's panes read now: a pane id of another session is simply not in
 * it. The listing must be of the very session `s` names (server, id, creation time).
 */
export async function targetOfPane(s: SessionFacts, pane: string, tmux: Pick<TmuxAdapter, 'listPanes'>): Promise<ReadableTarget> {
  const ref = parsePaneRef(pane);
  const listed: SessionPanes | null = await tmux.listPanes(s.sessionId);
  if (listed === null || !sameSession(listed, s)) throw paneNotFound();
  const found = listed.panes.find((p) => paneMatches(ref, p));
  if (found === undefined) throw paneNotFound();
  return targetIn(s, found);
}

export type BindingResolution =
  | { state: 'OK'; target: ResolvedTarget; pane: PaneFacts | null }
  | { state: 'MISSING' }
  | { state: 'IDENTITY_CHANGED' };

/**
 * Where a binding points now. MISSING: no session has the bound name (the binding is
 * kept). IDENTITY_CHANGED: a session has the name but is not the pinned one, or the
 * pinned pane is gone, was moved out of it or runs a different process (respawned).
 * The pinned pane stays the target even when another pane of the session is active;
 * `pane` is its facts when it is the active one (from the listing), else null.
 */
export async function resolveBinding(
  record: BindingRecord,
  sessions: readonly SessionFacts[],
  delivery: Pick<PaneDelivery, 'readIdentity'>,
): Promise<BindingResolution> {
  const s = sessions.find((x) => x.name === record.sessionName);
  if (!s) return { state: 'MISSING' };
  const pinned = identityOfBinding(record);
  if (!sameSession(s, pinned)) return { state: 'IDENTITY_CHANGED' };
  const binding = { name: record.name, inputEnabled: record.inputEnabled };
  if (s.activePane) {
    const { pane: facts, ...target } = targetOfSession(s);
    if (samePane(target.identity, pinned)) return { state: 'OK', target: { ...target, binding }, pane: facts };
  }
  const live = await delivery.readIdentity(record.paneId);
  if (!live || !samePane(live, pinned)) return { state: 'IDENTITY_CHANGED' };
  return {
    state: 'OK',
    target: { sessionName: s.name, binding, identity: pinned, currentCommand: live.currentCommand, inCopyMode: live.inMode, grant: null },
    pane: null,
  };
}

/** A binding's target, or the refusal a caller sees: BINDING_NOT_FOUND, SESSION_NOT_FOUND
 * (the bound session is gone; the binding is kept) or IDENTITY_CHANGED. */
export async function requireBoundTarget(
  record: BindingRecord | undefined,
  tmux: Pick<TmuxAdapter, 'listSessions'>,
  delivery: Pick<PaneDelivery, 'readIdentity'>,
): Promise<{ target: ResolvedTarget; pane: PaneFacts | null }> {
  if (!record) throw new AppError('BINDING_NOT_FOUND', 'no binding has that name');
  const resolution = await resolveBinding(record, await tmux.listSessions(), delivery);
  if (resolution.state === 'MISSING') {
    throw new AppError('SESSION_NOT_FOUND', 'the bound session no longer exists (state MISSING); the binding is kept until unbound');
  }
  if (resolution.state === 'IDENTITY_CHANGED') {
    throw new AppError('IDENTITY_CHANGED', 'a different session or pane now has the bound name: rebind with replace: true if it is the one you mean');
  }
  return { target: resolution.target, pane: resolution.pane };
}

/** A stream or a wait pinned at its start: the session under the name must still be that
 * one (a killed and recreated session is another one). */
export function assertSameSession(pinned: SessionIdentity, now: SessionIdentity): void {
  if (!sameSession(pinned, now)) {
    throw new AppError('IDENTITY_CHANGED', 'the session was replaced by another one with the same name');
  }
}
