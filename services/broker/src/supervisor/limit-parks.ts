/**
 * Parking agents at a usage limit and resuming them when it resets
 * (supervisor.resume_after_limit, off by default). A watch whose pane shows a usage limit
 * (policy/usage-limit.ts, through terminal_status's own status) is parked: a row in
 * supervisor.db with the reset instant, the pane's identity, its foreground command and
 * the screen's hash, so a broker restart keeps it. At the reset plus a random delay the
 * configured resume text is typed through the input tools' guarded, audited send path
 * (`send`, input/send.ts sendText under the broker's supervisor identity: every input
 * gate, review mode and the input audit apply), at most once per park:
 * - parked → resuming is a compare-and-swap, so a timer, a run_once and the operator's
 *   "resume now" cannot type twice; a park a dead broker left resuming is closed as failed;
 * - nothing is typed unless the pane is the same one (session and pane ids), the same
 *   program is in the foreground, the screen is exactly as it was at the park (nobody
 *   typed, the agent did not go on) and the limit is still shown;
 * - a new park needs a new limit message: the one a resume answered is followed by the
 *   typed text, so it is no limit any more (usage-limit.ts), and a screen that a park
 *   already ended on never parks again. An agent still limited after its resume prints
 *   the message again and parks again with the new reset time; nothing retries in a loop.
 */
import type { SendTextOutput, SessionStatusResult } from '@terminal-mcp/contract';
import { readAppErrorData } from '@terminal-mcp/contract';
import type { Logger } from 'pino';
import type { EventRow, ParkRow, SupervisorStore, WatchRow } from '../effects/store/supervisor-store.js';
import { matchesAny } from '../policy/access.js';
import { samePane, type PaneIdentity } from '../policy/identity.js';
import type { SupervisorConfig } from './types.js';
import type { Observation } from './evidence.js';
import type { PlannedEvent } from './transition.js';

/** The broker re-checks its parks at least this often, so a clock that moved (a suspended
 * laptop, a test's clock) is noticed without waiting for a long timer. */
const MAX_TIMER_MS = 60_000;

/** Types `text` into the watch's pane only if it is still `pinned`. */
export type LimitResumeSend = (watch: WatchRow, text: string, pinned: PaneIdentity) => Promise<SendTextOutput>;

export interface LimitParksDeps {
  store: SupervisorStore;
  config: SupervisorConfig;
  log: Pick<Logger, 'warn' | 'info'>;
  now: () => number;
  /** 0 ≤ r < 1: the share of extra_delay_seconds added to the reset (Math.random). */
  random: () => number;
  look: (watch: WatchRow) => Promise<{ obs: Observation; status: SessionStatusResult; identity: PaneIdentity }>;
  record: (watch: WatchRow, planned: PlannedEvent, obs: Pick<Observation, 'hash' | 'preview'>, iteration: number, metadata: Record<string, string | number | boolean | null>) => EventRow;
  /** Runs after every evaluation of the watch asked before (the evaluator's chain). */
  exclusive: <T>(watchId: number, work: () => Promise<T>) => Promise<T>;
  /** The guarded, audited send; absent, nothing is ever typed (parks are failed). */
  send: () => LimitResumeSend | undefined;
}

export interface LimitParks {
  /** Whether resume_after_limit covers this watch. */
  enabledFor(watch: Pick<WatchRow, 'watch_key' | 'target'>): boolean;
  /** After an evaluation: parks the watch if its pane shows a limit (or cancels a park whose
   * limit left the screen). `recorded`: the events this evaluation already recorded. */
  observed(watch: WatchRow, obs: Observation, status: SessionStatusResult, identity: PaneIdentity, recorded: readonly EventRow[]): EventRow[];
  /** Resumes every park whose time has come. */
  resumeDue(): Promise<EventRow[]>;
  /** The operator's "resume now": the same checks, without waiting for the reset. */
  resumeNow(parkId: number, by: string): Promise<ParkRow | undefined>;
  cancel(parkId: number, by: string): ParkRow | undefined;
  start(): void;
  stop(): void;
}

const iso = (ms: number) => new Date(ms).toISOString();
const pinnedOf = (park: ParkRow): PaneIdentity => JSON.parse(park.identity) as PaneIdentity;

