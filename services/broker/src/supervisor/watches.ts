/**
 * v1 use cases: create, resume, remove and list watches, read and acknowledge events,
 * run one pass, wait for events, and set a watch's verifier policy. A watch is created
 * only for a target the read gate admits now, and every evaluation asks the gate again.
 */
import {
  AppError,
  SUPERVISOR_LIMITS,
  type AckEventOutput,
  type ListEventsInput,
  type ListEventsOutput,
  type ListWatchesOutput,
  type RunOnceOutput,
  type SetVerifierPolicyInput,
  type SupervisorStatus,
  type UnwatchOutput,
  type VerifierPolicy,
  type WaitEventsOutput,
  type Watch,
  type WatchInput,
  type WatchTargetInput,
} from '@terminal-mcp/contract';
import type { SupervisorStore, WatchRow } from '../effects/store/supervisor-store.js';
import type { SupervisorEngine } from './engine.js';
import type { SupervisorConfig } from './types.js';
import { DEFAULT_DONE_MARKER } from './evidence.js';
import { eventView, watchView } from './views.js';

export interface SupervisorCaller {
  /** Evaluation, waits and refreshes (engine.ts). */
  readonly engine: SupervisorEngine;
  /** The store and clock the use cases read and write through (the engine's own). */
  readonly store: SupervisorStore;
  readonly config: SupervisorConfig;
  now(): number;
  /** The caller's identity (policy/authority.ts): claims, approvals and choices record it. */
  readonly actor: string;
}

/** The supervisor use cases' caller: `actor` with the engine's store, config and clock. */
export function supervisorCaller(engine: SupervisorEngine, actor: string): SupervisorCaller {
  return { engine, store: engine.store, config: engine.config, now: () => engine.now(), actor };
}

/** A watch's key: `session:<name>` or `binding:<name>`. */
export const watchKeyOf = (t: WatchTargetInput) => (t.binding !== undefined ? `binding:${t.binding}` : `session:${t.session ?? ''}`);
const targetOf = (t: WatchTargetInput): Pick<WatchRow, 'kind' | 'target'> =>
  t.binding !== undefined ? { kind: 'binding', target: t.binding } : { kind: 'session', target: t.session ?? '' };

/** The watch for a target, or WATCH_NOT_FOUND. */
export function requireWatch(c: SupervisorCaller, t: WatchTargetInput): WatchRow {
  const w = c.store.watchByKey(watchKeyOf(t));
  if (!w) throw new AppError('WATCH_NOT_FOUND', 'no watch for that target');
  return w;
}

/** A watch key from list results, or WATCH_NOT_FOUND. */
export function requireWatchKey(c: SupervisorCaller, key: string): WatchRow {
  const w = c.store.watchByKey(key);
  if (!w) throw new AppError('WATCH_NOT_FOUND', 'no watch with that key');
  return w;
}

export async function watch(c: SupervisorCaller, input: WatchInput): Promise<Watch> {
  const { store } = c;
  // The read gate first: the same refusal a read of this target gets.
  await c.engine.resolve(targetOf(input));
  const now = c.now();
  const row = store.upsertWatch({ key: watchKeyOf(input), ...kindTarget(input), doneMarker: input.done_marker ?? DEFAULT_DONE_MARKER, source: 'manual', by: c.actor, now });
  await c.engine.evaluate(row.id, false);
  c.engine.refresh();
  return watchView(store, store.watchById(row.id) ?? row);
}

function kindTarget(t: WatchTargetInput) {
  const { kind, target } = targetOf(t);
  return { kind, target };
}

export function unwatch(c: SupervisorCaller, input: WatchTargetInput): UnwatchOutput {
  const w = requireWatch(c, input);
  const removed = c.store.removeWatch(w.id);
  c.engine.refresh();
  return { watch_key: w.watch_key, removed };
}

export function listWatches(c: SupervisorCaller): ListWatchesOutput {
  const { store } = c;
  return { watches: store.listWatches().map((w) => watchView(store, w)) };
}

