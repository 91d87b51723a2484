/**
 * Transcript storage: one directory per recorded session identity under
 * `<state dir>/transcripts/`, holding `meta.json` and asciicast v2 segment files
 * (`<first offset, 16 digits>.cast`: a header line, then one `[seconds, "o", text]` event
 * per redacted line). Only redacted text reaches this module (policy/transcript-redaction.ts).
 *
 * Offsets: every event has a byte offset in the session's whole event stream (header
 * lines not counted), monotonic for the session's life: the segment's first offset plus
 * the event's position after the header. They stay valid when older segments are
 * dropped (a reader that falls behind is told how much it lost) and when the broker
 * restarts (a new segment continues at the end). Cursors (transcripts/cursor.ts) carry one.
 *
 * Panes: the lines of every pane of the session share the stream. A marker event
 * `[t, "m", "pane %3"]` says whose lines follow; it is written when the pane changes and at
 * the start of every segment, so each segment says whose its lines are and a reader from any
 * offset knows them (a player shows the markers as chapters). Lines recorded before markers
 * existed belong to no pane: a read of one pane leaves them out.
 *
 * Files are 0600 and directories 0700: the text is redacted, but it is still terminal
 * output of the operator's sessions.
 */
import { closeSync, existsSync, fstatSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionIdentity } from '../../policy/identity.js';

export const TRANSCRIPTS_DIR = 'transcripts';
const META = 'meta.json';
const SEGMENT_RE = /^(\d{16})\.cast$/;
const DIR_RE = /^(\d{1,10})-(\d{1,10})-(\d{1,12})$/;

export interface TranscriptMeta {
  readonly version: 1;
  name: string;
  readonly serverPid: number;
  readonly sessionId: string;
  readonly created: number;
  /** ms since the epoch: time 0 of every event of this session. */
  readonly startedAt: number;
  width: number;
  height: number;
  /** ms since the epoch when recording ended because the session did; null while it
   * may still be alive. */
  endedAt: number | null;
}

export interface TranscriptEvent {
  /** Offset of this event; the next one starts at `end`. */
  readonly offset: number;
  readonly end: number;
  readonly seconds: number;
  /** The redacted line, without its line ending ('' for a gap). */
  readonly text: string;
  /** A GAP_MARKER: output before it and after it are not contiguous (for every pane). */
  readonly gap?: true;
  /** A gap left by transcript writes that failed (a full disk): from when (seconds, like
   * `seconds`) and how many lines were lost. Absent for other gaps. */
  readonly writeFailed?: { readonly fromSeconds: number; readonly lines: number };
  /** The pane (`%3`) that printed the line, when a pane marker said so. */
  readonly pane?: string;
  /** A line of a snapshot (between SNAPSHOT_MARKER and SNAPSHOT_END_MARKER): what the
   * pane showed when recording of it began, not output seen as it was printed. */
  readonly snapshot?: true;
}

/** The label of the asciicast marker event (`[t, "m", label]`) written where recording
 * resumed on a transcript that has output already: whatever the pane printed in between
 * (the broker was not running, the session was not readable) was never recorded. */
export const GAP_MARKER = 'unrecorded';

/** The label of the gap marker written once transcript writes work again after failing
 * (a full disk, an I/O error): `unrecorded write_failed <from seconds> <lines lost>`. The
 * event's own time is when writing resumed, so the marker carries the whole span. */
const WRITE_FAILED_GAP_RE = /^unrecorded write_failed (\d{1,12}(?:\.\d{1,3})?) (\d{1,12})$/;
const writeFailedGap = (fromSeconds: number, lines: number) => `${GAP_MARKER} write_failed ${fromSeconds} ${lines}`;

/** Marker events around a snapshot: the lines between them are the pane's screen (and
 * scrollback, as far as the read policy allows) when recording of it began, so a session
 * that printed before the broker started, or before it became readable, is still
 * replayed as it looked. Written in one write, so a snapshot never spans two segments. */
