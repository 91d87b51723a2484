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
import { identityOfBinding, resolveBinding } from '../access/target.js';
import { auditedRead } from '../audit/record-read.js';
import type { BindingRecord } from '../effects/store/bindings-store.js';
import type { SessionFacts } from '../effects/tmux/types.js';
import { isSensitiveName } from '../policy/access.js';
import { samePane } from '../policy/identity.js';
import type { InputCaller } from './input-deps.js';

const iso = (ms: number) => new Date(ms).toISOString();

function bindingView(record: BindingRecord, state: BindingState): Binding {
  return {
    binding: record.name,
    session: record.sessionName,
    session_id: record.sessionId,
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
  if (isSensitiveName(input.session)) {
    throw new AppError('FORBIDDEN', 'sessions with sensitive names (root, ssh, password, secret, database) are never bindable');
  }
  // THE read gate: the whitelist or a grant pinned to this session; a denied name gets the
  // same answer whether or not it exists.
  // With `pane`, that pane of the session is pinned (its id and pid): reads and input
  // through the binding reach it whichever pane is active.
  const target = await deps.access.readable(input.session, undefined, input.pane);
  const now = Date.now();
  const services = deps.input;
  const fresh = (inputEnabled: boolean, createdAt: number): BindingRecord => ({
    name: input.binding,
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
    const same = existing.sessionName === target.sessionName && samePane(identityOfBinding(existing), target.identity);
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
    deps.log.info({ event: 'binding.changed', outcome, binding: record.name, sessionId: record.sessionId, actor: caller.actor }, 'binding changed');
  }
  return { ...bindingView(record, 'OK'), outcome };
}

async function stateOf(caller: InputCaller, record: BindingRecord, sessions: readonly SessionFacts[]): Promise<BindingState> {
  return (await resolveBinding(record, sessions, caller.deps.input.delivery)).state;
}

export async function getBinding(caller: InputCaller, name: string): Promise<Binding> {
  const record = caller.deps.input.bindings.get(name);
  if (!record) throw new AppError('BINDING_NOT_FOUND', 'no binding has that name');
  return bindingView(record, await stateOf(caller, record, await caller.deps.tmux.listSessions()));
}

export async function listBindings(caller: InputCaller): Promise<{ bindings: Binding[] }> {
  const records = caller.deps.input.bindings.list();
  if (records.length === 0) return { bindings: [] };
  const sessions = await caller.deps.tmux.listSessions();
  return { bindings: await Promise.all(records.map(async (r) => bindingView(r, await stateOf(caller, r, sessions)))) };
}

export function unbind(caller: InputCaller, name: string): { binding: string; removed: true } {
  if (!caller.deps.input.bindings.remove(name)) throw new AppError('BINDING_NOT_FOUND', 'no binding has that name');
  caller.deps.log.info({ event: 'binding.removed', binding: name, actor: caller.actor }, 'binding removed');
  return { binding: name, removed: true };
}

/** Bound reads are the named reads of the pinned pane: the same gate
 * (`access.readableBinding`), the same reader, the same status (from
 * `#{window_activity}`), plus the binding's name. */
export function tailBound(caller: InputCaller, input: TailBoundInput): Promise<BoundPaneText> {
  const { deps } = caller;
  const sessionName = deps.input.bindings.get(input.binding)?.sessionName ?? null;
  return auditedRead(
    caller,
    'terminal_tail_bound',
    sessionName,
    async () => {
      const text = await deps.reader.tailOf(await deps.access.readableBinding(input.binding), input.lines, input.strip_ansi ?? true);
      return { binding: input.binding, ...text };
    },
    (r) => ({ sessionId: r.session_id, paneId: r.pane_id, lineCount: r.line_count }),
  );
}

export function statusBound(caller: InputCaller, name: string): Promise<BoundStatus> {
  const { deps } = caller;
  const sessionName = deps.input.bindings.get(name)?.sessionName ?? null;
  return auditedRead(
    caller,
    'terminal_status_bound',
    sessionName,
    async () => ({ binding: name, ...(await deps.reader.statusOf(await deps.access.readableBinding(name))) }),
    (r) => ({ sessionId: r.session_id, lineCount: null }),
  );
}
