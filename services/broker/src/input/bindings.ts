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
  LIMITS,
  type BindInput,
  type BindOutput,
  type Binding,
  type BindingState,
  type BoundPaneText,
  type BoundStatus,
  type TailBoundInput,
} from '@terminal-mcp/contract';
import { auditedRead } from '../audit/record-read.js';
import type { BindingRecord } from '../effects/store/bindings-store.js';
import type { SessionFacts } from '../effects/tmux/types.js';
import { isSensitiveName } from '../policy/access.js';
import { classifyPaneStatus } from '../policy/status.js';
import { cleanPaneText, readPaneTail, toLines } from '../reads/pane-text.js';
import { grantLookupOf } from '../grants/grant-lookup.js';
import { resolveReadableSession } from '../reads/read-gate.js';
import type { BrokerContext } from '../rpc/context.js';
import { assertCanReadTarget } from './access.js';
import { inputServices } from './services.js';
import { identityOfBinding, requireBoundTarget, resolveBinding, sameIdentity, targetOfSession, type ResolvedTarget } from './target.js';

type Caller = Pick<BrokerContext, 'deps' | 'role' | 'actor'>;

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

export async function bindSession(caller: Caller, input: BindInput): Promise<BindOutput> {
  const { deps } = caller;
  if (isSensitiveName(input.session)) {
    throw new AppError('FORBIDDEN', 'sessions with sensitive names (root, ssh, password, secret, database) are never bindable');
  }
  // THE read gate: the whitelist or a grant pinned to this session; a denied name gets the
  // same answer whether or not it exists.
  const target = targetOfSession(await resolveReadableSession({ config: deps.config, tmux: deps.tmux, grants: grantLookupOf(deps) }, input.session));
  const now = Date.now();
  const services = inputServices(deps);
  const fresh = (inputEnabled: boolean, createdAt: number): BindingRecord => ({
    name: input.binding,
    sessionName: target.sessionName,
    ...target.identity,
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
    const same = existing.sessionName === target.sessionName && sameIdentity(identityOfBinding(existing), target.identity);
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

async function stateOf(caller: Caller, record: BindingRecord, sessions: readonly SessionFacts[]): Promise<BindingState> {
  return (await resolveBinding(record, sessions, inputServices(caller.deps).delivery)).state;
}

export async function getBinding(caller: Caller, name: string): Promise<Binding> {
  const record = inputServices(caller.deps).bindings.get(name);
  if (!record) throw new AppError('BINDING_NOT_FOUND', 'no binding has that name');
  return bindingView(record, await stateOf(caller, record, await caller.deps.tmux.listSessions()));
}

export async function listBindings(caller: Caller): Promise<{ bindings: Binding[] }> {
  const records = inputServices(caller.deps).bindings.list();
  if (records.length === 0) return { bindings: [] };
  const sessions = await caller.deps.tmux.listSessions();
  return { bindings: await Promise.all(records.map(async (r) => bindingView(r, await stateOf(caller, r, sessions)))) };
}

export function unbind(caller: Caller, name: string): { binding: string; removed: true } {
  if (!inputServices(caller.deps).bindings.remove(name)) throw new AppError('BINDING_NOT_FOUND', 'no binding has that name');
  caller.deps.log.info({ event: 'binding.removed', binding: name, actor: caller.actor }, 'binding removed');
  return { binding: name, removed: true };
}

/** The binding's pinned pane, if it is still the pinned one and the caller may read it. */
async function readableBoundTarget(caller: Caller, name: string): Promise<ResolvedTarget> {
  const services = inputServices(caller.deps);
  const record = services.bindings.get(name);
  if (!record) throw new AppError('BINDING_NOT_FOUND', 'no binding has that name');
  if (!caller.deps.config.permissions.terminal_read) throw new AppError('READ_DISABLED', 'reading terminals is turned off');
  const target = await requireBoundTarget(record, caller.deps.tmux, services.delivery);
  // The read policy (or a grant) may have changed since binding: check it on every read.
  assertCanReadTarget(caller.deps, target.sessionName, target.identity);
  return target;
}

export function tailBound(caller: Caller, input: TailBoundInput): Promise<BoundPaneText> {
  const { config, tmux } = caller.deps;
  const sessionName = inputServices(caller.deps).bindings.get(input.binding)?.sessionName ?? null;
  return auditedRead(
    caller,
    'terminal_tail_bound',
    sessionName,
    async () => {
      const target = await readableBoundTarget(caller, input.binding);
      const requested = input.lines ?? config.default_tail_lines;
      const count = Math.min(requested, config.max_capture_lines, LIMITS.maxTailLines);
      const stripAnsi = input.strip_ansi ?? true;
      // Redacted before the rows are cut (reads/pane-text.ts), as every pane read.
      const clean = await readPaneTail(tmux, target.identity.paneId, count, stripAnsi);
      const lines = clean.lines;
      return {
        binding: input.binding,
        session: target.sessionName,
        session_id: target.identity.sessionId,
        pane_id: target.identity.paneId,
        text: lines.join('\n'),
        line_count: lines.length,
        redactions: clean.redactions,
        truncated: requested > count,
      };
    },
    (r) => ({ sessionId: r.session_id, paneId: r.pane_id, lineCount: r.line_count }),
  );
}

export function statusBound(caller: Caller, name: string): Promise<BoundStatus> {
  const sessionName = inputServices(caller.deps).bindings.get(name)?.sessionName ?? null;
  return auditedRead(
    caller,
    'terminal_status_bound',
    sessionName,
    async () => {
      const target = await readableBoundTarget(caller, name);
      const raw = await caller.deps.tmux.capturePane(target.identity.paneId, { start: 0, end: '-' });
      const now = Math.floor(Date.now() / 1000);
      const activity = target.activity ?? now;
      const idleSeconds = Math.max(0, now - activity);
      const verdict = classifyPaneStatus({
        lines: toLines(cleanPaneText(raw, true).lines.join('\n')),
        currentCommand: target.currentCommand,
        inCopyMode: target.inCopyMode,
        idleSeconds,
      });
      return {
        binding: name,
        session: target.sessionName,
        session_id: target.identity.sessionId,
        status: verdict.status,
        reason: verdict.reason,
        current_command: target.currentCommand,
        in_copy_mode: target.inCopyMode,
        last_activity: new Date(activity * 1000).toISOString(),
        idle_seconds: idleSeconds,
      };
    },
    (r) => ({ sessionId: r.session_id, lineCount: null }),
  );
}