export const SNAPSHOT_MARKER = 'snapshot';
export const SNAPSHOT_END_MARKER = 'snapshot-end';

/** The label of a pane marker: the lines after it are pane `%N`'s. */
const PANE_MARKER_RE = /^pane (%\d{1,9})$/;
const paneMarker = (paneId: string) => `pane ${paneId}`;
/** A pane marker event's line as written (`[1.5,"m","pane %3"]`). */
const PANE_MARKER_EVENT_RE = /^\[[0-9.e+-]+,"m","pane (%\d{1,9})"\]$/;

/** Whether an event belongs to a read of `pane` (every event when no pane is asked for;
 * gaps concern every pane). */
export const ofPane = (e: TranscriptEvent, pane: string | undefined) => pane === undefined || e.gap === true || e.pane === pane;

interface Segment {
  readonly start: number;
  readonly path: string;
}

/** Where a node's transcripts live, beside this host's and never among them: a node's
 * tmux server pid may equal a local one, so the directory name alone (pid, session,
 * created) could collide. This host's store lists only its own directory's entries. */
export const NODES_DIR = 'nodes';

/** `node`: the root of that node's transcripts (`transcripts/nodes/<node>`). */
export const transcriptsRoot = (stateDir: string, node?: string) => (node === undefined ? join(stateDir, TRANSCRIPTS_DIR) : join(stateDir, TRANSCRIPTS_DIR, NODES_DIR, node));

/** `12345-3-1700000000` for server pid 12345, session `$3`, created 1700000000. */
export function dirNameOf(id: SessionIdentity): string {
  return `${id.serverPid}-${id.sessionId.replace(/^\$/, '')}-${id.created}`;
}

function ensureDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o700 });
}

function writeFileAtomic(path: string, text: string): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, path);
}

/** The names in `dir`; none when it does not exist (yet, or any more). */
function namesIn(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function segmentsOf(dir: string): Segment[] {
  return namesIn(dir)
    .map((n) => SEGMENT_RE.exec(n))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ start: Number(m[1]), path: join(dir, m[0]) }))
    .sort((a, b) => a.start - b.start);
}

const headerLengthOf = (buf: Buffer) => buf.indexOf(0x0a) + 1;

/** Bytes of events in a segment file (its size without the header line); 0 when the
 * file is gone (deleted by the total cap meanwhile). */
function eventBytesOf(path: string): number {
  let buf: Buffer;
  try {
    buf = readFileSync(path);
  } catch {
    return 0;
  }
  return buf.length - headerLengthOf(buf);
}

/** Bytes of every file in `dir` (0 when it is gone). */
function bytesIn(dir: string): number {
  let total = 0;
  for (const name of namesIn(dir)) {
    try {
      total += statSync(join(dir, name)).size;
    } catch {
      // removed meanwhile
    }
  }
  return total;
}

export interface TranscriptStore {
  readonly root: string;
  /** Every recorded identity's meta, newest first. */
  list(): { dir: string; meta: TranscriptMeta }[];
  meta(id: SessionIdentity): TranscriptMeta | null;
  writeMeta(meta: TranscriptMeta): void;
  /** Opens the session's stream for appending (creates the directory); the writer
   * continues at the end of what is stored. */
  openWriter(meta: TranscriptMeta, limits: { segmentBytes: number; maxBytes: number }): TranscriptWriter;
  /** First retained offset and end offset; null when nothing is stored. */
  range(id: SessionIdentity): { first: number; end: number } | null;
  /** Events from `offset` (an event boundary) to the end. */
  eventsFrom(id: SessionIdentity, offset: number): TranscriptEvent[];
  /** The texts of the last `count` output events (fewer when there are not as many), of
   * one pane when `pane` is given. */
  lastLines(id: SessionIdentity, count: number, pane?: string): string[];
  /** Whether `offset` is the start of an event, or the end of the stream. */
  isBoundary(id: SessionIdentity, offset: number): boolean;
  /** The header line of the oldest retained segment and every event line after it (its
   * pane markers only when more than one pane printed: a one-pane cast stays plain); with
   * `pane`, that pane's output events and the gap markers only. */
  castText(id: SessionIdentity, pane?: string): { header: string; events: string[] } | null;
  /** Deletes transcripts whose session ended (or was last written) before `cutoffMs`,
   * except identities in `keep`. */
  prune(cutoffMs: number, keep: ReadonlySet<string>): number;
  /** How many transcripts are stored and their bytes on disk. */
  usage(): { transcripts: number; bytes: number };
  /** Brings the bytes on disk to at most `maxBytes`: whole transcripts not in `live`
   * (sessions that ended), oldest first, then the oldest segments of live ones (never a
   * transcript's newest segment). Returns the usage after. */
  trimTo(maxBytes: number, live: ReadonlySet<string>): { transcripts: number; bytes: number };
}

