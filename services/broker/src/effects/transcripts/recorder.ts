/**
 * Records each readable session's pane output into its transcript (transcript-files.ts)
 * through tmux's own `pipe-pane` (effects/tmux/pane-pipe.ts) into a FIFO per pane
 * (pane-fifos.ts): no control client is attached for it, so recording cannot trigger the
 * tmux 3.3a crashes around identifying control clients (docs/transcripts.md).
 *
 * Which sessions: the session registry's reconcile calls `sync` with the listing it took;
 * a session the read gate admits is recorded, any other is not, and one that stops being
 * readable stops being recorded (its pipes are closed). Between reconciles the gate is
 * asked again on output, at most once per RECHECK_MS. Panes: every pane of a recorded
 * session, found when recording starts and by a scan every SCAN_MS (`list-panes -a`, ids
 * and flags only: a split pane is found by it, and its snapshot holds what it printed
 * before); a pane the user pipes is left alone (`#{pane_pipe}` and pane-fifos.ts tell
 * theirs from ours), and so is a pane whose pipe of ours someone else closed or replaced.
 *
 * Nothing lost at the start: when a pane's pipe opens, its screen and scrollback (at most
 * `max_capture_lines`) are captured in the same turn of tmux's loop and written first,
 * between snapshot markers (policy/transcript-snapshot.ts splits it into lines). When
 * recording resumes on a transcript with output already, only the screen is taken, and
 * only its lines after those the transcript ends with.
 *
 * Redacted BEFORE it is written: each pane has ONE stream redactor
 * (policy/transcript-redaction.ts), fed the snapshot and then the piped bytes, so its
 * state (a key block, a cut escape sequence, a partial line) spans both; partial lines
 * stay in memory (readers see them as `pending`) and are written whole when the pane,
 * the session or the recording ends.
 *
 * Never slows tmux down: the FIFO is read as fast as it fills (tmux keeps in memory
 * whatever a slow reader leaves it, and a pane whose program exited is only destroyed
 * once its pipe has drained), into a per-pane queue of at most QUEUE_BYTES that is
 * redacted in slices. Output arriving while the queue is full is dropped and marked in
 * the transcript as `unrecorded` (read_since says so).
 */
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { BrokerConfig } from '../../config/schema.js';
import type { EffectiveGrant } from '../../policy/grants.js';
import { sameSession, sessionIdentityOf, type SessionIdentity } from '../../policy/identity.js';
import { overlap } from '../../policy/line-overlap.js';
import { createTranscriptLineRedactor, type TranscriptLineRedactor } from '../../policy/transcript-redaction.js';
import { snapshotLines } from '../../policy/transcript-snapshot.js';
import type { PanePipeFacts, PanePipes, SessionFacts } from '../tmux/types.js';
import { createRecordingLane } from './recording-lane.js';
import { openPaneFifos, paneKeyText, type PaneFifos, type PaneKey } from './pane-fifos.js';
import { createRecordings, openRecordingTranscript } from './recordings.js';
import { dirNameOf, openTranscriptStore, type TranscriptMeta, type TranscriptStore, type TranscriptWriter } from './transcript-files.js';

const RECHECK_MS = 1_000;
/** Lines the redactor holds (they may belong to a key block or a dump still printing)
 * are judged and written once the pane has been quiet this long. */
const HOLD_FLUSH_MS = 1_000;
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** How long a pipe left by an earlier broker may take to let go of its FIFO. */
const TAKEOVER_WAIT_MS = 5_000;
/** How often the panes of recorded sessions are listed (new panes, moved panes). */
const SCAN_MS = 2_000;
/** Bytes read from a pane's FIFO and not redacted yet, at most. */
const QUEUE_BYTES = 4 * 1024 * 1024;
/** Bytes redacted per turn of the event loop, over all panes, before yielding. */
const SLICE_BYTES = 256 * 1024;
/** After the total cap is reached, transcripts are trimmed to this share of it. */
const TRIM_TO = 0.9;

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

