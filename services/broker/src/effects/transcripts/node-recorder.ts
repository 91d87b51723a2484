/**
 * Records the readable sessions of one node (config `nodes:`) into that node's own
 * transcript store (transcript-files.ts, `transcripts/nodes/<node>/`), by POLLING.
 *
 * Why not the pipe recorder (recorder.ts): `pipe-pane` makes the node's tmux write into a
 * FIFO on the node, which this host cannot read, and a stream back per pane would be one
 * ssh channel per pane (sshd allows 10 per multiplexed connection by default). Instead,
 * every LOOK_MS, each pane of each recorded session is captured over the node's one
 * control connection (the node's reader, reads/session-reader.ts `recordingLook`, which
 * asks the node's gate first):
 *
 * - the capture runs from a little before the row where the last look stopped to the
 *   cursor's row, wrapped lines joined; the line at the cursor is still being written and
 *   is only shown to readers as `pending`, never stored;
 * - the new lines start right after the run that equals the last lines written
 *   (policy/line-overlap.ts `resumeIndex`; the rows the pane reports say where to expect
 *   it, so repeated output is placed by position, not guessed);
 * - when no such run is there (more output scrolled away between two looks than the
 *   history held, or the history was cleared), the whole history is captured once more;
 *   still none: an `unrecorded` marker is written (read_since then says output was lost),
 *   then the lines the screen shows (not the whole history: a TUI that redraws every line
 *   finds no match either, and would write the history anew on every look).
 *   Lines redrawn in place (a progress bar moving the cursor up) are matched without
 *   them and written again as they look now;
 * - a pane with no complete line recorded yet (only a prompt) has nothing to compare: new
 *   lines are placed by the pane's row counts alone, and a loss there cannot be seen.
 *
 * Redacted BEFORE it is written: each pane has ONE stream redactor
 * (policy/transcript-redaction.ts), fed the complete lines in order; lines it holds (part
 * of a key block or dump, maybe) are judged when a look finds nothing new.
 *
 * The raw lines of the last look stay in memory only (to find the overlap). Nothing here
 * is audited per look, as for the pipe recorder: recording is the broker's own work, and
 * every read served from a transcript is audited by its procedure.
 */
import type { Logger } from 'pino';
import type { BrokerConfig } from '../../config/schema.js';
import { sameSession, sessionIdentityOf, type SessionIdentity } from '../../policy/identity.js';
import { MATCH_LINES, overlap, resumeIndex } from '../../policy/line-overlap.js';
import { createTranscriptLineRedactor, type TranscriptLineRedactor } from '../../policy/transcript-redaction.js';
import type { ListedSession, PaneFacts, WindowPaneFacts } from '../tmux/types.js';
import type { RecordGate, RecordingPosition, TranscriptRecorder } from './recorder.js';
import { createRecordings, openRecordingTranscript } from './recordings.js';
import { dirNameOf, openTranscriptStore, type TranscriptMeta, type TranscriptWriter } from './transcript-files.js';

/** How often a recorded node session's panes are looked at. */
export const NODE_LOOK_MS = 2_000;
/** Rows before the last look's stopping point a capture starts at: room for the lines a
 * match needs, and for output that scrolled between the pane's facts and its capture. */
const MARGIN_ROWS = 24;
/** Raw lines of the last looks kept per pane to find where new output starts. */
const KEPT_LINES = MATCH_LINES * 4;
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const TRIM_TO = 0.9;

/** One look at a session, through the node's reader (which asked the node's gate). */
export interface SessionLook {
  readonly panes: readonly WindowPaneFacts[];
  /** Rows `start`..`end` of a pane of this look, wrapped lines joined, NOT redacted, with
   * the pane's facts read in the same write; null when the pane is gone. */
  capture(paneId: string, start: number, end: number): Promise<{ facts: PaneFacts; text: string } | null>;
}

