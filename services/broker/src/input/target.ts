/**
 * Which pane an input (or bound read) goes to, and whether it is still the one a binding
 * pinned. Identity is the tuple (tmux server pid, session id, session creation time, pane
 * id, pane pid): ids restart at `$0`/`%0` with the tmux server and a session recreated
 * under the same name gets a new id and time, so the tuple tells them apart. Names are
 * resolved exactly (never by tmux's prefix or glob matching).
 */
import { AppError } from '@terminal-mcp/contract';
import type { BindingRecord } from '../effects/store/bindings-store.js';
import type { PaneDelivery } from '../effects/tmux/deliver.js';
import type { PaneIdentityFacts } from '../effects/tmux/pane-identity.js';
import type { SessionFacts, TmuxAdapter } from '../effects/tmux/types.js';
import type { EffectiveGrant } from '../policy/grants.js';
import { findSessionByName } from '../reads/resolve-session.js';

export interface PaneIdentity {
  serverPid: number;
  sessionId: string;
  /** unix seconds */
  sessionCreated: number;
  paneId: string;
  panePid: number;
}

export interface ResolvedTarget {
  sessionName: string;
  binding: { name: string; inputEnabled: boolean } | null;
  identity: PaneIdentity;
  currentCommand: string;
  inCopyMode: boolean;
  /** unix seconds of the session's last activity, when known */
  activity: number | null;
  /** The operator's effective grant for this very session, filled in by the input path
   * (input/access.ts); null when there is none or it was not looked up. */
  grant: EffectiveGrant | null;
}

export type TargetRef = { session: string; binding?: undefined } | { binding: string; session?: undefined };

export function sameIdentity(a: PaneIdentity, b: PaneIdentity): boolean {
  return (
    a.serverPid === b.serverPid &&
    a.sessionId === b.sessionId &&
    a.sessionCreated === b.sessionCreated &&
    a.paneId === b.paneId &&
    a.panePid === b.panePid
  );
}

export function identityOfLive(live: PaneIdentityFacts): PaneIdentity {
  return { serverPid: live.serverPid, sessionId: live.sessionId, sessionCreated: live.sessionCreated, paneId: live.paneId, panePid: live.panePid };
}

export function identityOfBinding(b: BindingRecord): PaneIdentity {
  return { serverPid: b.serverPid, sessionId: b.sessionId, sessionCreated: b.sessionCreated, paneId: b.paneId, panePid: b.panePid };
}

/** The session's active pane as an input target; SESSION_NOT_FOUND when there is none. */
export function targetOfSession(s: SessionFacts): ResolvedTarget {
  const pane = s.activePane;
  if (!pane) throw new AppError('SESSION_NOT_FOUND', 'the session has no active pane');
  return {
    sessionName: s.name,
    binding: null,
    identity: { serverPid: s.serverPid, sessionId: s.sessionId, sessionCreated: s.created, paneId: pane.paneId, panePid: pane.panePid },
    currentCommand: pane.currentCommand,
    inCopyMode: pane.inMode,
    activity: s.activity,
    grant: null,
  };
}

export async function resolveSessionTarget(tmux: TmuxAdapter, name: string): Promise<ResolvedTarget> {
  return targetOfSession(findSessionByName(await tmux.listSessions(), name));
}

export type BindingResolution =
  | { state: 'OK'; target: ResolvedTarget }
  | { state: 'MISSING' }
  | { state: 'IDENTITY_CHANGED' };

/**
 * Where a binding points now. MISSING: no session has the bound name (the binding is
 * kept). IDENTITY_CHANGED: a session has the name but is not the pinned one, or the
 * pinned pane is gone, was moved out of it or runs a different process (respawned).
 * The pinned pane stays the target even when another pane of the session is active.
 */
export async function resolveBinding(
  record: BindingRecord,
  sessions: readonly SessionFacts[],
  delivery: Pick<PaneDelivery, 'readIdentity'>,
): Promise<BindingResolution> {
  const s = sessions.find((x) => x.name === record.sessionName);
  if (!s) return { state: 'MISSING' };
  if (s.serverPid !== record.serverPid || s.sessionId !== record.sessionId || s.created !== record.sessionCreated) {
    return { state: 'IDENTITY_CHANGED' };
  }
  const binding = { name: record.name, inputEnabled: record.inputEnabled };
  const pinned = identityOfBinding(record);
  const pane = s.activePane;
  if (pane && pane.paneId === record.paneId && pane.panePid === record.panePid) {
    return { state: 'OK', target: { ...targetOfSession(s), binding } };
  }
  const live = await delivery.readIdentity(record.paneId);
  if (!live || !sameIdentity(identityOfLive(live), pinned)) return { state: 'IDENTITY_CHANGED' };
  return {
    state: 'OK',
    target: { sessionName: s.name, binding, identity: pinned, currentCommand: live.currentCommand, inCopyMode: live.inMode, activity: s.activity, grant: null },
  };
}

/** A binding's target, or the refusal a caller sees: BINDING_NOT_FOUND, SESSION_NOT_FOUND
 * (the bound session is gone; the binding is kept) or IDENTITY_CHANGED. */
export async function requireBoundTarget(
  record: BindingRecord | undefined,
  tmux: TmuxAdapter,
  delivery: Pick<PaneDelivery, 'readIdentity'>,
): Promise<ResolvedTarget> {
  if (!record) throw new AppError('BINDING_NOT_FOUND', 'no binding has that name');
  const resolution = await resolveBinding(record, await tmux.listSessions(), delivery);
  if (resolution.state === 'MISSING') {
    throw new AppError('SESSION_NOT_FOUND', 'the bound session no longer exists (state MISSING); the binding is kept until unbound');
  }
  if (resolution.state === 'IDENTITY_CHANGED') {
    throw new AppError('IDENTITY_CHANGED', 'a different session or pane now has the bound name: rebind with replace: true if it is the one you mean');
  }
  return resolution.target;
}
