/**
 * supervisor.db: watches (one row per watched session or binding, with the state and the
 * counters of the stop policy), events (meaningful transitions only, redacted previews),
 * policies (v2 mode and hard-stop counters per watch), actions (claim → decision →
 * approval → send → outcome, changed only by compare-and-swap on `state`) and verifier
 * policies, and parks (an agent at a usage limit, waiting for its reset: limit-parks.ts).
 * Nothing here ever holds raw pane output or an unredacted prompt: callers
 * redact before they write. Times are milliseconds since the epoch.
 */
import type { SqliteDatabase, StoreDefinition } from './database.js';

export const supervisorStoreDefinition: StoreDefinition = {
  name: 'supervisor',
  migrations: [
    (db) => {
      db.exec(`CREATE TABLE watches (
        id INTEGER PRIMARY KEY,
        watch_key TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL CHECK (kind IN ('session', 'binding')),
        target TEXT NOT NULL,
        state TEXT NOT NULL,
        enabled INTEGER NOT NULL,
        disabled_reason TEXT,
        iteration_count INTEGER NOT NULL DEFAULT 0,
        failure_count INTEGER NOT NULL DEFAULT 0,
        last_output_hash TEXT NOT NULL DEFAULT '',
        done_marker TEXT NOT NULL,
        source TEXT NOT NULL,
        created_by TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT`);
      db.exec(`CREATE TABLE events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        watch_id INTEGER NOT NULL,
        watch_key TEXT NOT NULL,
        kind TEXT NOT NULL,
        target TEXT NOT NULL,
        at INTEGER NOT NULL,
        previous_state TEXT,
        state TEXT NOT NULL,
        event_type TEXT NOT NULL,
        reason TEXT NOT NULL,
        output_preview TEXT NOT NULL,
        output_hash TEXT NOT NULL,
        iteration_count INTEGER NOT NULL,
        acknowledged_at INTEGER,
        acknowledged_by TEXT,
        metadata TEXT NOT NULL
      ) STRICT`);
      db.exec('CREATE INDEX events_watch ON events (watch_id, id)');
      db.exec(`CREATE TABLE policies (
        watch_id INTEGER PRIMARY KEY REFERENCES watches (id) ON DELETE CASCADE,
        mode TEXT NOT NULL,
        approved_template TEXT,
        max_auto_actions INTEGER NOT NULL,
        wall_clock_timeout_seconds INTEGER NOT NULL,
        same_prompt_repeat_limit INTEGER NOT NULL,
        no_progress_limit INTEGER NOT NULL,
        auto_action_count INTEGER NOT NULL DEFAULT 0,
        first_action_at INTEGER,
        last_prompt_hash TEXT,
        same_prompt_count INTEGER NOT NULL DEFAULT 0,
        blocked_reason TEXT,
        updated_at INTEGER NOT NULL
      ) STRICT`);
      db.exec(`CREATE TABLE actions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        watch_id INTEGER NOT NULL REFERENCES watches (id) ON DELETE CASCADE,
        event_id INTEGER NOT NULL,
        state TEXT NOT NULL,
        claimed_by TEXT NOT NULL,
        claim_expires_at INTEGER NOT NULL,
        prompt TEXT,
        prompt_hash TEXT,
        approved_by TEXT,
        blocked_reason TEXT,
        send_audit_id INTEGER,
        send_text_length INTEGER,
        output_hash_at_send TEXT,
        no_progress_checks INTEGER NOT NULL DEFAULT 0,
        resulting_event_id INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT`);
      // At most one open action per watch: two workers cannot both claim one watch.
      db.exec(`CREATE UNIQUE INDEX actions_one_open ON actions (watch_id)
        WHERE state IN ('claimed', 'decided', 'approved', 'sent', 'observing')`);
      db.exec(`CREATE TABLE verifier_policies (
        watch_id INTEGER PRIMARY KEY REFERENCES watches (id) ON DELETE CASCADE,
        worktree TEXT NOT NULL,
        require_git_clean INTEGER NOT NULL,
        require_commit TEXT,
        test_command TEXT,
        timeout_seconds INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT`);
    },
    // v2: a watch's verifier names an operator-configured profile (config
    // supervisor.verifier_profiles) and who chose it; clients no longer supply a command
    // or a directory. Policies stored by v1 came from clients, so none is kept: an
    // autonomous watch without one is BLOCKED at DONE until a profile is chosen.
    (db) => {
      db.exec('DROP TABLE verifier_policies');
      db.exec(`CREATE TABLE verifier_policies (
        watch_id INTEGER PRIMARY KEY REFERENCES watches (id) ON DELETE CASCADE,
        profile TEXT NOT NULL,
        require_commit TEXT,
        updated_at INTEGER NOT NULL,
        updated_by TEXT NOT NULL
      ) STRICT`);
    },
    // v3: parks. A row outlives a broker restart, so a parked agent is still resumed at its
    // reset; a park left `resuming` by a dead broker is closed as failed, never re-sent.
    (db) => {
      db.exec(`CREATE TABLE parks (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        watch_id INTEGER NOT NULL REFERENCES watches (id) ON DELETE CASCADE,
        state TEXT NOT NULL,
        limit_kind TEXT NOT NULL,
        program TEXT NOT NULL,
        resets_at INTEGER NOT NULL,
        resume_at INTEGER NOT NULL,
        session_id TEXT NOT NULL,
        pane_id TEXT NOT NULL,
        identity TEXT NOT NULL,
        command TEXT NOT NULL,
        screen_hash TEXT NOT NULL,
        message TEXT NOT NULL,
        outcome TEXT,
        resume_audit_id INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT`);
      // One open park per watch: a second sighting of the same limit changes nothing.
      db.exec(`CREATE UNIQUE INDEX parks_one_open ON parks (watch_id) WHERE state IN ('parked', 'resuming')`);
    },
  ],
};

