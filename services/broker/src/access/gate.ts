/**
 * THE access gate: "may this caller read, or type into, this session?" answered in one
 * place, built once per broker from (config, the operator's grants, tmux, the bindings,
 * the clock). The rules themselves are pure (policy/access.ts, policy/grants.ts,
 * policy/input.ts, policy/session-access.ts); the gate feeds them facts re-read from
 * tmux and grants.db at the moment of asking, and turns a refusal into an error that
 * says only that access is denied, never anything about the session's content.
 */
import { AppError } from '@terminal-mcp/contract';
import type { BrokerConfig } from '../config/schema.js';
import { inputPolicyOf, readPolicyOf } from '../config/effective-policy.js';
import type { BindingRecord } from '../effects/store/bindings-store.js';
import type { PaneDelivery } from '../effects/tmux/deliver.js';
import type { ListedSession, SessionFacts, TmuxAdapter } from '../effects/tmux/types.js';
import { decideReadAccess, isSensitiveName } from '../policy/access.js';
import type { PaneProcessFacts } from '../policy/foreground.js';
import { effectiveGrant, type EffectiveGrant, type GrantRecord } from '../policy/grants.js';
import type { SessionIdentity } from '../policy/identity.js';
import { decideInput, decideInputByName, decideInputTarget, type InputDecision, type InputRequest, type InputTargetFacts } from '../policy/input.js';
import { describeSessionAccess, type SessionAccessFields } from '../policy/session-access.js';
import { sessionNotFound } from './not-found.js';
import { parsePaneRef } from '../policy/pane-ref.js';
import { requireBoundTarget, targetOfPane, targetOfSession, type ReadableTarget, type ResolvedTarget, type TargetRef } from './target.js';

export type AllowedDecision = Extract<InputDecision, { allowed: true }>;

/** Where the gate finds the operator's dashboard grants: the stored grant under a name, in
 * whatever state, for one name or for a whole listing in one read (effects/store/grants-store.ts). */
export interface GrantLookup {
  find(sessionName: string): GrantRecord | undefined;
  findMany(sessionNames: readonly string[]): ReadonlyMap<string, GrantRecord>;
}

/** The bindings one host's gate sees: those pinned on `node` (null: this host). A binding
 * of another host reaching this gate is a routing fault of the caller, never read here
 * (another host's pane ids mean nothing to this tmux): it is refused as that host being
 * out of reach (for a node no longer configured, that is what it is). */
export function bindingsOn(store: { get(name: string): BindingRecord | undefined }, node: string | null): AccessGateDeps['bindings'] {
  return {
    get(name) {
      const record = store.get(name);
      if (record === undefined || record.node === node) return record;
      throw new AppError('NODE_UNAVAILABLE', `binding ${JSON.stringify(name)} is pinned on ${record.node === null ? 'this host' : `node ${record.node}`}, which is not reachable here`, 'Call terminal_node_health, or rebind the name with replace: true.');
    },
  };
}

/** The dashboard grants one node's gate sees: those stored under `node:session`
 * (grants.db keys a node's grant by its qualified name; tmux never puts a `:` in a session
 * name, so no name of this host can be one of them). Handed out under the node's own
 * session names, as the gate asks for them. */
export function grantsOn(store: GrantLookup, node: string): GrantLookup {
  const prefix = `${node}:`;
  const bare = (g: GrantRecord): GrantRecord => ({ ...g, sessionName: g.sessionName.slice(prefix.length) });
  return {
    find(name) {
      const g = store.find(prefix + name);
      return g === undefined ? undefined : bare(g);
    },
    findMany(names) {
      const found = store.findMany(names.map((n) => prefix + n));
      return new Map([...found.values()].map((g) => [g.sessionName.slice(prefix.length), bare(g)]));
    },
  };
}

/** For a node's gate whose node has no input effects: a pinned pane that is not the
 * session's active one cannot be checked, so it is refused. */
