/**
 * Bindings: a short stable name for a session, pinned to the identity it had when bound.
 * Rules:
 * - binding needs the session to exist and be readable by the caller; sessions with
 *   sensitive names are never bindable (address them by exact name, if allowed at all);
 * - remapping a name to another session (or to a recreated session of the same name)
 *   needs `replace: true`, else BINDING_EXISTS;
 * - new and replaced bindings are read-enabled and input-disabled unless
 *   `input_enabled: true` is given; the flag is the caller's statement of intent, the
 *   global input switch and the input policy still decide;
 * - a session recreated under the bound name is IDENTITY_CHANGED until rebound; a
 *   vanished one is MISSING and the binding is kept;
 * - one client (actor) holds at most BINDING_LIMITS.maxPerActor bindings: a new name, or
 *   taking over another client's, past that is BINDING_LIMIT_REACHED.
 * Bound reads (tail, status) go to the pinned pane and are audited as reads.
 *
 * A binding of `node:session` pins the node's pane (the identity its tmux reports) and
 * stores the node's name: every use of it (bound reads here, input through
 * input/node-route.ts, watches through nodes/node-supervisor.ts) goes to that node's gate
 * and reader, with the same identity check; a node that is down is NODE_UNAVAILABLE. Views
 * and audit rows name the session `node:session`.
 */
import {
  AppError,
  BINDING_LIMITS,
  type BindInput,
  type BindOutput,
  type Binding,
  type BindingState,
  type BoundPaneText,
  type BoundStatus,
  type TailBoundInput,
} from '@terminal-mcp/contract';
import { NO_PANE_IDENTITY } from '../access/gate.js';
import { boundOrNull, boundSessionName, identityOfBinding, resolveBinding, type ReadableTarget } from '../access/target.js';
import { auditedRead } from '../audit/record-read.js';
import type { BindingRecord } from '../effects/store/bindings-store.js';
import type { SessionFacts } from '../effects/tmux/types.js';
import type { Host } from '../nodes/host-set.js';
import { qualify } from '../nodes/node-names.js';
import { isSensitiveName } from '../policy/access.js';
import { samePane } from '../policy/identity.js';
import type { SessionReader } from '../reads/session-reader.js';
import type { InputCaller } from './input-deps.js';

const iso = (ms: number) => new Date(ms).toISOString();

function bindingView(record: BindingRecord, state: BindingState): Binding {
  return {
    binding: record.name,
    session: boundSessionName(record),
    session_id: qualify(record.node ?? undefined, record.sessionId),
    pane_id: record.paneId,
    input_enabled: record.inputEnabled,
    state,
    created_at: iso(record.createdAt),
    updated_at: iso(record.updatedAt),
    updated_by: record.updatedBy,
  };
}

export async function bindSession(caller: InputCaller, input: BindInput): Promise<BindOutput> {
  const { deps } = caller;
  // `node:session` is the node's session (nodes/node-names.ts); a bare name, this host's.
  const { host, ref: session } = deps.hosts.resolveSession(input.session);
  if (isSensitiveName(input.session) || isSensitiveName(session)) {
    throw new AppError('FORBIDDEN', 'sessions with sensitive names (root, ssh, password, secret, database) are never bindable');
  }
  // THE read gate of the session's host: the whitelist (a node's read patterns) or a grant
  // pinned to this session; a denied name gets the same answer whether or not it exists.
  // With `pane`, that pane of the session is pinned (its id and pid): reads and input
  // through the binding reach it whichever pane is active.
  host.connected();
  const target = await host.on(() => host.access.readable(session, undefined, input.pane));
  const now = Date.now();
  const services = deps.input;
  const fresh = (inputEnabled: boolean, createdAt: number): BindingRecord => ({
    name: input.binding,
    node: host.node ?? null,
    sessionName: target.sessionName,
    serverPid: target.identity.serverPid,
    sessionId: target.identity.sessionId,
    sessionCreated: target.identity.created,
    paneId: target.identity.paneId,
    panePid: target.identity.panePid,
    inputEnabled,
    createdAt,
    updatedAt: now,
    updatedBy: caller.actor,
  });
  type Outcome = { record: BindingRecord; outcome: BindOutput['outcome'] };
  // Counted inside the transaction, so concurrent binds cannot both pass the cap.
  const withinCap = (existing: BindingRecord | undefined) => {
    if (existing?.updatedBy === caller.actor) return;
    if (services.bindings.countByActor(caller.actor) >= BINDING_LIMITS.maxPerActor) {
      throw new AppError('BINDING_LIMIT_REACHED', `this client already holds ${BINDING_LIMITS.maxPerActor} bindings`);
    }
  };
  const { record, outcome } = services.bindings.update<Outcome>(input.binding, (existing) => {
    if (!existing) {
      withinCap(existing);
      const write = fresh(input.input_enabled ?? false, now);
      return { result: { record: write, outcome: 'CREATED'}, write };
    }
    const same = existing.node === (host.node ?? null) && existing.sessionName === target.sessionName && samePane(identityOfBinding(existing), target.identity);
    if (same) {
      if (input.input_enabled === undefined || input.input_enabled === existing.inputEnabled) {
        return { result: { record: existing, outcome: 'UNCHANGED'} };
      }
      withinCap(existing);
      const write = { ...existing, inputEnabled: input.input_enabled, updatedAt: now, updatedBy: caller.actor };
      return { result: { record: write, outcome: 'UPDATED'}, write };
    }
    if (input.replace !== true) {
      throw new AppError('BINDING_EXISTS', 'the binding points at another session (or an earlier session of that name): pass replace: true to remap it');
    }
    withinCap(existing);
    const write = fresh(input.input_enabled ?? false, now);
    return { result: { record: write, outcome: 'REPLACED'}, write };
  });
  if (outcome !== 'UNCHANGED') {
    deps.log.info({ event: 'binding.changed', outcome, binding: record.name, node: record.node, sessionId: record.sessionId, actor: caller.actor }, 'binding changed');
  }
  return { ...bindingView(record, 'OK'), outcome };
}