/** What `terminal-mcp status` and the logs say about recording. */
export interface RecorderStats {
  readonly enabled: boolean;
  readonly sessions: number;
  readonly panes: number;
  /** Panes of recorded sessions not recorded because the user pipes them (or closed or
   * replaced our pipe). */
  readonly panesPipedByUser: number;
  readonly storedTranscripts: number;
  readonly storedBytes: number;
  /** Transcript writes are failing now (a full disk): since when (ms since the epoch, the
   * earliest of the failing recordings), in how many sessions, and how many lines were not
   * written so far. Null while every write succeeds. Each gap is marked in its transcript
   * once writing works again (read_since `dropped_reason: "write_failed"`). */
  readonly writeFailing: { readonly sinceMs: number; readonly sessions: number; readonly lines: number } | null;
}

export interface TranscriptRecorder {
  readonly store: TranscriptStore;
  /** Starts recording every readable session of `live` not recorded yet, stops the rest
   * (and recordings of sessions no longer listed); prunes expired transcripts. */
  sync(live: readonly SessionFacts[], gate: RecordGate): void;
  /** The recording of a session the caller was just admitted to read: started now if
   * needed (resolves once its snapshots are written). Null when transcripts are off or it
   * cannot start. */
  ensure(identity: SessionIdentity, name: string, size: { width: number; height: number }, gate: RecordGate): Promise<RecordingPosition | null>;
  /** The live recording of this identity (once started), or null. */
  position(identity: SessionIdentity): RecordingPosition | null;
  /** The recording now under this session name (no tmux call), or null. */
  positionByName(name: string): RecordingPosition | null;
  /** The partial line of each pane of a recorded identity (or of its pane `pane`),
   * redacted (never persisted). */
  pending(identity: SessionIdentity, pane?: string): string;
  /** Identities being recorded now (started). */
  recording(): SessionIdentity[];
  stats(): RecorderStats;
  /** `stats().writeFailing` without measuring the disk (for readiness probes). */
  writeFailing(): RecorderStats['writeFailing'];
  /** Recordings asked for and not started yet (their pipes are still queued in the
   * recording lane behind callers, or opening): readiness says how many, so a broker that
   * answers within a second of its start says what is still warming (issue 48). */
  opening(): number;
  /** Stops every recording (partial lines written, pipes closed) without marking sessions
   * ended. */
  close(): Promise<void>;
}

type TapState = 'opening' | 'live' | 'ended';

/** In a tap's queue: output was dropped here (the queue was full). */
const DROPPED = Symbol('dropped');

/** One pane's pipe into its FIFO. */
interface Tap {
  readonly paneId: string;
  readonly panePid: number;
  readonly fifo: string;
  readonly socket: Socket;
  readonly redactor: TranscriptLineRedactor;
  state: TapState;
  /** Output read and not redacted yet, in order, with DROPPED where some was lost. */
  readonly queue: (Buffer | typeof DROPPED)[];
  queued: number;
  /** Bytes dropped because the queue was full, not yet logged. */
  dropped: number;
  /** The FIFO ended (cat exited) while the pipe was still opening. */
  eof: boolean;
  /** When the pipe went live (a scan listed before that knows nothing of it). */
  liveSince: number;
  /** Judges the lines the redactor holds once the pane has been quiet HOLD_FLUSH_MS. */
  flushTimer: NodeJS.Timeout | null;
}

interface Recording {
  readonly identity: SessionIdentity;
  name: string;
  gate: RecordGate;
  checkedAt: number;
  stopped: boolean;
  /** Its snapshots are written: positions may be handed out. */
  started: boolean;
  readonly meta: TranscriptMeta;
  readonly writer: TranscriptWriter;
  /** The transcript had output when this recording began (a restart, a grant again). */
  readonly resumed: boolean;
  readonly panes: Map<string, Tap>;
  /** Panes not recorded, by "paneId:panePid": piped by the user, or our pipe was closed
   * or replaced by someone else (then left alone for the pane's life). */
  readonly leftAlone: Map<string, 'user-pipe' | 'yielded'>;
  ready: Promise<RecordingPosition | null>;
}