export interface ParkRow {
  id: number;
  watch_id: number;
  state: 'parked' | 'resuming' | 'resumed' | 'cancelled' | 'failed';
  limit_kind: string;
  program: string;
  resets_at: number;
  resume_at: number;
  session_id: string;
  pane_id: string;
  /** JSON of the pane's full identity (policy/identity.ts PaneIdentity) at the park. */
  identity: string;
  command: string;
  screen_hash: string;
  message: string;
  outcome: string | null;
  resume_audit_id: number | null;
  created_at: number;
  updated_at: number;
}

export type NewPark = Omit<ParkRow, 'id' | 'state' | 'outcome' | 'resume_audit_id' | 'updated_at'>;

export interface WatchRow {
  id: number;
  watch_key: string;
  kind: 'session' | 'binding';
  target: string;
  state: string;
  enabled: number;
  disabled_reason: string | null;
  iteration_count: number;
  failure_count: number;
  last_output_hash: string;
  done_marker: string;
  source: 'manual' | 'config';
  created_by: string;
  created_at: number;
  updated_at: number;
}

export interface EventRow {
  id: number;
  watch_id: number;
  watch_key: string;
  kind: 'session' | 'binding';
  target: string;
  at: number;
  previous_state: string | null;
  state: string;
  event_type: string;
  reason: string;
  output_preview: string;
  output_hash: string;
  iteration_count: number;
  acknowledged_at: number | null;
  acknowledged_by: string | null;
  metadata: string;
}

export interface PolicyRow {
  watch_id: number;
  mode: 'observe_only' | 'suggest_only' | 'approved_auto_continue';
  approved_template: string | null;
  max_auto_actions: number;
  wall_clock_timeout_seconds: number;
  same_prompt_repeat_limit: number;
  no_progress_limit: number;
  auto_action_count: number;
  first_action_at: number | null;
  last_prompt_hash: string | null;
  same_prompt_count: number;
  blocked_reason: string | null;
  updated_at: number;
}

export interface ActionRow {
  id: number;
  watch_id: number;
  event_id: number;
  state: string;
  claimed_by: string;
  claim_expires_at: number;
  prompt: string | null;
  prompt_hash: string | null;
  approved_by: string | null;
  blocked_reason: string | null;
  send_audit_id: number | null;
  send_text_length: number | null;
  output_hash_at_send: string | null;
  no_progress_checks: number;
  resulting_event_id: number | null;
  created_at: number;
  updated_at: number;
}

export interface VerifierRow {
  watch_id: number;
  /** A supervisor.verifier_profiles id. */
  profile: string;
  require_commit: string | null;
  updated_at: number;
  /** The identity that chose the profile. */
  updated_by: string;
}