export interface TranscriptWriter {
  /** Offset after the last event written. */
  end(): number;
  /** Appends one event per line of pane `pane` (`%3`); rotates and enforces the
   * per-session cap. */
  append(lines: readonly string[], atMs: number, pane: string): void;
  /** Appends a snapshot of pane `pane`: SNAPSHOT_MARKER, one event per line,
   * SNAPSHOT_END_MARKER, in one write (nothing for no lines). */
  appendSnapshot(lines: readonly string[], atMs: number, pane: string): void;
  /** Appends a GAP_MARKER event. `evenFirst` false (resuming a recording): nothing when the
   * stream is empty, since nothing was recorded before it to be discontinuous with. True
   * (output dropped): always, since a cursor taken at offset 0 before the first line must
   * still be told that output was lost after it. */
  markGap(atMs: number, evenFirst?: boolean): void;
  /** While writes fail: since when (ms since the epoch) and how many lines were not
   * written. The next write that succeeds first writes the `write_failed` gap marker with
   * that span, and this is null again. */
  failing(): { sinceMs: number; lines: number } | null;
  close(): void;
}

/** `node`: a node's transcripts (a store of their own, see NODES_DIR); none: this host's. */
export function openTranscriptStore(stateDir: string, node?: string): TranscriptStore {
  const root = transcriptsRoot(stateDir, node);
  const dirOf = (id: SessionIdentity) => join(root, dirNameOf(id));

  function readMeta(dir: string): TranscriptMeta | null {
    try {
      const m = JSON.parse(readFileSync(join(dir, META), 'utf8')) as TranscriptMeta;
      return m.version === 1 && typeof m.name === 'string' && typeof m.sessionId === 'string' ? m : null;
    } catch {
      return null;
    }
  }

  function range(id: SessionIdentity): { first: number; end: number } | null {
    const segs = segmentsOf(dirOf(id));
    const last = segs.at(-1);
    if (!last) return null;
    return { first: segs[0]!.start, end: last.start + eventBytesOf(last.path) };
  }

  /** A segment's events from offset `from`. Every line is parsed (a snapshot's markers
   * before `from` still say which lines after it are the snapshot's). */
  function parseEvents(buf: Buffer, base: number, from: number): TranscriptEvent[] {
    const out: TranscriptEvent[] = [];
    let pos = headerLengthOf(buf);
    let inSnapshot = false;
    let pane: string | undefined;
    while (pos < buf.length) {
      const nl = buf.indexOf(0x0a, pos);
      const stop = nl === -1 ? buf.length : nl + 1;
      const offset = base + pos - headerLengthOf(buf);
      const end = base + stop - headerLengthOf(buf);
      if (nl !== -1) {
        try {
          const ev = JSON.parse(buf.toString('utf8', pos, nl)) as [number, string, string];
          if (Array.isArray(ev) && typeof ev[0] === 'number' && typeof ev[2] === 'string') {
            if (ev[1] === 'o' && offset >= from) {
              out.push({ offset, end, seconds: ev[0], text: ev[2].replace(/\r?\n$/, ''), ...(inSnapshot && { snapshot: true as const }), ...(pane !== undefined && { pane }) });
            } else if (ev[1] === 'm' && ev[2] === GAP_MARKER && offset >= from) {
              out.push({ offset, end, seconds: ev[0], text: '', gap: true });
            } else if (ev[1] === 'm' && WRITE_FAILED_GAP_RE.test(ev[2]) && offset >= from) {
              const [, fromSeconds, lines] = WRITE_FAILED_GAP_RE.exec(ev[2])!;
              out.push({ offset, end, seconds: ev[0], text: '', gap: true, writeFailed: { fromSeconds: Number(fromSeconds), lines: Number(lines) } });
            } else if (ev[1] === 'm' && PANE_MARKER_RE.test(ev[2])) {
              pane = PANE_MARKER_RE.exec(ev[2])![1];
            } else if (ev[1] === 'm') {
              inSnapshot = ev[2] === SNAPSHOT_MARKER ? true : ev[2] === SNAPSHOT_END_MARKER ? false : inSnapshot;
            }
          }
        } catch {
          // A line cut by a crash mid-write: skipped.
        }
      }
      pos = stop;
    }
    return out;
  }

  return {
    root,
    list() {
      return namesIn(root)
        .filter((n) => DIR_RE.test(n))
        .map((dir) => ({ dir, meta: readMeta(join(root, dir)) }))
        .filter((e): e is { dir: string; meta: TranscriptMeta } => e.meta !== null)
        .sort((a, b) => (b.meta.endedAt ?? b.meta.startedAt) - (a.meta.endedAt ?? a.meta.startedAt));
    },
    meta: (id) => readMeta(dirOf(id)),
    writeMeta(meta) {
      mkdirSync(root, { recursive: true, mode: 0o700 });
      ensureDir(dirOf(meta));
      writeFileAtomic(join(dirOf(meta), META), JSON.stringify(meta));
    },
    range,
    eventsFrom(id, offset) {
      const segs = segmentsOf(dirOf(id));
      const out: TranscriptEvent[] = [];
      segs.forEach((seg, i) => {
        const next = segs[i + 1];
        if (next !== undefined && next.start <= offset) return;
        out.push(...parseEvents(readFileSync(seg.path), seg.start, offset));
      });
      return out;
    },
    lastLines(id, count, pane) {
      const lines: string[] = [];
      const segs = segmentsOf(dirOf(id));
      for (let i = segs.length - 1; i >= 0 && lines.length < count; i -= 1) {
        let buf: Buffer;
        try {
          buf = readFileSync(segs[i]!.path);
        } catch {
          continue;
        }
        const texts = parseEvents(buf, segs[i]!.start, 0).flatMap((e) => (e.gap || !ofPane(e, pane) ? [] : [e.text]));
        lines.unshift(...texts.slice(-(count - lines.length)));
      }
      return lines.slice(-count);
    },
    isBoundary(id, offset) {
      const r = range(id);
      if (r === null) return offset === 0;
      if (offset === r.end || offset === r.first) return true;
      if (offset < r.first || offset > r.end) return false;
      const segs = segmentsOf(dirOf(id));
      const seg = [...segs].reverse().find((s) => s.start <= offset)!;
      if (seg.start === offset) return true;
      const buf = readFileSync(seg.path);
      const pos = headerLengthOf(buf) + (offset - seg.start);
      return pos <= buf.length && buf[pos - 1] === 0x0a;
    },
    castText(id, pane) {
      const segs = segmentsOf(dirOf(id));
      if (segs.length === 0) return null;
      let header = '';
      const events: string[] = [];
      for (const seg of segs) {
        const text = readFileSync(seg.path, 'utf8');
        const nl = text.indexOf('\n');
        if (header === '') header = text.slice(0, nl);
        if (pane === undefined) {
          for (const l of text.slice(nl + 1).split('\n')) if (l !== '') events.push(l);
          continue;
        }
        // One pane: its output lines (in and out of snapshots) and the gaps, as written.
        for (const e of parseEvents(Buffer.from(text, 'utf8'), seg.start, 0)) {
          if (e.gap) events.push(JSON.stringify([e.seconds, 'm', e.writeFailed ? writeFailedGap(e.writeFailed.fromSeconds, e.writeFailed.lines) : GAP_MARKER]));
          else if (e.pane === pane) events.push(JSON.stringify([e.seconds, 'o', `${e.text}\r\n`]));
        }
      }
      if (pane !== undefined) return { header, events };
      const paneOf = (line: string) => (line.includes('"pane %') ? (PANE_MARKER_EVENT_RE.exec(line)?.[1] ?? null) : null);
      const panes = new Set(events.map(paneOf).filter((p): p is string => p !== null));
      return { header, events: panes.size > 1 ? events : events.filter((l) => paneOf(l) === null) };
    },
    usage() {
      const dirs = namesIn(root).filter((n) => DIR_RE.test(n));
      return { transcripts: dirs.length, bytes: dirs.reduce((n, d) => n + bytesIn(join(root, d)), 0) };
    },
    trimTo(maxBytes, live) {
      let bytes = this.usage().bytes;
      // Sessions that ended first, the longest gone first.
      for (const { dir } of [...this.list()].reverse()) {
        if (bytes <= maxBytes) break;
        if (live.has(dir)) continue;
        bytes -= bytesIn(join(root, dir));
        rmSync(join(root, dir), { recursive: true, force: true });
      }
      // Then the oldest segments of live transcripts (each keeps its newest).
      const older = [...live]
        .flatMap((dir) => segmentsOf(join(root, dir)).slice(0, -1))
        .map((seg) => ({ seg, mtime: statSync(seg.path, { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
        .sort((a, b) => a.mtime - b.mtime);
      for (const { seg } of older) {
        if (bytes <= maxBytes) break;
        bytes -= statSync(seg.path, { throwIfNoEntry: false })?.size ?? 0;
        rmSync(seg.path, { force: true });
      }
      return this.usage();
    },
    prune(cutoffMs, keep) {
      let removed = 0;
      for (const { dir, meta } of this.list()) {
        if (keep.has(dir)) continue;
        const segs = segmentsOf(join(root, dir));
        const lastWrite = segs.length > 0 ? statSync(segs.at(-1)!.path).mtimeMs : meta.startedAt;
        if ((meta.endedAt ?? lastWrite) < cutoffMs) {
          rmSync(join(root, dir), { recursive: true, force: true });
          removed += 1;
        }
      }
      return removed;
    },
    openWriter(meta, limits) {
      const dir = dirOf(meta);
      if (!existsSync(join(dir, META))) this.writeMeta(meta);
      let segs = segmentsOf(dir);
      let end = range(meta)?.end ?? 0;
      let fd: number | null = null;
      let segmentBytes = 0;
      let lastSeconds = 0;
      /** The pane whose lines the open segment ends with (null: none said yet). */
      let lastPane: string | null = null;
      /** Writes failed since then, losing this many lines: marked by the next write. */
      let failed: { sinceMs: number; fromSeconds: number; lines: number } | null = null;

      function header(): string {
        return `${JSON.stringify({ version: 2, width: meta.width, height: meta.height, timestamp: Math.floor(meta.startedAt / 1000), title: meta.name, env: { TERM: 'xterm-256color' } })}\n`;
      }

      function startSegment(): void {
        const path = join(dir, `${String(end).padStart(16, '0')}.cast`);
        fd = openSync(path, 'a', 0o600);
        // A segment reopened after a restart already has its header.
        if (fstatSync(fd).size === 0) writeSync(fd, header());
        segmentBytes = eventBytesOf(path);
        segs = segmentsOf(dir);
      }

      function enforceCap(): void {
        // Read again: the total cap (trimTo) may have removed segments meanwhile.
        segs = segmentsOf(dir);
        let total = segs.reduce((n, s, i) => n + (i === segs.length - 1 ? segmentBytes : eventBytesOf(s.path)), 0);
        while (segs.length > 1 && total > limits.maxBytes) {
          const oldest = segs.shift()!;
          total -= eventBytesOf(oldest.path);
          rmSync(oldest.path, { force: true });
        }
      }

      return {
        end: () => end,
        append(lines, atMs, pane) {
          if (lines.length === 0) return;
          const t = secondsAt(atMs);
          writeEvents([...paneSaid(t, pane), ...lines.map((l) => [t, 'o', `${l}\r\n`] as const)], pane, lines.length, atMs);
        },
        appendSnapshot(lines, atMs, pane) {
          if (lines.length === 0) return;
          const t = secondsAt(atMs);
          writeEvents([...paneSaid(t, pane), [t, 'm', SNAPSHOT_MARKER], ...lines.map((l) => [t, 'o', `${l}\r\n`] as const), [t, 'm', SNAPSHOT_END_MARKER]], pane, lines.length, atMs);
        },
        markGap(atMs, evenFirst = false) {
          if (end > 0 || evenFirst) writeEvents([[secondsAt(atMs), 'm', GAP_MARKER]], undefined, 0, atMs);
        },
        failing: () => (failed === null ? null : { sinceMs: failed.sinceMs, lines: failed.lines }),
        close() {
          if (fd !== null) closeSync(fd);
          fd = null;
        },
      };

      function secondsAt(atMs: number): number {
        lastSeconds = Math.max(lastSeconds, Math.round(Math.max(0, atMs - meta.startedAt)) / 1000);
        return lastSeconds;
      }

      /** The pane marker to write before `pane`'s lines: none when the open segment
       * already ends with its lines. */
      function paneSaid(t: number, pane: string): (readonly [number, string, string])[] {
        return fd !== null && lastPane === pane ? [] : [[t, 'm', paneMarker(pane)]];
      }

      /**
       * Writes `events` (after the pending write_failed gap marker, if writes failed
       * before) all or nothing: a failed or short write (ENOSPC mid-buffer) is cut back
       * off the file, so offsets stay exact and no half line is left, and the lines are
       * counted as lost until a write succeeds again. Rethrows for the caller to log.
       */
      function writeEvents(events: readonly (readonly [number, string, string])[], pane: string | undefined, lineCount: number, atMs: number): void {
        const t = events[0]![0];
        // A pane marker is written again after a failure: the segment may end elsewhere.
        const withGap = failed === null ? events : [[t, 'm', writeFailedGap(failed.fromSeconds, failed.lines)] as const, ...(pane !== undefined && events[0]![2] !== paneMarker(pane) ? [[t, 'm', paneMarker(pane)] as const] : []), ...events];
        const bytes = Buffer.from(withGap.map((e) => `${JSON.stringify(e)}\n`).join(''), 'utf8');
        let sizeBefore = -1;
        try {
          if (fd === null) {
            startSegment();
            lastPane = null;
          }
          sizeBefore = fstatSync(fd!).size;
          const written = writeSync(fd!, bytes);
          if (written !== bytes.length) throw Object.assign(new Error(`short transcript write (${written} of ${bytes.length} bytes)`), { code: 'ENOSPC' });
        } catch (err) {
          if (fd !== null && sizeBefore >= 0) {
            try {
              ftruncateSync(fd, sizeBefore);
            } catch {
              // Shrinking needs no space; if even that fails the reader skips the cut line.
            }
          }
          failed ??= { sinceMs: atMs, fromSeconds: t, lines: 0 };
          failed.lines += lineCount;
          throw err;
        }
        failed = null;
        if (pane !== undefined) lastPane = pane;
        end += bytes.length;
        segmentBytes += bytes.length;
        if (segmentBytes >= limits.segmentBytes) {
          closeSync(fd!);
          fd = null;
          segs = segmentsOf(dir);
          enforceCap();
        }
      }
    },
  };
}