export interface TranscriptRecorderDeps {
  config: BrokerConfig;
  tmux: PanePipes;
  stateDir: string;
  log: Logger;
  now?: () => number;
  /** QUEUE_BYTES, smaller in a test that floods a pane. */
  queueBytes?: number;
}

const paneKey = (p: { paneId: string; panePid: number }) => `${p.paneId}:${p.panePid}`;

export function createTranscriptRecorder(deps: TranscriptRecorderDeps): TranscriptRecorder {
  const { config, log, tmux } = deps;
  const enabled = config.transcripts.enabled;
  const now = deps.now ?? Date.now;
  const store = openTranscriptStore(deps.stateDir);
  const fifos: PaneFifos = openPaneFifos(deps.stateDir);
  const queueBytes = deps.queueBytes ?? QUEUE_BYTES;
  const recordings = createRecordings<Recording>();
  const { bySessionId, positionOf } = recordings;
  let lastPrune = 0;
  let closed = false;
  /** Bytes on disk, counted at start and as written; trimmed past max_total_bytes. */
  let storedBytes = enabled ? store.usage().bytes : 0;
  let scanTimer: NodeJS.Timeout | undefined;
  let scanning: Promise<void> | null = null;
  const closing = new Set<Promise<void>>();
  /** Listings and pipe openings take turns behind callers' commands (recording-lane.ts). */
  const lane = createRecordingLane((maxWaitMs) => tmux.whenIdle(maxWaitMs));

  /** Every pane of the server; callers in the same turn of the event loop share one
   * `list-panes` (sessions start recording in bursts). */
  let listing: Promise<PanePipeFacts[]> | null = null;
  function listPanes(): Promise<PanePipeFacts[]> {
    listing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      listing = null;
      return lane.run(() => tmux.listPanePipes());
    });
    return listing;
  }

  function readable(r: Recording): boolean {
    return r.gate.canRead(r.name, r.gate.grantOf(r.name, r.identity));
  }

  function liveDirs(): Set<string> {
    return new Set([...bySessionId.values()].map((r) => dirNameOf(r.identity)));
  }

  function trimIfOver(): void {
    const cap = config.transcripts.max_total_bytes;
    if (storedBytes <= cap) return;
    try {
      storedBytes = store.trimTo(Math.floor(cap * TRIM_TO), liveDirs()).bytes;
    } catch (err) {
      log.warn({ event: 'transcripts.trim_failed', err: (err as Error).message }, 'transcripts not trimmed to the total cap');
    }
  }

  function write(r: Recording, tap: Tap, lines: readonly string[], snapshot = false): void {
    if (lines.length === 0) return;
    guardedWrite(r, () => (snapshot ? r.writer.appendSnapshot(lines, now(), tap.paneId) : r.writer.append(lines, now(), tap.paneId)));
    trimIfOver();
  }

  /** Every write to a transcript goes through here: a failure (a full disk) is logged when
   * it starts and when writing works again, not at every line, and never escapes into the
   * FIFO reader's turn of the event loop. The writer keeps the lost span and marks it. */
  function guardedWrite(r: Recording, writeIt: () => void): void {
    const before = r.writer.end();
    const wasFailing = r.writer.failing();
    try {
      writeIt();
    } catch (err) {
      if (wasFailing === null) {
        log.error({ event: 'transcripts.write_failed', sessionId: r.identity.sessionId, code: (err as { code?: unknown }).code, err: (err as Error).message }, 'transcript writes fail: output is not recorded until they work again (the gap is marked then)');
      }
    }
    if (wasFailing !== null && r.writer.failing() === null) {
      log.warn({ event: 'transcripts.write_recovered', sessionId: r.identity.sessionId, sinceMs: wasFailing.sinceMs, lines: wasFailing.lines }, 'transcript writes work again; the lines lost meanwhile are marked write_failed');
    }
    storedBytes += r.writer.end() - before;
  }

  // ---- reading the FIFOs: a bounded queue per pane, redacted in slices ----

  /** Taps with queued output, and their recordings. */
  const busy = new Map<Tap, Recording>();
  let draining = false;

  function intake(r: Recording, tap: Tap, chunk: Buffer): void {
    if (tap.state === 'ended') return;
    if (tap.queued + chunk.length > queueBytes) {
      if (tap.queue.at(-1) !== DROPPED) tap.queue.push(DROPPED);
      tap.dropped += chunk.length;
      return;
    }
    tap.queue.push(chunk);
    tap.queued += chunk.length;
    if (tap.state === 'live') schedule(r, tap);
  }

  function schedule(r: Recording, tap: Tap): void {
    busy.set(tap, r);
    if (!draining) {
      draining = true;
      setImmediate(drainSome);
    }
  }

  /** Redacts up to SLICE_BYTES of queued output, then yields to the event loop. */
  function drainSome(): void {
    let budget = SLICE_BYTES;
    for (const [tap, r] of busy) {
      budget -= redactQueued(r, tap, budget);
      if (tap.queue.length === 0 || tap.state === 'ended') busy.delete(tap);
      if (budget <= 0) break;
    }
    draining = busy.size > 0;
    if (draining) setImmediate(drainSome);
  }

  /** Redacts and writes at most `budget` bytes (all when Infinity) of the tap's queue. */
  function redactQueued(r: Recording, tap: Tap, budget: number): number {
    let used = 0;
    while (tap.queue.length > 0 && used < budget && !r.stopped) {
      if (now() - r.checkedAt >= RECHECK_MS) {
        r.checkedAt = now();
        if (!readable(r)) {
          stop(r, false, false);
          break;
        }
      }
      const item = tap.queue.shift()!;
      if (item === DROPPED) {
        markDropped(r, tap);
        continue;
      }
      tap.queued -= item.length;
      used += item.length;
      write(r, tap, tap.redactor.push(item).lines);
    }
    if (used > 0) armFlush(r, tap);
    return used;
  }

  /** Lines the redactor holds back (they may be part of a key or a dump still printing)
   * are judged and written once the pane has printed nothing for HOLD_FLUSH_MS. */
  function armFlush(r: Recording, tap: Tap): void {
    if (tap.flushTimer !== null) clearTimeout(tap.flushTimer);
    tap.flushTimer = null;
    if (tap.state !== 'live' || !tap.redactor.holding()) return;
    tap.flushTimer = setTimeout(() => {
      tap.flushTimer = null;
      if (tap.state === 'live' && !r.stopped) write(r, tap, tap.redactor.flush().lines);
    }, HOLD_FLUSH_MS);
    tap.flushTimer.unref();
  }

  function clearFlush(tap: Tap): void {
    if (tap.flushTimer !== null) clearTimeout(tap.flushTimer);
    tap.flushTimer = null;
  }

  /** Output was dropped here while the queue was full: the transcript says so in place. */
  function markDropped(r: Recording, tap: Tap): void {
    log.warn({ event: 'transcripts.output_dropped', paneId: tap.paneId, bytes: tap.dropped }, 'pane printed faster than it could be redacted; output dropped and marked unrecorded');
    tap.dropped = 0;
    // Even as the first event: a reader's cursor may be at offset 0 (taken before the pane's
    // first line), and it must learn that output after it was lost.
    guardedWrite(r, () => r.writer.markGap(now(), true));
  }

  // ---- pipes ----

  /** Waits for a closing command without keeping a list of every one ever sent. */
  function track(p: Promise<void>): void {
    closing.add(p);
    void p.finally(() => closing.delete(p));
  }

  /** Ends a tap: what is queued is redacted (unless `keepQueued` is false: the session
   * is no longer readable), the partial line written. `closePipe`: our pipe is still on a
   * live pane and must be closed. A tap still opening is ended by openTap itself. */
  function finishTap(r: Recording, tap: Tap, opts: { closePipe: boolean; keepQueued: boolean }): void {
    if (r.panes.get(tap.paneId) === tap) r.panes.delete(tap.paneId);
    clearFlush(tap);
    if (tap.state !== 'live') {
      tap.state = 'ended';
      return;
    }
    tap.state = 'ended';
    for (const item of opts.keepQueued ? tap.queue : []) {
      if (item === DROPPED) markDropped(r, tap);
      else write(r, tap, tap.redactor.push(item).lines);
    }
    write(r, tap, tap.redactor.end().lines);
    tap.queue.length = 0;
    tap.queued = 0;
    tap.socket.destroy();
    if (opts.closePipe) track(tmux.closePanePipe(tap.paneId));
  }

  /** The FIFO ended: the pane is gone or dead, or someone else closed or replaced our pipe. */
  async function onFifoEnd(r: Recording, tap: Tap): Promise<void> {
    if (tap.state === 'opening') {
      tap.eof = true;
      return;
    }
    if (tap.state === 'ended') return;
    finishTap(r, tap, { closePipe: false, keepQueued: true });
    if (r.stopped || closed) return;
    // Left alone at once, before asking tmux why: a scan meanwhile must not pipe it again.
    const key = paneKey(tap);
    r.leftAlone.set(key, 'yielded');
    const pane = (await listPanes().catch(() => [] as PanePipeFacts[])).find((p) => p.paneId === tap.paneId && p.panePid === tap.panePid);
    if (pane !== undefined && !pane.dead) {
      // The pane lives on, and our pipe is gone: the user's pipe-pane closed or replaced it.
      log.info({ event: 'transcripts.pane_yielded', sessionId: r.identity.sessionId, paneId: tap.paneId }, 'a pipe-pane of the user replaced the recording of a pane; that pane is no longer recorded');
    } else {
      r.leftAlone.delete(key); // it ended: nothing to leave alone
    }
  }

  /** A tap whose pipe nobody wants any more (it failed, or the recording stopped
   * meanwhile): the pipe is closed (tmux ignores a pane that has none). */
  function abandon(tap: Tap): void {
    clearFlush(tap);
    tap.state = 'ended';
    tap.socket.destroy();
    track(tmux.closePanePipe(tap.paneId));
  }

  /** Panes whose earlier broker's pipe is being closed (see openTap). */
  const takingOver = new Set<string>();

  /** Closes an earlier broker's pipe on the pane and waits (at most TAKEOVER_WAIT_MS) until
   * its `cat` has let go of the FIFO. */
  async function releaseOldPipe(paneId: string, identity: PaneKey): Promise<boolean> {
    await tmux.closePanePipe(paneId);
    const deadline = now() + TAKEOVER_WAIT_MS;
    while (fifos.ownPipe(identity)) {
      if (now() > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return true;
  }

  /** Starts recording one pane: its FIFO, its pipe, its snapshot. Resolves once the
   * snapshot is written (or the pane is left alone). */
  async function openTap(r: Recording, pane: PanePipeFacts, depth: 'history' | 'screen'): Promise<void> {
    const key = paneKey(pane);
    if (pane.dead || r.panes.has(pane.paneId) || r.leftAlone.get(key) === 'yielded') return;
    const identity = { serverPid: r.identity.serverPid, paneId: pane.paneId, panePid: pane.panePid };
    if (takingOver.has(key)) return;
    // A pipe on the pane is ours when a `cat` of ours still writes its FIFO (an earlier
    // broker's: taken over below), else the user's (left alone).
    if (pane.piped) {
      if (!fifos.ownPipe(identity)) {
        if (!r.leftAlone.has(key)) log.info({ event: 'transcripts.pane_piped_by_user', sessionId: r.identity.sessionId, paneId: pane.paneId }, 'a pane the user pipes (pipe-pane) is not recorded');
        r.leftAlone.set(key, 'user-pipe');
        return;
      }
      // The old `cat` writes the FIFO our reader would open. Were the pipe simply replaced,
      // that reader would see end-of-file in the moment between the old `cat` exiting and
      // the new one opening, and take the pane for one the user took: the old pipe is
      // closed first, and the reader opened once nothing writes the FIFO.
      takingOver.add(key);
      try {
        if (!(await releaseOldPipe(pane.paneId, identity))) return; // again at the next scan
      } finally {
        takingOver.delete(key);
      }
    }
    r.leftAlone.delete(key);
    const fifo = await fifos.create(identity);
    if (r.stopped || r.panes.has(pane.paneId)) return;
    const socket = fifos.openReader(fifo);
    const tap: Tap = { paneId: pane.paneId, panePid: pane.panePid, fifo, socket, redactor: createTranscriptLineRedactor(), state: 'opening', queue: [], queued: 0, dropped: 0, eof: false, liveSince: Number.POSITIVE_INFINITY, flushTimer: null };
    r.panes.set(pane.paneId, tap);
    socket.on('data', (chunk: Buffer) => intake(r, tap, chunk));
    socket.on('end', () => void onFifoEnd(r, tap));
    socket.on('error', (err) => {
      log.warn({ event: 'transcripts.fifo_error', paneId: tap.paneId, err: err.message }, 'transcript pipe failed');
      void onFifoEnd(r, tap);
    });
    let opened;
    try {
      opened = await lane.run(() => tmux.openPanePipe(pane.paneId, fifo, depth === 'history' ? config.max_capture_lines : 0));
    } catch (err) {
      log.debug({ event: 'transcripts.pipe_not_opened', paneId: pane.paneId, err: (err as Error).message }, 'pane not piped');
      if (r.panes.get(pane.paneId) === tap) r.panes.delete(pane.paneId);
      abandon(tap);
      return;
    }
    if (r.stopped || tap.state !== 'opening') {
      if (r.panes.get(pane.paneId) === tap) r.panes.delete(pane.paneId);
      abandon(tap);
      return;
    }
    // The snapshot goes through the pane's one redactor, first; its unfinished last line
    // stays in the redactor as the start of the line the stream continues.
    const snap = snapshotLines(opened.text, opened, depth === 'history' ? config.max_capture_lines : opened.height);
    // The screen is whole: lines the redactor would hold for what follows are judged now,
    // so the snapshot ends with them.
    const lines = [...tap.redactor.push(snap.lines.length > 0 ? `${snap.lines.join('\n')}\n` : '').lines, ...tap.redactor.flush().lines];
    // Resuming: the screen usually still shows lines recorded before; only what follows
    // them is new (what the pane printed while nobody recorded, as far as it is visible).
    write(r, tap, depth === 'screen' ? lines.slice(overlap(store.lastLines(r.identity, lines.length, tap.paneId), lines)) : lines, true);
    if (snap.partial !== '') tap.redactor.push(snap.partial);
    tap.state = 'live';
    tap.liveSince = now();
    if (tap.queue.length > 0) schedule(r, tap);
    if (tap.eof) await onFifoEnd(r, tap);
  }

  /** Ends a recording; `ended`: because the session is gone (marks the transcript).
   * `keepQueued`: false when it stops because the session is no longer readable. */
  function stop(r: Recording, ended: boolean, keepQueued = true): void {
    if (r.stopped) return;
    if (bySessionId.get(r.identity.sessionId) === r) bySessionId.delete(r.identity.sessionId);
    for (const tap of [...r.panes.values()]) finishTap(r, tap, { closePipe: !ended, keepQueued });
    r.stopped = true;
    r.writer.close();
    if (ended) {
      r.meta.endedAt = now();
      store.writeMeta(r.meta);
    }
  }

  function start(identity: SessionIdentity, name: string, size: { width: number; height: number }, gate: RecordGate): Recording {
    const { meta, writer, resumed } = openRecordingTranscript(store, config, identity, name, size, now());
    const r: Recording = {
      identity: sessionIdentityOf(identity),
      name,
      gate,
      checkedAt: now(),
      stopped: false,
      started: false,
      meta,
      writer,
      resumed,
      panes: new Map(),
      leftAlone: new Map(),
      ready: Promise.resolve(null),
    };
    // Recording resumes on a transcript with output already (a broker restart, a grant
    // given again): what the pane printed meanwhile was not recorded, and a reader whose
    // cursor is from before must be told (read_since `unrecorded`).
    guardedWrite(r, () => writer.markGap(now()));
    bySessionId.set(identity.sessionId, r);
    r.ready = (async () => {
      try {
        const panes = (await listPanes()).filter((p) => sameSession(p, identity));
        if (panes.length === 0) throw new Error('the session has no pane (gone?)');
        await Promise.all(panes.map((p) => openTap(r, p, resumed ? 'screen' : 'history')));
      } catch (err) {
        log.debug({ event: 'transcripts.not_started', sessionId: identity.sessionId, err: (err as Error).message }, 'transcript not started');
        stop(r, false);
        return null;
      }
      if (r.stopped) return null;
      r.started = true;
      ensureScanning();
      return positionOf(r);
    })();
    return r;
  }


  // ---- the pane scan ----

  function ensureScanning(): void {
    if (scanTimer !== undefined || closed) return;
    scanTimer = setInterval(() => void scan(), SCAN_MS);
    scanTimer.unref();
  }

  /** Pipes new panes of recorded sessions, closes pipes of panes that left them. */
  function scan(): Promise<void> {
    if (scanning !== null) return scanning;
    scanning = (async () => {
      if (bySessionId.size === 0) {
        if (scanTimer !== undefined) clearInterval(scanTimer);
        scanTimer = undefined;
        return;
      }
      const listedAt = now();
      const panes = await listPanes();
      // FIFOs of panes that are gone (a broker that died, panes that ended): removed a
      // while later (pane-fifos.ts says why not at once).
      fifos.removeStale(new Set(panes.map((p) => paneKeyText(p))), now());
      const opening: Promise<void>[] = [];
      for (const r of bySessionId.values()) {
        if (!r.started || r.stopped) continue;
        const mine = panes.filter((p) => sameSession(p, r.identity));
        for (const p of mine) if (!r.panes.has(p.paneId)) opening.push(openTap(r, p, 'history'));
        for (const tap of [...r.panes.values()]) {
          if (tap.state !== 'live' || tap.liveSince >= listedAt) continue;
          const here = mine.find((p) => p.paneId === tap.paneId);
          const elsewhere = panes.some((p) => p.paneId === tap.paneId);
          // Moved to another session (join-pane, move-pane): its recording is that session's.
          if (here === undefined && elsewhere) finishTap(r, tap, { closePipe: true, keepQueued: true });
          // Dead but kept (remain-on-exit): nothing more comes; the pipe ends with the pane.
          else if (here?.dead === true) finishTap(r, tap, { closePipe: false, keepQueued: true });
          // No pipe although ours never ended: it never connected (`[ -p ]` failed). Again
          // at the next scan.
          else if (here !== undefined && !here.piped) finishTap(r, tap, { closePipe: false, keepQueued: true });
        }
        for (const key of r.leftAlone.keys()) if (!mine.some((p) => paneKey(p) === key)) r.leftAlone.delete(key);
      }
      await Promise.all(opening);
    })()
      .catch((err: unknown) => log.debug({ event: 'transcripts.scan_failed', err: (err as Error).message }, 'pane scan failed'))
      .finally(() => {
        scanning = null;
      });
    return scanning;
  }

  return {
    store,
    sync(live, gate) {
      if (!enabled || closed) return;
      const listed = new Set(live.map((s) => s.sessionId));
      for (const r of [...bySessionId.values()]) {
        if (!listed.has(r.identity.sessionId)) stop(r, true);
      }
      for (const s of live) {
        const r = bySessionId.get(s.sessionId);
        const allowed = gate.canRead(s.name, gate.grantOf(s.name, s));
        if (r !== undefined) {
          if (!sameSession(r.identity, s)) {
            stop(r, true);
          } else {
            r.name = s.name;
            r.gate = gate;
            if (r.meta.name !== s.name) {
              r.meta.name = s.name;
              store.writeMeta(r.meta);
            }
            if (!allowed) stop(r, false);
            continue;
          }
        }
        if (!allowed) continue;
        try {
          start(s, s.name, { width: s.activePane?.width ?? 80, height: s.activePane?.height ?? 24 }, gate);
        } catch (err) {
          log.warn({ event: 'transcripts.not_started', err: (err as Error).message }, 'transcript not started');
        }
      }
      if (now() - lastPrune > HOUR_MS) {
        lastPrune = now();
        try {
          store.prune(now() - config.transcripts.retention_days * DAY_MS, liveDirs());
          storedBytes = store.usage().bytes;
          trimIfOver();
        } catch (err) {
          log.warn({ event: 'transcripts.prune_failed', err: (err as Error).message }, 'transcripts not pruned');
        }
      }
    },
    async ensure(identity, name, size, gate) {
      if (!enabled || closed) return null;
      const r = bySessionId.get(identity.sessionId);
      if (r !== undefined && sameSession(r.identity, identity)) {
        await r.ready;
        return positionOf(r);
      }
      if (r !== undefined) stop(r, true);
      try {
        return await start(identity, name, size, gate).ready;
      } catch {
        return null;
      }
    },
    position: recordings.position,
    positionByName: recordings.positionByName,
    pending(identity, pane) {
      const r = bySessionId.get(identity.sessionId);
      if (!r || !sameSession(r.identity, identity)) return '';
      return [...r.panes.values()]
        .filter((p) => pane === undefined || p.paneId === pane)
        .map((p) => p.redactor.pending())
        .filter((p) => p !== '')
        .join('\n');
    },
    recording: recordings.recording,
    stats() {
      const recs = [...bySessionId.values()].filter((r) => r.started);
      const usage = enabled ? store.usage() : { transcripts: 0, bytes: 0 };
      return {
        enabled,
        sessions: recs.length,
        panes: recs.reduce((n, r) => n + r.panes.size, 0),
        panesPipedByUser: recs.reduce((n, r) => n + r.leftAlone.size, 0),
        storedTranscripts: usage.transcripts,
        storedBytes: usage.bytes,
        writeFailing: writeFailingOf(recs.map((r) => r.writer)),
      };
    },
    writeFailing: () => writeFailingOf([...bySessionId.values()].map((r) => r.writer)),
    opening() {
      let n = 0;
      for (const r of bySessionId.values()) if (!r.started && !r.stopped) n++;
      return n;
    },
    async close() {
      closed = true;
      // Queued openings are refused, so the waits below end at once.
      lane.close();
      if (scanTimer !== undefined) clearInterval(scanTimer);
      scanTimer = undefined;
      await Promise.allSettled([...bySessionId.values()].map((r) => r.ready));
      for (const r of [...bySessionId.values()]) stop(r, false);
      await Promise.allSettled([...closing]);
    },
  };
}

/** The recorder's write failures, summed over its recordings' writers (null: none fail). */
export function writeFailingOf(writers: readonly Pick<TranscriptWriter, 'failing'>[]): RecorderStats['writeFailing'] {
  const failing = writers.map((w) => w.failing()).filter((f): f is { sinceMs: number; lines: number } => f !== null);
  if (failing.length === 0) return null;
  return { sinceMs: Math.min(...failing.map((f) => f.sinceMs)), sessions: failing.length, lines: failing.reduce((n, f) => n + f.lines, 0) };
}