export const OPEN_ACTION_STATES = ['claimed', 'decided', 'approved', 'sent', 'observing'] as const;

export type NewEvent = Omit<EventRow, 'id' | 'acknowledged_at' | 'acknowledged_by'>;

export interface SupervisorStore {
  readonly db: SqliteDatabase;
  watchByKey(key: string): WatchRow | undefined;
  watchById(id: number): WatchRow | undefined;
  listWatches(): WatchRow[];
  /** Creates the watch, or re-enables it with fresh counters (resuming a stopped watch). */
  upsertWatch(w: { key: string; kind: 'session' | 'binding'; target: string; doneMarker: string; source: 'manual' | 'config'; by: string; now: number }): WatchRow;
  updateWatch(id: number, fields: Partial<Pick<WatchRow, 'state' | 'enabled' | 'disabled_reason' | 'iteration_count' | 'failure_count' | 'last_output_hash'>>, now: number): void;
  removeWatch(id: number): boolean;
  /** Appends the event and prunes the oldest beyond `retention`; returns the new row. */
  addEvent(e: NewEvent, retention: number): EventRow;
  event(id: number): EventRow | undefined;
  listEvents(filter: { watchId?: number; unacknowledgedOnly?: boolean; afterId?: number; limit: number; types?: readonly string[] }): EventRow[];
  latestEventId(): number;
  ackEvent(id: number, by: string, now: number): EventRow | undefined;
  unacknowledgedCount(): number;
  policy(watchId: number): PolicyRow | undefined;
  upsertPolicy(p: Omit<PolicyRow, 'auto_action_count' | 'first_action_at' | 'last_prompt_hash' | 'same_prompt_count' | 'blocked_reason'>): void;
  updatePolicy(watchId: number, fields: Partial<Pick<PolicyRow, 'auto_action_count' | 'first_action_at' | 'last_prompt_hash' | 'same_prompt_count' | 'blocked_reason'>>, now: number): void;
  action(id: number): ActionRow | undefined;
  openAction(watchId: number): ActionRow | undefined;
  listActions(filter: { watchId?: number; openOnly?: boolean; limit: number }): ActionRow[];
  /** Inserts a claimed action; false when the watch already has an open one. */
  insertClaim(a: { watchId: number; eventId: number; by: string; expiresAt: number; now: number; state?: string; blockedReason?: string }): ActionRow | undefined;
  /** The one concurrency primitive: changes `state` only if it is still `from`. */
  casAction(id: number, from: string, to: string, fields: Partial<Omit<ActionRow, 'id' | 'state' | 'watch_id' | 'event_id' | 'created_at'>>, now: number): boolean;
  verifier(watchId: number): VerifierRow | undefined;
  setVerifier(v: VerifierRow): void;
  /** Inserts a parked row; undefined when the watch already has an open park. */
  insertPark(p: NewPark): ParkRow | undefined;
  park(id: number): ParkRow | undefined;
  /** The watch's newest park, open or not. */
  latestPark(watchId: number): ParkRow | undefined;
  listParks(filter: { openOnly?: boolean; limit: number }): ParkRow[];
  /** Changes `state` only if it is still `from` (one resume per park). */
  casPark(id: number, from: ParkRow['state'], to: ParkRow['state'], fields: Partial<Pick<ParkRow, 'outcome' | 'resume_audit_id'>>, now: number): boolean;
}

function setClause(fields: Record<string, unknown>): { sql: string; values: unknown[] } {
  const keys = Object.keys(fields).filter((k) => fields[k] !== undefined);
  return { sql: keys.map((k) => `${k} = ?`).join(', '), values: keys.map((k) => fields[k]) };
}

