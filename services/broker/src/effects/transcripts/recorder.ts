/**
 * Records each readable session's pane output into its transcript (transcript-files.ts),
 * from the `%output` of the ref-counted pane watchers (effects/tmux/pane-watch.ts): no
 * second protocol parser, no polling loop. The session registry's reconcile calls `sync`
 * with the listing it took; a session the read gate admits is recorded, any other is not,
 * and one that stops being readable stops being recorded. Between reconciles the gate is
 * asked again on output, at most once per RECHECK_MS, so a revoked grant or a policy
 * change stops the recording at the next output (within that second).
 *
 * Text is redacted line by line BEFORE it is written (policy/transcript-redaction.ts);
 * partial lines stay in memory (readers see them as `pending`) and are written whole when
 * the session or the recording ends.
 */
import type { AppError } from '@terminal-mcp/contract';
import type { Logger } from 'pino';
import type { BrokerConfig } from '../../config/schema.js';
import type { EffectiveGrant } from '../../policy/grants.js';
import { sameSession, sessionIdentityOf, type SessionIdentity } from '../../policy/identity.js';
import { createTranscriptLineRedactor, type TranscriptLineRedactor } from '../../policy/transcript-redaction.js';
import type { PaneWatcher, PaneWatchSubscription } from '../tmux/pane-watch.js';
import type { SessionFacts } from '../tmux/types.js';
import { dirNameOf, openTranscriptStore, type TranscriptMeta, type TranscriptStore, type TranscriptWriter } from './transcript-files.js';

const RECHECK_MS = 1_000;
/** Lines the redactor holds (they may belong to a key block or a dump still printing)
 * are judged and written once the pane has been quiet this long. */
const HOLD_FLUSH_MS = 1_000;
const DAY_MS = 86_400_000;

/** The read gate as the recorder needs it: THE access gate's read rule (access/gate.ts),
 * handed in by the registry's reconcile (effects do not import the gate). */
export interface RecordGate {
  canRead(name: string, grant?: EffectiveGrant | null): boolean;
  grantOf(name: string, identity: SessionIdentity): EffectiveGrant | null;
}

export interface RecordingPosition {
  readonly identity: SessionIdentity;
  readonly name: string;
  /** Offset after the last complete line written. */
  readonly offset: number;
}

export interface TranscriptRecorder {
  readonly store: TranscriptStore;
  /** Starts recording every readable session of `live` not recorded yet, stops the rest
   * (and recordings of sessions no longer listed); prunes expired transcripts. */
  sync(live: readonly SessionFacts[], gate: RecordGate): void;
  /** The recording of a session the caller was just admitted to read: started now if
   * needed (resolves once attached). Null when transcripts are off or it cannot start. */
  ensure(sessionId: string, name: string, size: { width: number; height: number }, gate: RecordGate): Promise<RecordingPosition | null>;
  /** The live recording of this identity, or null. */
  position(identity: SessionIdentity): RecordingPosition | null;
  /** The recording now under this session name (no tmux call), or null. */
  positionByName(name: string): RecordingPosition | null;
  /** The partial line of each pane of a recorded identity, redacted (never persisted). */
  pending(identity: SessionIdentity): string;
  /** Identities being recorded now. */
  recording(): SessionIdentity[];
  /** Stops every recording (partial lines written) without marking sessions ended. */
  close(): Promise<void>;
}

interface Recording {
  sessionId: string;
  name: string;
  identity: SessionIdentity | null;
  sub: PaneWatchSubscription;
  ready: Promise<RecordingPosition | null>;
  writer: TranscriptWriter | null;
  meta: TranscriptMeta | null;
  readonly panes: Map<string, TranscriptLineRedactor>;
  gate: RecordGate;
  checkedAt: number;
  stopped: boolean;
  flushTimer: NodeJS.Timeout | null;
}

export interface TranscriptRecorderDeps {
  config: BrokerConfig;
  paneWatch: PaneWatcher;
  stateDir: string;
  log: Logger;
  now?: () => number;
}