/** What the recorder asks of the node. */
export interface NodeRecordingSource {
  /** True while the node's control connection is up. */
  connected(): boolean;
  /** The node's sessions (a plain listing: names and identities). */
  sessions(): Promise<readonly ListedSession[]>;
  /** The node's gate on `name` (pinned to `identity`), then its panes (reader). */
  look(name: string, identity: SessionIdentity): Promise<SessionLook>;
}

/** What transcript reads use of a recorder (transcript-reads.ts), as for this host's. */
export interface NodeTranscriptRecorder extends Pick<TranscriptRecorder, 'store' | 'ensure' | 'position' | 'positionByName' | 'pending' | 'recording'> {
  /** Starts looking every NODE_LOOK_MS (nothing when transcripts are off). */
  start(): void;
  /** One pass now (tests; the timer calls it). */
  lookNow(): Promise<void>;
  close(): Promise<void>;
}

export interface NodeTranscriptRecorderDeps {
  config: BrokerConfig;
  node: string;
  stateDir: string;
  source: NodeRecordingSource;
  /** The node's read gate (its patterns, and the operator's grants on its sessions). */
  gate: RecordGate;
  log: Logger;
  now?: () => number;
}

interface PaneState {
  readonly paneId: string;
  readonly panePid: number;
  readonly redactor: TranscriptLineRedactor;
  /** Raw complete lines last seen (the end of what was written), memory only. */
  kept: string[] | null;
  /** Absolute row (history size + cursor row) where the last look stopped. */
  row: number;
  /** The raw line at the cursor at the last look (shown redacted as pending). */
  partial: string;
}

interface Recording {
  readonly identity: SessionIdentity;
  name: string;
  readonly meta: TranscriptMeta;
  readonly writer: TranscriptWriter;
  /** The transcript had output when this recording began: only the screen is taken
   * first, after the lines the transcript ends with. */
  readonly resumed: boolean;
  readonly panes: Map<string, PaneState>;
  started: boolean;
  stopped: boolean;
  /** The look in flight (looks of one session never overlap). */
  busy: Promise<void>;
  /** Settles once the first look is written (or failed). */
  ready: Promise<RecordingPosition | null>;
  /** The session's last output as the node's listing said it (tmux's `window_activity`,
   * whole seconds of the NODE's clock) and when this broker first saw that value (its own
   * clock: the two clocks are never compared). */
  activitySeen: { activity: number; at: number } | null;
  /** A look that began at least a second after that activity was first seen (so its second
   * had surely ended on the node, whatever its clock says) found nothing new in any pane and
   * holds nothing: that activity. While the listing shows the same, the session is not
   * looked at: an idle session costs only its row in the listing. */
  settledAt: number | null;
  /** Set while a look runs when a pane of it wrote lines or still holds some. */
  changed: boolean;
}

const splitCapture = (text: string) => {
  const rows = text.split('\n');
  return { complete: rows.slice(0, -1), partial: rows.at(-1) ?? '' };
};