export const NO_PANE_IDENTITY: AccessGateDeps['delivery'] = {
  readIdentity: () => Promise.reject(new AppError('NODE_UNAVAILABLE', 'panes of this node cannot be identified by this broker')),
};

export interface AccessGateDeps {
  config: BrokerConfig;
  tmux: Pick<TmuxAdapter, 'listSessions' | 'findSession' | 'paneFacts' | 'listPanes'>;
  /** Absent: no grant admits anything (fail closed), only the whitelist does. */
  grants?: GrantLookup | undefined;
  bindings: { get(name: string): BindingRecord | undefined };
  delivery: Pick<PaneDelivery, 'readIdentity'>;
  now?: (() => number) | undefined;
}

export interface AccessGate {
  /** The grant that applies to this live session now: pinned to its identity,
   * unexpired, never for a sensitive name. */
  grantOf(name: string, identity: SessionIdentity): EffectiveGrant | null;
  /** `grant`: the session's effective grant; without it only the config whitelist admits. */
  canRead(name: string, grant?: EffectiveGrant | null): boolean;
  /** The four access flags of each session summary of one listing, with the sessions'
   * grants read now in one query (not one per session), at one instant. */
  describeAll(sessions: readonly ListedSession[]): SessionAccessFields[];
  /** What the dashboard's grants page shows beside those flags: whether the config
   * whitelist names the session (whatever the global read switch says) and whether its
   * name is sensitive (then no grant can be made for it). */
  grantFacts(name: string): { whitelisted: boolean; sensitive: boolean };
  /**
   * THE rule for a gone session's remembered content (the registry's last screen, a
   * transcript): the read rule on its recorded name, with the grant pinned to that very
   * session if one is still stored and unexpired — the same answer the session had while
   * it lived. Used by every part of `sessions.list`'s `dead_sessions` and by every
   * transcript read, so one answer never judges a gone session twice.
   */
  canReadGone(name: string, identity: SessionIdentity): boolean;
  /**
   * THE read gate for content (tail, capture, status, batch inspect, live output, wait,
   * input context): the session tmux has under exactly `name`, if the whitelist or a
   * grant pinned to that very session admits it. Facts are re-read from tmux now unless
   * the caller passes a listing it just took.
   *
   * A name no session has is SESSION_NOT_FOUND with close matches (discovery already
   * shows every name to every caller, so existence is no secret). An existing session
   * that neither the whitelist nor a live grant pinned to it admits is
   * SESSION_NOT_ALLOWED, with the same message whatever the reason.
   *
   * `pane` (`%id` or `window.pane`): that pane of the session instead of its active one,
   * looked up only once the session is admitted, in the session's own listing of panes
   * (a pane of any other session is SESSION_NOT_FOUND, like one that does not exist).
   */
  readable(name: string, listing?: readonly SessionFacts[], pane?: string): Promise<ReadableTarget>;
  /** The same gate for a binding's pinned pane: BINDING_NOT_FOUND, READ_DISABLED, then
   * the binding's state (SESSION_NOT_FOUND, IDENTITY_CHANGED), then the read rule on the
   * session as it is now (the policy or a grant may have changed since binding). */
  readableBinding(binding: string): Promise<ReadableTarget>;
  readableRef(ref: TargetRef): Promise<ReadableTarget>;
  /** The input gates no live fact or grant can change (switches, the binding's flag,
   * deny patterns, sensitive names), on the bare name before tmux is asked anything;
   * returns the binding's record when `ref` names one. */
  checkInputName(ref: TargetRef, kind: InputRequest['kind']): BindingRecord | null;
  /** The gates a gone session can still be judged by (it has no pane): the name gates,
   * readability and the allowed patterns or the operator's grant for that very session
   * (`identity`: the registry row's; undefined when no such row exists, refused like one
   * nothing admits, so the answer does not tell whether it exists). Throws the refusal. */
  checkInputGone(name: string, identity: SessionIdentity | undefined, kind: InputRequest['kind']): void;
  /** Name gates → resolve exactly → the operator's grant for that very session. A
   * missing session that nothing but a grant could admit is refused like an existing one
   * (INPUT_NOT_ALLOWED), so the answer does not tell whether it exists. */
  inputTarget(ref: TargetRef, kind: InputRequest['kind']): Promise<ResolvedTarget>;
  /** The target with its grant looked up again under its (possibly new) name. */
  regrant<T extends ResolvedTarget>(target: T): T;
  /** Every input gate on a resolved target's facts (grant and process tree included);
   * throws the refusal. */
  decideInput(target: ResolvedTarget, processes: PaneProcessFacts, request: InputRequest): AllowedDecision;
  /** The gates on the target itself, whatever is sent (switches, patterns, readability,
   * grant, guarded and foreground commands): what a lifecycle act on a pane (resize) must
   * pass like a send. Throws the refusal. */
  checkInputTarget(target: ResolvedTarget, processes: PaneProcessFacts): void;
}