export function createTranscriptRecorder(deps: TranscriptRecorderDeps): TranscriptRecorder {
  const { config, log } = deps;
  const now = deps.now ?? Date.now;
  const store = openTranscriptStore(deps.stateDir);
  const limits = { segmentBytes: config.transcripts.segment_bytes, maxBytes: config.transcripts.max_bytes_per_session };
  const bySessionId = new Map<string, Recording>();
  let lastPrune = 0;

  function readable(r: Recording): boolean {
    if (r.identity === null) return true; // admitted when started; checked again once attached
    return r.gate.canRead(r.name, r.gate.grantOf(r.name, r.identity));
  }

  function write(r: Recording, lines: readonly string[]): void {
    if (lines.length === 0 || r.writer === null) return;
    try {
      r.writer.append(lines, now());
    } catch (err) {
      log.warn({ event: 'transcripts.write_failed', err: (err as Error).message }, 'transcript not written');
    }
  }

  /** Ends a recording; `ended`: because the session is gone (marks the transcript). */
  function stop(r: Recording, ended: boolean): void {
    if (r.stopped) return;
    r.stopped = true;
    if (r.flushTimer !== null) clearTimeout(r.flushTimer);
    if (bySessionId.get(r.sessionId) === r) bySessionId.delete(r.sessionId);
    r.sub.unsubscribe();
    for (const pane of r.panes.values()) write(r, pane.end().lines);
    r.writer?.close();
    if (ended && r.meta !== null) {
      r.meta.endedAt = now();
      store.writeMeta(r.meta);
    }
  }

  function start(sessionId: string, name: string, size: { width: number; height: number }, gate: RecordGate): Recording {
    const recording: Recording = {
      sessionId,
      name,
      identity: null,
      sub: { ready: Promise.resolve(null as never), unsubscribe: () => {} },
      ready: Promise.resolve(null),
      writer: null,
      meta: null,
      panes: new Map(),
      gate,
      checkedAt: now(),
      stopped: false,
      flushTimer: null,
    };
    const sub = deps.paneWatch.watch(sessionId, {
      onOutput(chunk) {
        const r = recording;
        if (r.stopped || r.writer === null) return;
        if (now() - r.checkedAt >= RECHECK_MS) {
          r.checkedAt = now();
          if (!readable(r)) return stop(r, false);
        }
        let pane = r.panes.get(chunk.paneId);
        if (pane === undefined) r.panes.set(chunk.paneId, (pane = createTranscriptLineRedactor()));
        write(r, pane.push(chunk.data).lines);
        if (r.flushTimer !== null) clearTimeout(r.flushTimer);
        r.flushTimer = null;
        if ([...r.panes.values()].some((p) => p.holding())) {
          r.flushTimer = setTimeout(() => {
            r.flushTimer = null;
            if (!r.stopped) for (const p of r.panes.values()) write(r, p.flush().lines);
          }, HOLD_FLUSH_MS);
          r.flushTimer.unref();
        }
      },
      onEnd(error: AppError) {
        // The watcher closing with the broker is not the session ending.
        stop(recording, error.message !== 'pane watcher is closed');
      },
    });
    const ready = sub.ready.then(
      (identity): RecordingPosition | null => {
        const r = recording;
        if (r.stopped) return null;
        r.identity = identity;
        if (!readable(r)) {
          stop(r, false);
          return null;
        }
        const existing = store.meta(identity);
        const meta: TranscriptMeta = existing
          ? { ...existing, name, endedAt: null }
          : { version: 1, name, ...sessionIdentityOf(identity), startedAt: now(), width: size.width, height: size.height, endedAt: null };
        store.writeMeta(meta);
        r.meta = meta;
        r.writer = store.openWriter(meta, limits);
        // Recording resumes on a transcript with output already (a broker restart, a
        // grant given again): what the pane printed meanwhile was not recorded, and a
        // reader whose cursor is from before must be told (read_since `unrecorded`).
        r.writer.markGap(now());
        return { identity, name, offset: r.writer.end() };
      },
      () => null,
    );
    recording.sub = sub;
    recording.ready = ready;
    bySessionId.set(sessionId, recording);
    return recording;
  }

  const positionOf = (r: Recording): RecordingPosition | null =>
    r.identity !== null && r.writer !== null && !r.stopped ? { identity: r.identity, name: r.name, offset: r.writer.end() } : null;

  return {
    store,
    sync(live, gate) {
      if (!config.transcripts.enabled) return;
      const listed = new Set(live.map((s) => s.sessionId));
      for (const r of [...bySessionId.values()]) {
        if (!listed.has(r.sessionId)) stop(r, true);
      }
      for (const s of live) {
        const r = bySessionId.get(s.sessionId);
        const allowed = gate.canRead(s.name, gate.grantOf(s.name, s));
        if (r !== undefined) {
          if (r.identity !== null && !sameSession(r.identity, s)) {
            stop(r, true);
          } else {
            r.name = s.name;
            r.gate = gate;
            if (r.meta !== null && r.meta.name !== s.name) {
              r.meta.name = s.name;
              store.writeMeta(r.meta);
            }
            if (!allowed) stop(r, false);
            continue;
          }
        }
        if (!allowed) continue;
        try {
          start(s.sessionId, s.name, { width: s.activePane?.width ?? 80, height: s.activePane?.height ?? 24 }, gate);
        } catch (err) {
          // Too many watched sessions (RATE_LIMITED): tried again at the next reconcile.
          log.debug({ event: 'transcripts.not_started', err: (err as Error).message }, 'transcript not started');
        }
      }
      if (now() - lastPrune > 3_600_000) {
        lastPrune = now();
        const keep = new Set([...bySessionId.values()].flatMap((r) => (r.identity ? [dirNameOf(r.identity)] : [])));
        try {
          store.prune(now() - config.transcripts.retention_days * DAY_MS, keep);
        } catch (err) {
          log.warn({ event: 'transcripts.prune_failed', err: (err as Error).message }, 'transcripts not pruned');
        }
      }
    },
    async ensure(sessionId, name, size, gate) {
      if (!config.transcripts.enabled) return null;
      const r = bySessionId.get(sessionId);
      if (r !== undefined && !r.stopped) {
        const pos = await r.ready;
        return pos === null ? null : positionOf(r);
      }
      try {
        return await start(sessionId, name, size, gate).ready;
      } catch {
        return null;
      }
    },
    position(identity) {
      const r = bySessionId.get(identity.sessionId);
      return r && r.identity && sameSession(r.identity, identity) ? positionOf(r) : null;
    },
    positionByName(name) {
      for (const r of bySessionId.values()) if (r.name === name) return positionOf(r);
      return null;
    },
    pending(identity) {
      const r = bySessionId.get(identity.sessionId);
      if (!r || !r.identity || !sameSession(r.identity, identity)) return '';
      return [...r.panes.values()]
        .map((p) => p.pending())
        .filter((p) => p !== '')
        .join('\n');
    },
    recording: () => [...bySessionId.values()].flatMap((r) => (r.identity ? [r.identity] : [])),
    async close() {
      for (const r of [...bySessionId.values()]) stop(r, false);
    },
  };
}