export function createNodeTranscriptRecorder(deps: NodeTranscriptRecorderDeps): NodeTranscriptRecorder {
  const { config, log, source, gate } = deps;
  const enabled = config.transcripts.enabled;
  const now = deps.now ?? Date.now;
  const store = openTranscriptStore(deps.stateDir, deps.node);
  const recordings = createRecordings<Recording>();
  const { bySessionId, positionOf } = recordings;
  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<void> | null = null;
  let closed = false;
  let lastPrune = 0;

  const liveDirs = () => new Set([...bySessionId.values()].map((r) => dirNameOf(r.identity)));

  function write(r: Recording, paneId: string, lines: readonly string[], snapshot = false): void {
    if (lines.length === 0 || r.stopped) return;
    try {
      if (snapshot) r.writer.appendSnapshot(lines, now(), paneId);
      else r.writer.append(lines, now(), paneId);
    } catch (err) {
      log.warn({ event: 'transcripts.write_failed', node: deps.node, err: (err as Error).message }, 'node transcript not written');
    }
  }

  /** Complete raw lines through the pane's redactor, written. */
  function record(r: Recording, st: PaneState, raw: readonly string[]): void {
    if (raw.length > 0) r.changed = true;
    if (raw.length > 0) write(r, st.paneId, st.redactor.push(`${raw.join('\n')}\n`).lines);
    // Nothing new since the last look: the pane was quiet that long, so lines held for
    // what might follow are judged now.
    else if (st.redactor.holding()) write(r, st.paneId, st.redactor.flush().lines);
  }

  function endPane(r: Recording, st: PaneState): void {
    r.panes.delete(st.paneId);
    // What the cursor's line showed last is the pane's last line (the pipe recorder
    // writes a partial line when its pane ends, too).
    if (st.partial.trim() !== '') st.redactor.push(st.partial);
    write(r, st.paneId, st.redactor.end().lines);
  }

  function stop(r: Recording, ended: boolean): void {
    if (r.stopped) return;
    if (bySessionId.get(r.identity.sessionId) === r) bySessionId.delete(r.identity.sessionId);
    for (const st of [...r.panes.values()]) endPane(r, st);
    r.stopped = true;
    r.writer.close();
    if (ended) {
      r.meta.endedAt = now();
      store.writeMeta(r.meta);
    }
  }

  /** The first look at a pane: its history (or, resuming, its screen after the lines the
   * transcript ends with) as a snapshot. */
  async function firstLook(r: Recording, st: PaneState, pane: WindowPaneFacts, look: SessionLook, resumed: boolean): Promise<void> {
    const depth = resumed ? 0 : Math.min(pane.historySize, config.max_capture_lines);
    const got = await look.capture(pane.paneId, -depth, pane.cursor.y);
    if (got === null) return;
    const { complete, partial } = splitCapture(got.text);
    const lines = [...st.redactor.push(complete.length > 0 ? `${complete.join('\n')}\n` : '').lines, ...st.redactor.flush().lines];
    write(r, st.paneId, resumed ? lines.slice(overlap(store.lastLines(r.identity, lines.length, st.paneId), lines)) : lines, true);
    st.kept = complete.slice(-KEPT_LINES);
    st.row = got.facts.historySize + got.facts.cursor.y;
    st.partial = partial;
  }

  /** A later look: the lines after those written, or a gap when they scrolled away. */
  async function nextLook(r: Recording, st: PaneState, pane: WindowPaneFacts, look: SessionLook): Promise<void> {
    const kept = st.kept ?? [];
    const attempt = async (start: number) => {
      const got = await look.capture(pane.paneId, start, pane.cursor.y);
      if (got === null) return null;
      const { complete, partial } = splitCapture(got.text);
      // Rows of this capture before where the last look stopped ≈ lines before the new ones.
      const expected = st.row - got.facts.historySize - start;
      return { got, complete, partial, at: resumeIndex(kept, complete, expected) };
    };
    const planned = Math.max(-pane.historySize, Math.min(pane.cursor.y, st.row - pane.historySize - MARGIN_ROWS));
    let seen = await attempt(planned);
    if (seen === null) return;
    // Not found in a capture that started below the history's top: the whole history.
    if (seen.at === null && planned > -seen.got.facts.historySize) seen = (await attempt(-seen.got.facts.historySize)) ?? seen;
    let fresh: string[];
    if (seen.at === null) {
      // More output than the history holds came between two looks (or it was cleared):
      // the transcript says so where it happened, then goes on with what the screen shows.
      log.info({ event: 'transcripts.node_output_unrecorded', node: deps.node, sessionId: r.identity.sessionId, paneId: st.paneId }, 'a node pane printed more between two looks than its history held; marked unrecorded');
      if (st.redactor.holding()) write(r, st.paneId, st.redactor.flush().lines);
      r.writer.markGap(now(), true);
      // Then what the screen shows. Not the whole history: a program that redraws every
      // line it shows (a TUI) also finds no match, and would write the history anew on
      // every look.
      fresh = seen.complete.slice(-Math.max(1, seen.got.facts.height));
    } else {
      fresh = seen.complete.slice(seen.at);
    }
    record(r, st, fresh);
    // What the pane holds now up to its cursor's line, not what was written: after a loss
    // the old lines are gone, and after a redraw their old versions are.
    st.kept = seen.complete.slice(-KEPT_LINES);
    st.row = seen.got.facts.historySize + seen.got.facts.cursor.y;
    st.partial = seen.partial;
  }

  /** One look at a recording's panes; a refusal or a gone session ends it. */
  async function lookAt(r: Recording): Promise<void> {
    let look: SessionLook;
    try {
      look = await source.look(r.name, r.identity);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      // Down or slow: looked at again on the next pass (the node's history bridges it).
      if (code === 'TMUX_UNAVAILABLE' || code === 'TIMEOUT' || code === 'NODE_UNAVAILABLE' || !source.connected()) throw err;
      // Refused (patterns changed), renamed away, replaced or gone: recording stops; the
      // session's end is marked by the pass that no longer lists it.
      stop(r, code === 'SESSION_NOT_FOUND' || code === 'IDENTITY_CHANGED');
      throw err;
    }
    const listed = new Set(look.panes.map((p) => p.paneId));
    for (const st of [...r.panes.values()]) {
      const current = look.panes.find((p) => p.paneId === st.paneId);
      if (!listed.has(st.paneId) || current?.panePid !== st.panePid) endPane(r, st);
    }
    for (const pane of look.panes) {
      if (r.stopped) return;
      let st = r.panes.get(pane.paneId);
      if (st === undefined) {
        st = { paneId: pane.paneId, panePid: pane.panePid, redactor: createTranscriptLineRedactor(), kept: null, row: 0, partial: '' };
        r.panes.set(pane.paneId, st);
        // A pane that appears later (a split) gets its whole history, as with pipes.
        await firstLook(r, st, pane, look, r.resumed && !r.started);
      } else {
        await nextLook(r, st, pane, look);
      }
    }
  }

  /** One look, and whether the session may rest until its activity changes: only when the
   * look began after the activity's second had ended (all of that output was on the pane
   * then) and found nothing new, so held lines were judged and written. */
  async function settledLook(r: Recording, activity: number | undefined): Promise<void> {
    const startedAt = now();
    const seen = r.activitySeen;
    r.changed = false;
    await lookAt(r);
    const holding = [...r.panes.values()].some((st) => st.redactor.holding());
    const secondOver = activity !== undefined && seen !== null && seen.activity === activity && startedAt >= seen.at + 1_000;
    r.settledAt = secondOver && !r.changed && !holding ? activity : null;
  }

  /** Looks of one recording run one at a time. */
  function queueLook(r: Recording, activity?: number): Promise<void> {
    const next = r.busy.then(() => (r.stopped ? undefined : settledLook(r, activity)));
    r.busy = next.catch(() => undefined);
    return next;
  }

  function begin(identity: SessionIdentity, name: string, size: { width: number; height: number }): Recording {
    const { meta, writer, resumed } = openRecordingTranscript(store, config, identity, name, size, now());
    // What the pane printed while nothing recorded it (the broker was not running, the
    // session was not readable) is not in the transcript: a reader from before is told.
    writer.markGap(now());
    const r: Recording = { identity: sessionIdentityOf(identity), name, meta, writer, resumed, panes: new Map(), started: false, stopped: false, busy: Promise.resolve(), ready: Promise.resolve(null), activitySeen: null, settledAt: null, changed: false };
    bySessionId.set(identity.sessionId, r);
    r.ready = firstPass(r);
    return r;
  }

  async function firstPass(r: Recording): Promise<RecordingPosition | null> {
    try {
      await queueLook(r);
    } catch (err) {
      log.debug({ event: 'transcripts.not_started', node: deps.node, sessionId: r.identity.sessionId, err: (err as Error).message }, 'node transcript not started');
      if (!r.started) stop(r, false);
      return null;
    }
    if (r.stopped) return null;
    r.started = true;
    return positionOf(r);
  }


  function prune(): void {
    if (now() - lastPrune <= HOUR_MS) return;
    lastPrune = now();
    try {
      store.prune(now() - config.transcripts.retention_days * DAY_MS, liveDirs());
      if (store.usage().bytes > config.transcripts.max_total_bytes) store.trimTo(Math.floor(config.transcripts.max_total_bytes * TRIM_TO), liveDirs());
    } catch (err) {
      log.warn({ event: 'transcripts.prune_failed', node: deps.node, err: (err as Error).message }, 'node transcripts not pruned');
    }
  }

  /** The gate's read rule with the grant pinned to this very session, as this host's
   * recorder asks it. */
  const readable = (s: ListedSession) => gate.canRead(s.name, gate.grantOf(s.name, s));

  /** Every readable session of the node recorded, the rest not; each recorded one looked at. */
  async function lookAll(): Promise<void> {
    if (!enabled || closed || !source.connected()) return;
    let live: readonly ListedSession[];
    try {
      live = await source.sessions();
    } catch {
      return; // the node went down meanwhile: nothing is decided on a listing not taken
    }
    const listed = new Map(live.map((s) => [s.sessionId, s]));
    for (const r of [...bySessionId.values()]) {
      const s = listed.get(r.identity.sessionId);
      if (s === undefined || !sameSession(s, r.identity)) stop(r, true);
      else if (!readable(s)) stop(r, false);
      else r.name = s.name;
    }
    const looks: Promise<unknown>[] = [];
    for (const s of live) {
      if (!readable(s)) continue;
      const r = bySessionId.get(s.sessionId);
      if (r === undefined) {
        looks.push(begin(s, s.name, { width: 80, height: 24 }).ready);
      } else if (r.started) {
        if (r.meta.name !== s.name) {
          r.meta.name = s.name;
          store.writeMeta(r.meta);
        }
        if (r.activitySeen?.activity !== s.activity) r.activitySeen = { activity: s.activity, at: now() };
        // Nothing printed since a quiet look: not looked at (tmux's listing says so).
        if (r.settledAt === s.activity) continue;
        looks.push(queueLook(r, s.activity).catch((err: unknown) => log.debug({ event: 'transcripts.node_look_failed', node: deps.node, err: (err as Error).message }, 'node pane not looked at')));
      }
    }
    await Promise.all(looks);
    prune();
  }

  return {
    store,
    async ensure(identity, name, size) {
      if (!enabled || closed) return null;
      const r = bySessionId.get(identity.sessionId);
      if (r !== undefined && sameSession(r.identity, identity)) {
        await r.ready;
        return positionOf(r);
      }
      if (r !== undefined) stop(r, true);
      return begin(identity, name, size).ready;
    },
    position: recordings.position,
    positionByName: recordings.positionByName,
    pending(identity, pane) {
      const r = bySessionId.get(identity.sessionId);
      if (!r || !sameSession(r.identity, identity)) return '';
      return [...r.panes.values()]
        .filter((p) => pane === undefined || p.paneId === pane)
        .map((p) => {
          // The held lines, then the cursor's line judged on its own (a throwaway redactor:
          // the line may still change, so it never enters the pane's stream).
          const current = createTranscriptLineRedactor();
          current.push(p.partial);
          return [p.redactor.pending(), current.pending()].filter((t) => t !== '').join('\n');
        })
        .filter((p) => p !== '')
        .join('\n');
    },
    recording: recordings.recording,
    start() {
      if (!enabled || closed || timer !== undefined) return;
      timer = setInterval(() => {
        pass ??= lookAll().finally(() => {
          pass = null;
        });
      }, NODE_LOOK_MS);
      timer.unref();
    },
    lookNow: () => (pass ??= lookAll().finally(() => {
      pass = null;
    })),
    async close() {
      closed = true;
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      await pass?.catch(() => undefined);
      for (const r of [...bySessionId.values()]) {
        await r.busy;
        stop(r, false);
      }
    },
  };
}