export function createLimitParks(deps: LimitParksDeps): LimitParks {
  const { store, log } = deps;
  const settings = deps.config.resume_after_limit;
  let timer: NodeJS.Timeout | undefined;
  let running = false;

  function enabledFor(watch: Pick<WatchRow, 'watch_key' | 'target'>): boolean {
    return settings.enabled && (matchesAny(settings.session_patterns, watch.target) || settings.watch_keys.includes(watch.watch_key));
  }

  function event(watch: WatchRow, type: 'limit_reached' | 'limit_resumed' | 'limit_cancelled', reason: string, obs: Pick<Observation, 'hash' | 'preview'>, park: ParkRow, extra: Record<string, string | number | boolean | null> = {}): EventRow {
    const state = watch.state as PlannedEvent['state'];
    return deps.record(watch, { type, previous: state, state, reason }, obs, watch.iteration_count, {
      park_id: park.id,
      resets_at: iso(park.resets_at),
      resume_at: iso(park.resume_at),
      limit_kind: park.limit_kind,
      program: park.program,
      ...extra,
    });
  }

  function arm(): void {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (!running) return;
    const next = store.listParks({ openOnly: true, limit: 1000 }).filter((p) => p.state === 'parked');
    if (next.length === 0) return;
    const soonest = Math.min(...next.map((p) => p.resume_at));
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, soonest - deps.now()));
    timer = setTimeout(() => {
      timer = undefined;
      void resumeDue()
        .catch((err: unknown) => log.warn({ event: 'supervisor.limit_resume_failed', err: String(err) }, 'could not resume parked agents'))
        .finally(arm);
    }, delay);
    timer.unref();
  }

  function close(park: ParkRow, watch: WatchRow | undefined, from: ParkRow['state'], to: 'cancelled' | 'failed', outcome: string, obs?: Pick<Observation, 'hash' | 'preview'>): EventRow[] {
    if (!store.casPark(park.id, from, to, { outcome }, deps.now())) return [];
    if (watch === undefined) return [];
    return [event(watch, 'limit_cancelled', outcome, obs ?? { hash: park.screen_hash, preview: park.message }, park, { outcome: to })];
  }

  /** Why the pane may not be resumed now, or null when it may. */
  function changed(park: ParkRow, obs: Observation, status: SessionStatusResult, identity: PaneIdentity): string | null {
    if (!samePane(pinnedOf(park), identity)) return 'the pane is another one than at the park (the session or pane was replaced)';
    if (status.current_command !== park.command) return `the foreground program changed (${JSON.stringify(park.command)} at the park, ${JSON.stringify(status.current_command)} now)`;
    if (obs.limit === undefined) return 'the limit message is no longer the last word on the screen (someone typed, or the agent went on)';
    if (obs.hash !== park.screen_hash) return 'the screen changed since the park (someone typed, or the agent printed more)';
    return null;
  }

  async function resume(parkId: number, by: string): Promise<EventRow[]> {
    const park = store.park(parkId);
    if (park === undefined) return [];
    return deps.exclusive(park.watch_id, async () => {
      // The compare-and-swap that makes a second timer, a run_once or a click type nothing.
      if (!store.casPark(park.id, 'parked', 'resuming', {}, deps.now())) return [];
      const watch = store.watchById(park.watch_id);
      if (watch === undefined || watch.enabled !== 1) return close(park, watch, 'resuming', 'cancelled', 'the watch was removed or stopped before the reset');
      const send = deps.send();
      if (send === undefined) return close(park, watch, 'resuming', 'failed', 'this broker has no input path for the supervisor');
      let look: Awaited<ReturnType<LimitParksDeps['look']>>;
      try {
        look = await deps.look(watch);
      } catch (err) {
        return close(park, watch, 'resuming', 'failed', `the pane could not be read (${readAppErrorData(err)?.code ?? 'INTERNAL'}); nothing was typed`);
      }
      const why = changed(park, look.obs, look.status, look.identity);
      if (why !== null) return close(park, watch, 'resuming', 'cancelled', `${why}; nothing was typed`, look.obs);
      try {
        const out = await send(watch, settings.resume_text, pinnedOf(park));
        const outcome =
          out.result === 'QUEUED'
            ? `the resume text waits for review (approval ${out.approval_id ?? '?'}, input audit ${out.audit_id})`
            : `typed ${JSON.stringify(settings.resume_text)} (input audit ${out.audit_id})`;
        store.casPark(park.id, 'resuming', 'resumed', { outcome, resume_audit_id: out.audit_id }, deps.now());
        log.info({ event: 'supervisor.limit_resumed', watch: watch.watch_key, park: park.id, by }, 'resumed an agent after its usage limit');
        return [event(watch, 'limit_resumed', `${outcome}; ${by === 'schedule' ? 'at the reset' : `resumed now by ${by}`}`, look.obs, { ...park, state: 'resumed' }, { audit_id: out.audit_id, result: out.result, by })];
      } catch (err) {
        const code = readAppErrorData(err)?.code ?? 'INTERNAL';
        return close(park, watch, 'resuming', 'failed', `the guarded send refused or failed (${code})`, look.obs);
      }
    });
  }

  async function resumeDue(): Promise<EventRow[]> {
    const now = deps.now();
    const due = store.listParks({ openOnly: true, limit: 1000 }).filter((p) => p.state === 'parked' && p.resume_at <= now);
    const events: EventRow[] = [];
    for (const p of due) events.push(...(await resume(p.id, 'schedule')));
    return events;
  }

  return {
    enabledFor,
    observed(watch, obs, status, identity, recorded) {
      const latest = store.latestPark(watch.id);
      const open = latest !== undefined && latest.state === 'parked' ? latest : undefined;
      const limit = obs.limit;
      if (limit === undefined) {
        // A person scrolling in copy mode has not answered anything.
        if (open === undefined || status.in_copy_mode) return [];
        const events = close(open, watch, 'parked', 'cancelled', 'the limit message is no longer the last word on the screen (someone typed, or the agent went on)', obs);
        arm();
        return events;
      }
      if (!enabledFor(watch) || latest?.state === 'parked' || latest?.state === 'resuming') return [];
      // The screen a park already ended on (resumed, cancelled, failed) never parks again.
      if (latest !== undefined && latest.screen_hash === obs.hash) return [];
      const resetsAt = limit.resetsAt;
      const delay = Math.floor(deps.random() * (settings.extra_delay_seconds + 1)) * 1000;
      const park = store.insertPark({
        watch_id: watch.id,
        limit_kind: limit.kind,
        program: limit.program,
        resets_at: resetsAt,
        resume_at: resetsAt + delay,
        session_id: identity.sessionId,
        pane_id: identity.paneId,
        identity: JSON.stringify(identity),
        command: status.current_command,
        screen_hash: obs.hash,
        message: obs.preview,
        created_at: deps.now(),
      });
      if (park === undefined) return [];
      arm();
      // The evaluation's own limit_reached event says it already; else (the same screen seen
      // before resume_after_limit covered it) the park is announced here.
      if (recorded.some((e) => e.event_type === 'limit_reached')) return [];
      return [event(watch, 'limit_reached', `${status.reason}; parked until ${iso(park.resume_at)}`, obs, park, { resume: 'scheduled' })];
    },
    resumeDue,
    async resumeNow(parkId, by) {
      await resume(parkId, by);
      arm();
      return store.park(parkId);
    },
    cancel(parkId, by) {
      const park = store.park(parkId);
      if (park === undefined) return undefined;
      close(park, store.watchById(park.watch_id), 'parked', 'cancelled', `cancelled by ${by}`);
      arm();
      return store.park(parkId);
    },
    start() {
      running = true;
      for (const p of store.listParks({ openOnly: true, limit: 1000 })) {
        if (p.state === 'resuming') {
          close(p, store.watchById(p.watch_id), 'resuming', 'failed', 'the broker stopped during the resume: delivery unknown (see terminal_list_input_audit); not re-sent');
        }
      }
      arm();
    },
    stop() {
      running = false;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}

/** The reset instant of every session parked now, by the name the watch gave (`node:session`
 * for a node's), for terminal_list_sessions. Binding watches are left out: the list names
 * sessions. */
export function parkedSessionResets(store: SupervisorStore): Map<string, string> {
  const out = new Map<string, string>();
  for (const p of store.listParks({ openOnly: true, limit: 1000 })) {
    const watch = store.watchById(p.watch_id);
    if (watch?.kind === 'session') out.set(watch.target, iso(p.resets_at));
  }
  return out;
}