/** The host a binding is pinned on (`node` null: this host). A node that is not
 * configured (any more), or not connected, is NODE_UNAVAILABLE: its bindings are kept,
 * never "not found". */
function hostOfBinding(caller: InputCaller, node: string | null): Host {
  const host = caller.deps.hosts.of(node ?? undefined);
  if (host === undefined) {
    throw new AppError('NODE_UNAVAILABLE', `node ${node ?? ''} is not configured in this broker`, 'Call terminal_node_health for the configured nodes, or rebind the name with replace: true.');
  }
  host.connected();
  return host;
}

/** The binding's state on its host, each host listed at most once per call (`listings`). */
async function stateOf(caller: InputCaller, record: BindingRecord, listings: Map<string | null, Promise<SessionFacts[]>>): Promise<BindingState> {
  const host = hostOfBinding(caller, record.node);
  let listing = listings.get(record.node);
  if (listing === undefined) {
    listing = host.tmux.listSessions();
    listings.set(record.node, listing);
  }
  const sessions = listing;
  // Where the pinned pane's identity is re-read: the host's delivery (none: no identity).
  return host.on(async () => (await resolveBinding(record, await sessions, host.delivery ?? NO_PANE_IDENTITY)).state);
}

export async function getBinding(caller: InputCaller, name: string): Promise<Binding> {
  const record = caller.deps.input.bindings.get(name);
  if (!record) throw new AppError('BINDING_NOT_FOUND', 'no binding has that name');
  return bindingView(record, await stateOf(caller, record, new Map()));
}

export async function listBindings(caller: InputCaller): Promise<{ bindings: Binding[] }> {
  const records = caller.deps.input.bindings.list();
  if (records.length === 0) return { bindings: [] };
  const listings = new Map<string | null, Promise<SessionFacts[]>>();
  // A node that is down does not hide the others: its bindings say NODE_UNAVAILABLE.
  const state = (r: BindingRecord) =>
    stateOf(caller, r, listings).catch((err: unknown) => {
      if (r.node !== null && err instanceof AppError && err.code === 'NODE_UNAVAILABLE') return 'NODE_UNAVAILABLE' as const;
      throw err;
    });
  return { bindings: await Promise.all(records.map(async (r) => bindingView(r, await state(r)))) };
}

export function unbind(caller: InputCaller, name: string): { binding: string; removed: true } {
  if (!caller.deps.input.bindings.remove(name)) throw new AppError('BINDING_NOT_FOUND', 'no binding has that name');
  caller.deps.log.info({ event: 'binding.removed', binding: name, actor: caller.actor }, 'binding removed');
  return { binding: name, removed: true };
}

/** Bound reads are the named reads of the pinned pane: the same gate
 * (`access.readableBinding`, the node's for a node's binding), the same reader, the same
 * status (from `#{window_activity}`), plus the binding's name. */
async function boundRead<T extends { session: string; session_id: string }>(
  caller: InputCaller,
  record: BindingRecord | undefined,
  name: string,
  read: (reader: SessionReader, target: ReadableTarget) => Promise<T>,
): Promise<T> {
  if (!record) throw new AppError('BINDING_NOT_FOUND', 'no binding has that name');
  const host = hostOfBinding(caller, record.node);
  return host.named(await host.on(async () => read(host.reader, await host.access.readableBinding(name))));
}

export function tailBound(caller: InputCaller, input: TailBoundInput): Promise<BoundPaneText> {
  const record = caller.deps.input.bindings.get(input.binding);
  return auditedRead(
    caller,
    'terminal_tail_bound',
    boundOrNull(record),
    async () => ({ binding: input.binding, ...(await boundRead(caller, record, input.binding, (reader, target) => reader.tailOf(target, input.lines, input.strip_ansi ?? true))) }),
    (r) => ({ sessionId: r.session_id, paneId: r.pane_id, lineCount: r.line_count }),
  );
}

export function statusBound(caller: InputCaller, name: string): Promise<BoundStatus> {
  const record = caller.deps.input.bindings.get(name);
  return auditedRead(
    caller,
    'terminal_status_bound',
    boundOrNull(record),
    async () => ({ binding: name, ...(await boundRead(caller, record, name, (reader, target) => reader.statusOf(target))) }),
    (r) => ({ sessionId: r.session_id, lineCount: null }),
  );
}