export function status(c: SupervisorCaller): SupervisorStatus {
  const { store, config } = c;
  const watches = store.listWatches();
  const byState: Record<string, number> = {};
  for (const w of watches) byState[w.state] = (byState[w.state] ?? 0) + 1;
  return {
    enabled: config.enabled,
    running: c.engine.running(),
    v2_enabled: config.v2_enabled,
    poll_interval_seconds: config.poll_interval_seconds,
    idle_threshold_seconds: config.idle_threshold_seconds,
    watches: watches.length,
    enabled_watches: watches.filter((w) => w.enabled === 1).length,
    unacknowledged_events: store.unacknowledgedCount(),
    by_state: byState,
    verifier_profiles: config.verifier_profiles.map((p) => p.id),
  };
}

export function listEvents(c: SupervisorCaller, input: ListEventsInput): ListEventsOutput {
  const { store } = c;
  const watchId = input.watch_key === undefined ? undefined : requireWatchKey(c, input.watch_key).id;
  const rows = store.listEvents({
    ...(watchId !== undefined ? { watchId } : {}),
    unacknowledgedOnly: input.unacknowledged_only ?? false,
    ...(input.after_id !== undefined ? { afterId: input.after_id } : {}),
    limit: input.limit ?? 50,
  });
  return { events: rows.map(eventView) };
}

export function ackEvent(c: SupervisorCaller, eventId: number): AckEventOutput {
  const row = c.store.ackEvent(eventId, c.actor, c.now());
  if (!row || row.acknowledged_at === null) throw new AppError('NOT_FOUND', 'no supervisor event with that id (it may have been pruned by event_retention)');
  return { event_id: row.id, acknowledged_at: new Date(row.acknowledged_at).toISOString() };
}

export async function runOnce(c: SupervisorCaller): Promise<RunOnceOutput> {
  const events = await c.engine.runOnce();
  return { evaluated: c.store.listWatches().filter((w) => w.enabled === 1).length, events: events.map(eventView) };
}

/** Blocks up to timeout_s for events after `after_id` (default: those recorded from now). */
export async function waitEvents(c: SupervisorCaller, input: { after_id?: number | undefined; timeout_s?: number | undefined }, signal?: AbortSignal): Promise<WaitEventsOutput> {
  const { store } = c;
  const clock = () => c.now();
  const after = input.after_id ?? store.latestEventId();
  const deadline = clock() + Math.round((input.timeout_s ?? SUPERVISOR_LIMITS.maxWaitSeconds) * 1000);
  for (;;) {
    const rows = store.listEvents({ afterId: after, limit: 50 });
    if (rows.length > 0) return { state: 'EVENTS', events: rows.map(eventView), next_after_id: rows.at(-1)?.id ?? after };
    if (clock() >= deadline || signal?.aborted) return { state: 'PENDING', events: [], next_after_id: after };
    await c.engine.nextEvent(deadline, signal);
  }
}

/** A watch's verifier: an operator-configured profile by id (the only way a command
 * ever comes to run for a client). Choosing one arranges for a process to run later, so
 * it is an input effect (rpc/procedures/supervisor.ts). */
export async function setVerifierPolicy(c: SupervisorCaller, input: SetVerifierPolicyInput): Promise<VerifierPolicy> {
  const w = requireWatch(c, input);
  await c.engine.resolve(w);
  const profile = c.config.verifier_profiles.find((p) => p.id === input.profile);
  if (profile === undefined) {
    const known = c.config.verifier_profiles.map((p) => p.id);
    throw new AppError(
      'NOT_FOUND',
      'no verifier profile has that id',
      known.length > 0 ? `Use one of: ${known.slice(0, 20).join(', ')} (supervisor_status lists them).` : 'No supervisor.verifier_profiles are configured: the operator adds one to config.yaml.',
    );
  }
  const row = { watch_id: w.id, profile: profile.id, require_commit: input.require_commit_matches ?? null, updated_at: c.now(), updated_by: c.actor };
  c.store.setVerifier(row);
  return {
    watch_key: w.watch_key,
    profile: profile.id,
    require_git_clean: profile.require_git_clean,
    require_commit_matches: row.require_commit,
    runs_test_command: profile.test_command !== undefined,
    timeout_seconds: profile.timeout_seconds,
  };
}