const readDisabled = () => new AppError('READ_DISABLED', 'reading terminals is turned off');
const notAllowed = () => new AppError('SESSION_NOT_ALLOWED', 'access to this session is denied');

export function createAccessGate(deps: AccessGateDeps): AccessGate {
  const { config, tmux } = deps;
  const now = deps.now ?? Date.now;
  const readPolicy = readPolicyOf(config);
  const inputPolicy = inputPolicyOf(config);
  const whitelist = { ...readPolicy, terminalRead: true };

  const grantOf = (name: string, identity: SessionIdentity) => effectiveGrant(name, deps.grants?.find(name), identity, now());
  const canRead = (name: string, grant?: EffectiveGrant | null) => decideReadAccess(readPolicy, name, grant).allowed;
  const withGrant = <T extends ResolvedTarget>(t: T): T => ({ ...t, grant: grantOf(t.sessionName, t.identity) });
  /** What the input policy judges about a resolved target, read now (never a client's claim). */
  const inputFacts = (target: ResolvedTarget, processes: PaneProcessFacts): InputTargetFacts => ({
    sessionName: target.sessionName,
    readable: canRead(target.sessionName, target.grant),
    currentCommand: target.currentCommand,
    processes,
    inCopyMode: target.inCopyMode,
    binding: target.binding,
    grant: target.grant,
  });

  function assertCanRead(name: string, grant?: EffectiveGrant | null): void {
    const decision = decideReadAccess(readPolicy, name, grant);
    if (decision.allowed) return;
    throw decision.reason === 'READ_DISABLED' ? readDisabled() : notAllowed();
  }

  function checkName(name: string, binding: ResolvedTarget['binding'], kind: InputRequest['kind']): void {
    const refusal = decideInputByName(inputPolicy, name, binding, kind);
    if (refusal) throw new AppError(refusal.code, refusal.message);
  }

  const gate: AccessGate = {
    grantOf,
    canRead,
    describeAll(sessions) {
      const stored = deps.grants?.findMany(sessions.map((s) => s.name));
      const at = now();
      return sessions.map((s) => describeSessionAccess({ read: readPolicy, input: inputPolicy }, s, effectiveGrant(s.name, stored?.get(s.name), s, at)));
    },

    canReadGone: (name, identity) => canRead(name, grantOf(name, identity)),

    grantFacts: (name) => ({ whitelisted: decideReadAccess(whitelist, name).allowed, sensitive: isSensitiveName(name) }),

    async readable(name, listing, pane) {
      // terminal_read off refuses before tmux is asked anything; a malformed pane before
      // anything about the session is looked up.
      if (!readPolicy.terminalRead) throw readDisabled();
      if (pane !== undefined) parsePaneRef(pane);
      const found = listing ? listing.find((s) => s.name === name) : ((await tmux.findSession(name)) ?? undefined);
      if (found === undefined) throw sessionNotFound(name, listing ?? (await tmux.listSessions()));
      const grant = grantOf(name, found);
      assertCanRead(name, grant);
      return { ...(pane === undefined ? targetOfSession(found) : await targetOfPane(found, pane, tmux)), grant };
    },

    async readableBinding(name) {
      const record = deps.bindings.get(name);
      if (!record) throw new AppError('BINDING_NOT_FOUND', 'no binding has that name');
      if (!readPolicy.terminalRead) throw readDisabled();
      const { target, pane } = await requireBoundTarget(record, tmux, deps.delivery);
      const granted = withGrant(target);
      assertCanRead(granted.sessionName, granted.grant);
      // The pinned pane is not the active one: its facts are read by id now.
      const facts = pane ?? (await tmux.paneFacts(target.identity.paneId));
      if (facts === null) throw new AppError('SESSION_NOT_FOUND', 'the pane no longer exists');
      return { ...granted, pane: facts };
    },

    readableRef: (ref) => (ref.binding !== undefined ? gate.readableBinding(ref.binding) : gate.readable(ref.session, undefined, ref.pane)),

    checkInputName(ref, kind) {
      if (ref.binding !== undefined) {
        const record = deps.bindings.get(ref.binding);
        if (!record) throw new AppError('BINDING_NOT_FOUND', 'no binding has that name');
        checkName(record.sessionName, { name: record.name, inputEnabled: record.inputEnabled }, kind);
        return record;
      }
      checkName(ref.session, null, kind);
      return null;
    },

    checkInputGone(name, identity, kind) {
      checkName(name, null, kind);
      const grant = identity === undefined ? null : grantOf(name, identity);
      const refusal = decideInputTarget(
        inputPolicy,
        // No pane: nothing runs in it, so the process gates have nothing to judge ('secret'
        // stops the decision before them; the name gates for `kind` ran above).
        { sessionName: name, readable: canRead(name, grant), currentCommand: '', processes: { source: 'tmux', command: '' }, inCopyMode: false, grant },
        'secret',
      );
      if (refusal) throw new AppError(refusal.code, refusal.message);
    },

    async inputTarget(ref, kind) {
      const record = gate.checkInputName(ref, kind);
      if (record) return withGrant((await requireBoundTarget(record, tmux, deps.delivery)).target);
      const session = ref.session ?? '';
      if (ref.pane !== undefined) parsePaneRef(ref.pane);
      const listing = await tmux.listSessions();
      const found = listing.find((s) => s.name === session);
      try {
        if (found === undefined) throw sessionNotFound(session, listing);
        if (ref.pane === undefined) {
          const { pane: _pane, ...target } = targetOfSession(found);
          return withGrant(target);
        }
        // A pane is looked up only in a session this caller may read (input needs that
        // anyway, policy/input.ts), so a refused session's panes stay unknown.
        const grant = grantOf(session, found);
        if (!canRead(session, grant)) throw new AppError('INPUT_NOT_ALLOWED', 'input goes only to sessions this caller may read');
        const { pane: _pane, ...target } = await targetOfPane(found, ref.pane, tmux);
        return { ...target, grant };
      } catch (err) {
        const withoutGrant = decideInputTarget(
          inputPolicy,
          { sessionName: session, readable: canRead(session), currentCommand: '', processes: { source: 'tmux', command: '' }, inCopyMode: false },
          kind,
        );
        if (err instanceof AppError && err.code === 'SESSION_NOT_FOUND' && withoutGrant) throw new AppError(withoutGrant.code, withoutGrant.message);
        throw err;
      }
    },

    regrant: withGrant,

    checkInputTarget(target, processes) {
      const refusal = decideInputTarget(inputPolicy, inputFacts(target, processes), 'keys');
      if (refusal) throw new AppError(refusal.code, refusal.message);
    },

    decideInput(target, processes, request) {
      const decision = decideInput(inputPolicy, inputFacts(target, processes), request);
      if (!decision.allowed) throw new AppError(decision.code, decision.message);
      return decision;
    },
  };
  return gate;
}