export function supervisorStore(db: SqliteDatabase): SupervisorStore {
  const watchByKey = db.prepare<[string], WatchRow>('SELECT * FROM watches WHERE watch_key = ?');
  const watchById = db.prepare<[number], WatchRow>('SELECT * FROM watches WHERE id = ?');
  const insertEvent = db.prepare(`INSERT INTO events (watch_id, watch_key, kind, target, at, previous_state, state, event_type, reason, output_preview, output_hash, iteration_count, metadata)
    VALUES (@watch_id, @watch_key, @kind, @target, @at, @previous_state, @state, @event_type, @reason, @output_preview, @output_hash, @iteration_count, @metadata)`);
  const eventById = db.prepare<[number], EventRow>('SELECT * FROM events WHERE id = ?');
  const prune = db.prepare<[number]>('DELETE FROM events WHERE id <= (SELECT id FROM events ORDER BY id DESC LIMIT 1 OFFSET ?)');
  const actionById = db.prepare<[number], ActionRow>('SELECT * FROM actions WHERE id = ?');
  const open = `('${OPEN_ACTION_STATES.join("', '")}')`;

  const addEvent = db.transaction((e: NewEvent, retention: number): EventRow => {
    const id = Number(insertEvent.run(e).lastInsertRowid);
    prune.run(retention);
    return eventById.get(id) as EventRow;
  });

  const parkById = db.prepare<[number], ParkRow>('SELECT * FROM parks WHERE id = ?');

  const store: SupervisorStore = {
    db,
    insertPark: (p) => {
      try {
        const id = db
          .prepare(
            `INSERT INTO parks (watch_id, state, limit_kind, program, resets_at, resume_at, session_id, pane_id, identity, command, screen_hash, message, created_at, updated_at)
             VALUES (@watch_id, 'parked', @limit_kind, @program, @resets_at, @resume_at, @session_id, @pane_id, @identity, @command, @screen_hash, @message, @created_at, @created_at)`,
          )
          .run(p).lastInsertRowid;
        return parkById.get(Number(id));
      } catch (err) {
        if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') return undefined;
        throw err;
      }
    },
    park: (id) => parkById.get(id),
    latestPark: (watchId) => db.prepare<[number], ParkRow>('SELECT * FROM parks WHERE watch_id = ? ORDER BY id DESC LIMIT 1').get(watchId),
    listParks: (f) =>
      db
        .prepare<[number], ParkRow>(`SELECT * FROM parks ${f.openOnly ? "WHERE state IN ('parked', 'resuming')" : ''} ORDER BY id DESC LIMIT ?`)
        .all(f.limit),
    casPark: (id, from, to, fields, now) => {
      const { sql, values } = setClause({ ...fields, state: to, updated_at: now });
      return db.prepare(`UPDATE parks SET ${sql} WHERE id = ? AND state = ?`).run(...values, id, from).changes === 1;
    },
    watchByKey: (key) => watchByKey.get(key),
    watchById: (id) => watchById.get(id),
    listWatches: () => db.prepare<[], WatchRow>('SELECT * FROM watches ORDER BY watch_key').all(),
    upsertWatch: (w) => {
      db.prepare(
        `INSERT INTO watches (watch_key, kind, target, state, enabled, done_marker, source, created_by, created_at, updated_at)
         VALUES (?, ?, ?, 'UNKNOWN', 1, ?, ?, ?, ?, ?)
         ON CONFLICT (watch_key) DO UPDATE SET enabled = 1, disabled_reason = NULL, iteration_count = 0, failure_count = 0,
           done_marker = excluded.done_marker, updated_at = excluded.updated_at`,
      ).run(w.key, w.kind, w.target, w.doneMarker, w.source, w.by, w.now, w.now);
      return watchByKey.get(w.key) as WatchRow;
    },
    updateWatch: (id, fields, now) => {
      const { sql, values } = setClause({ ...fields, updated_at: now });
      db.prepare(`UPDATE watches SET ${sql} WHERE id = ?`).run(...values, id);
    },
    removeWatch: (id) => db.prepare('DELETE FROM watches WHERE id = ?').run(id).changes > 0,
    addEvent: (e, retention) => addEvent.immediate(e, retention),
    event: (id) => eventById.get(id),
    listEvents: (f) => {
      const where: string[] = [];
      const values: unknown[] = [];
      if (f.watchId !== undefined) {
        where.push('watch_id = ?');
        values.push(f.watchId);
      }
      if (f.unacknowledgedOnly) where.push('acknowledged_at IS NULL');
      if (f.afterId !== undefined) {
        where.push('id > ?');
        values.push(f.afterId);
      }
      if (f.types !== undefined) {
        where.push(`event_type IN (${f.types.map(() => '?').join(', ')})`);
        values.push(...f.types);
      }
      // Newest first, except when reading forward from a cursor.
      const order = f.afterId !== undefined ? 'ASC' : 'DESC';
      const sql = `SELECT * FROM events ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id ${order} LIMIT ?`;
      return db.prepare<unknown[], EventRow>(sql).all(...values, f.limit);
    },
    latestEventId: () => (db.prepare<[], { id: number | null }>('SELECT MAX(id) AS id FROM events').get()?.id ?? 0),
    ackEvent: (id, by, now) => {
      db.prepare('UPDATE events SET acknowledged_at = ?, acknowledged_by = ? WHERE id = ? AND acknowledged_at IS NULL').run(now, by, id);
      return eventById.get(id);
    },
    unacknowledgedCount: () => (db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM events WHERE acknowledged_at IS NULL').get()?.n ?? 0),
    policy: (watchId) => db.prepare<[number], PolicyRow>('SELECT * FROM policies WHERE watch_id = ?').get(watchId),
    upsertPolicy: (p) => {
      // Setting a policy is the operator's reset: counters and any blocked_reason start over.
      db.prepare(
        `INSERT INTO policies (watch_id, mode, approved_template, max_auto_actions, wall_clock_timeout_seconds, same_prompt_repeat_limit, no_progress_limit, updated_at)
         VALUES (@watch_id, @mode, @approved_template, @max_auto_actions, @wall_clock_timeout_seconds, @same_prompt_repeat_limit, @no_progress_limit, @updated_at)
         ON CONFLICT (watch_id) DO UPDATE SET mode = excluded.mode, approved_template = excluded.approved_template,
           max_auto_actions = excluded.max_auto_actions, wall_clock_timeout_seconds = excluded.wall_clock_timeout_seconds,
           same_prompt_repeat_limit = excluded.same_prompt_repeat_limit, no_progress_limit = excluded.no_progress_limit,
           auto_action_count = 0, first_action_at = NULL, last_prompt_hash = NULL, same_prompt_count = 0, blocked_reason = NULL,
           updated_at = excluded.updated_at`,
      ).run(p);
    },
    updatePolicy: (watchId, fields, now) => {
      const { sql, values } = setClause({ ...fields, updated_at: now });
      db.prepare(`UPDATE policies SET ${sql} WHERE watch_id = ?`).run(...values, watchId);
    },
    action: (id) => actionById.get(id),
    openAction: (watchId) => db.prepare<[number], ActionRow>(`SELECT * FROM actions WHERE watch_id = ? AND state IN ${open}`).get(watchId),
    listActions: (f) => {
      const where: string[] = [];
      const values: unknown[] = [];
      if (f.watchId !== undefined) {
        where.push('watch_id = ?');
        values.push(f.watchId);
      }
      if (f.openOnly) where.push(`state IN ${open}`);
      const sql = `SELECT * FROM actions ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`;
      return db.prepare<unknown[], ActionRow>(sql).all(...values, f.limit);
    },
    insertClaim: (a) => {
      try {
        const id = db
          .prepare(
            `INSERT INTO actions (watch_id, event_id, state, claimed_by, claim_expires_at, blocked_reason, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(a.watchId, a.eventId, a.state ?? 'claimed', a.by, a.expiresAt, a.blockedReason ?? null, a.now, a.now).lastInsertRowid;
        return actionById.get(Number(id));
      } catch (err) {
        if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') return undefined;
        throw err;
      }
    },
    casAction: (id, from, to, fields, now) => {
      const { sql, values } = setClause({ ...fields, state: to, updated_at: now });
      return db.prepare(`UPDATE actions SET ${sql} WHERE id = ? AND state = ?`).run(...values, id, from).changes === 1;
    },
    verifier: (watchId) => db.prepare<[number], VerifierRow>('SELECT * FROM verifier_policies WHERE watch_id = ?').get(watchId),
    setVerifier: (v) => {
      db.prepare(
        `INSERT INTO verifier_policies (watch_id, profile, require_commit, updated_at, updated_by)
         VALUES (@watch_id, @profile, @require_commit, @updated_at, @updated_by)
         ON CONFLICT (watch_id) DO UPDATE SET profile = excluded.profile, require_commit = excluded.require_commit,
           updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
      ).run(v);
    },
  };
  return store;
}
