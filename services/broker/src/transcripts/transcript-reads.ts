/**
 * Reads served from transcripts (docs/transcripts.md): the cursor every content read
 * returns, output since a cursor, DEAD sessions' tail and capture, and asciicast export.
 * Access is THE gate's: a live session through `access.readable` (SESSION_NOT_FOUND with
 * close matches, SESSION_NOT_ALLOWED); a gone one by the same read rule on its recorded
 * name (only readable sessions were recorded at all). A live session of a name always
 * wins over a dead one.
 *
 * Panes: a transcript holds every pane's lines, each marked with its pane
 * (effects/transcripts/transcript-files.ts). A read of one pane (`pane`, or a cursor
 * that a read of one pane returned) gets that pane's lines only; a gone session's pane is
 * named by its id, since no listing can resolve `window.pane` for it any more.
 */
import { AppError, readAppErrorData, TRANSCRIPT_LIMITS, type BatchInspectItem, type DeadSession, type ExportTranscriptOutput, type PaneText, type ReadSinceInput, type ReadSinceOutput } from '@terminal-mcp/contract';
import type { AccessGate } from '../access/gate.js';
import type { ReadableTarget } from '../access/target.js';
import type { BrokerConfig } from '../config/schema.js';
import type { RecordingPosition, TranscriptRecorder } from '../effects/transcripts/recorder.js';
import { ofPane, type TranscriptMeta } from '../effects/transcripts/transcript-files.js';
import type { ListedSession, TmuxAdapter } from '../effects/tmux/types.js';
import { sameSession, sessionIdentityOf, type SessionIdentity } from '../policy/identity.js';
import { REDACTION_MARKER } from '../policy/redact.js';
import { badCursor, decodeCursor, encodeCursor, type OutputCursor } from './cursor.js';

/** What reads need of a recorder: this host's pipe recorder, or a node's polling one
 * (effects/transcripts/node-recorder.ts), each over its own store. */
export type TranscriptSource = Pick<TranscriptRecorder, 'store' | 'ensure' | 'position' | 'positionByName' | 'pending' | 'recording'>;

export interface TranscriptReadDeps {
  config: BrokerConfig;
  tmux: Pick<TmuxAdapter, 'listSessions'>;
  access: AccessGate;
  transcripts: TranscriptSource;
  /** The node these sessions are on (nodes/node-set.ts); absent: this host. Every cursor
   * names it, and a cursor of another host is refused like one of another session. */
  node?: string | undefined;
}

const REDACTION = REDACTION_MARKER;
const countRedactions = (text: string) => text.match(REDACTION)?.length ?? 0;

const deadHint = 'The session is gone (DEAD); its transcript is readable: call again with include_dead: true (terminal_list_sessions include_dead=true lists gone sessions).';
const noTranscripts = () => new AppError('READ_DISABLED', 'transcripts are not recorded on this host', 'The operator sets transcripts.enabled: true in config.yaml and restarts the broker; meanwhile read with terminal_tail.');

interface DeadTranscript {
  readonly identity: SessionIdentity;
  readonly meta: TranscriptMeta;
}

/** The newest transcript recorded under `name` whose session is not live (optionally: of
 * exactly `identity`), or null. */
async function findDead(deps: TranscriptReadDeps, name: string, identity?: SessionIdentity): Promise<DeadTranscript | null> {
  const store = deps.transcripts.store;
  const candidates = store.list().filter((e) => e.meta.name === name && (identity === undefined || sameSession(e.meta, identity)));
  if (candidates.length === 0) return null;
  const live = await deps.tmux.listSessions();
  const found = candidates.find((e) => !live.some((s) => sameSession(s, e.meta)));
  return found ? { identity: sessionIdentityOf(found.meta), meta: found.meta } : null;
}


/** The read rule on a dead session's recorded name, as an error. */
function assertDeadReadable(deps: TranscriptReadDeps, dead: DeadTranscript): void {
  if (!deps.config.permissions.terminal_read) throw new AppError('READ_DISABLED', 'reading terminals is turned off');
  if (!deps.access.canReadGone(dead.meta.name, dead.identity)) throw new AppError('SESSION_NOT_ALLOWED', 'access to this session is denied');
}

const isNotFound = (err: unknown) => readAppErrorData(err)?.code === 'SESSION_NOT_FOUND';

/** `live()` for a live session; for a gone one `dead()` with include_dead, else
 * SESSION_NOT_FOUND saying how to read it. */
async function liveOrDead<T>(deps: TranscriptReadDeps, name: string, includeDead: boolean, live: () => Promise<T>, dead: (d: DeadTranscript) => T): Promise<T> {
  try {
    return await live();
  } catch (err) {
    if (!isNotFound(err)) throw err;
    const found = await findDead(deps, name);
    if (found === null) throw err;
    if (!includeDead) throw new AppError('SESSION_NOT_FOUND', (err as Error).message, deadHint);
    assertDeadReadable(deps, found);
    return dead(found);
  }
}

/** Every stored line of a transcript (of one pane, when `pane` is given), oldest first,
 * with the end offset. */
function allLines(deps: TranscriptReadDeps, identity: SessionIdentity, pane?: string): { lines: string[]; end: number } {
  const store = deps.transcripts.store;
  const range = store.range(identity);
  if (range === null) return { lines: [], end: 0 };
  const events = store.eventsFrom(identity, range.first);
  return { lines: events.filter((e) => !e.gap && ofPane(e, pane)).map((e) => e.text), end: events.at(-1)?.end ?? range.first };
}

function deadText(dead: DeadTranscript, lines: string[], end: number, truncated: boolean, node: string | undefined, pane?: string): PaneText {
  const text = lines.join('\n');
  return {
    session: dead.meta.name,
    session_id: dead.meta.sessionId,
    pane_id: pane ?? '',
    text,
    line_count: lines.length,
    redactions: countRedactions(text),
    truncated,
    cursor: encodeCursor({ identity: dead.identity, offset: end, ...(pane !== undefined && { pane }), ...(node !== undefined && { node }) }),
    dead: true,
  };
}

/** A pane of a gone session: only its id names it (no listing resolves `window.pane`). */
function deadPane(pane: string | undefined): string | undefined {
  if (pane === undefined || /^%\d{1,9}$/.test(pane)) return pane;
  throw new AppError('INVALID_ARGUMENT', 'pane: a gone session\'s pane is named by its id', 'Pass the pane id (such as %3) that a read of that pane returned as pane_id, or leave pane out for every pane.');
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The registry's gone sessions, each marked when its transcript is kept, plus gone
 * sessions only a transcript remembers (created and ended between two reconciles), listed
 * as MISSING. Only transcripts the caller could read are added or marked.
 */
export function withDeadTranscripts(deps: TranscriptReadDeps, live: readonly ListedSession[], dead: readonly DeadSession[]): DeadSession[] {
  const gone = deps.transcripts.store
    .list()
    .filter((e) => !live.some((s) => sameSession(s, e.meta)))
    .filter((e) => deps.access.canReadGone(e.meta.name, e.meta));
  const key = (sessionId: string, created: number) => `${sessionId}\t${created}`;
  const ids = new Map(gone.map((e) => [key(e.meta.sessionId, e.meta.created), e.dir]));
  const marked = dead.map((d) => {
    const id = ids.get(key(d.session_id, Date.parse(d.created) / 1000));
    return id !== undefined ? { ...d, transcript_id: id } : d;
  });
  const known = new Set(dead.map((d) => key(d.session_id, Date.parse(d.created) / 1000)));
  const extra = gone
    .filter((e) => !known.has(key(e.meta.sessionId, e.meta.created)))
    .map(
      (e): DeadSession => ({
        name: e.meta.name,
        session_id: e.meta.sessionId,
        created: iso(e.meta.created * 1000),
        status: 'MISSING',
        first_seen: iso(e.meta.startedAt),
        last_seen: iso(e.meta.endedAt ?? e.meta.startedAt),
        status_changed_at: iso(e.meta.endedAt ?? e.meta.startedAt),
        conversation_id: null,
        notes: null,
        last_screen: null,
        last_screen_at: null,
        deleted_by: null,
        transcript_id: e.dir,
      }),
    );
  return [...marked, ...extra];
}

/** The dashboard's view or download of one transcript by id, under the same read rule. */
export function transcriptById(deps: TranscriptReadDeps, id: string, format: 'cast' | 'text'): { name: string; session_id: string; cast?: string; text?: string; truncated: boolean } {
  const found = deps.transcripts.store.list().find((e) => e.dir === id);
  if (!found) throw new AppError('SESSION_NOT_FOUND', 'no transcript has that id', 'Open the Gone sessions page again: the transcript may have been deleted by retention.');
  const dead = { identity: sessionIdentityOf(found.meta), meta: found.meta };
  assertDeadReadable(deps, dead);
  if (format === 'cast') {
    const stored = deps.transcripts.store.castText(dead.identity);
    const cast = stored ? [stored.header, ...stored.events].join('\n') + '\n' : '';
    return { name: found.meta.name, session_id: found.meta.sessionId, cast, truncated: false };
  }
  const all = linesWithWriteFailures(deps, dead.identity, found.meta.startedAt);
  const shown = all.slice(-TRANSCRIPT_LIMITS.maxReadSinceLines);
  return { name: found.meta.name, session_id: found.meta.sessionId, text: shown.join('\n'), truncated: shown.length < all.length };
}

/** Every output line, and where transcript writes failed (a full disk) a line saying so in
 * place, for the dashboard's view: a person reading a transcript must see that lines are
 * missing there, not text that runs on as if nothing were lost. */
function linesWithWriteFailures(deps: TranscriptReadDeps, identity: SessionIdentity, startedAt: number): string[] {
  const store = deps.transcripts.store;
  const range = store.range(identity);
  if (range === null) return [];
  const iso = (seconds: number) => new Date(startedAt + Math.round(seconds * 1000)).toISOString();
  return store.eventsFrom(identity, range.first).flatMap((e) => {
    if (e.writeFailed) return [`[terminal-mcp: ${e.writeFailed.lines} line(s) not recorded from ${iso(e.writeFailed.fromSeconds)} to ${iso(e.seconds)}: transcript writes failed (write_failed)]`];
    return e.gap ? [] : [e.text];
  });
}

export interface TranscriptReads {
  /** A live read with its cursor: the position is taken BEFORE the read when the session
   * is recorded already (output in between is returned again by read_since, never lost). */
  /** `read` gets the target the gate admitted to start the session's recording (a session
   * not recorded yet), else null: a read of that target asks the gate no second time. */
  withCursor(name: string, read: (admitted: ReadableTarget | null) => Promise<PaneText>, ofOnePane?: boolean): Promise<PaneText>;
  /** The same for a batch read (terminal_batch_inspect): every position is taken before
   * the read. `names` undefined (every readable session): the sessions recorded now are
   * covered; one recorded only after the read gets its cursor then (cursorOf). */
  withCursors(names: readonly string[] | undefined, read: () => Promise<BatchInspectItem[]>, ofEachPane?: boolean): Promise<BatchInspectItem[]>;
  cursorOf(result: PaneText): Promise<PaneText>;
  tail(name: string, lines: number, includeDead: boolean, live: () => Promise<PaneText>, pane?: string): Promise<PaneText>;
  capture(name: string, range: { start?: number | undefined; end?: number | undefined }, includeDead: boolean, live: () => Promise<PaneText>, pane?: string): Promise<PaneText>;
  readSince(input: ReadSinceInput): Promise<ReadSinceOutput>;
  exportCast(name: string, includeDead: boolean, maxBytes?: number, pane?: string): Promise<ExportTranscriptOutput>;
}

export function createTranscriptReads(deps: TranscriptReadDeps): TranscriptReads {
  const recorder = deps.transcripts;
  const node = deps.node;
  /** A cursor of this host's (or this node's) transcripts: it names the node. */
  const cursorText = (c: Omit<OutputCursor, 'node'>) => encodeCursor({ ...c, ...(node !== undefined && { node }) });

  /** The recording of the session a read just returned, started if needed. */
  async function positionFor(sessionId: string, name: string): Promise<RecordingPosition | null> {
    const known = recorder.positionByName(name);
    if (known && known.identity.sessionId === sessionId) return known;
    if (!deps.config.transcripts.enabled) return null;
    const target = await deps.access.readable(name).catch(() => null);
    return target !== null && target.identity.sessionId === sessionId ? recordingOf(target) : null;
  }

  /** `pane`: the cursor follows the pane that was read. */
  async function cursorOf(result: PaneText, pane?: string): Promise<PaneText> {
    if (result.dead || result.cursor !== undefined) return result;
    const pos = await positionFor(result.session_id, result.session);
    return pos ? { ...result, cursor: cursorText({ identity: pos.identity, offset: pos.offset, ...(pane !== undefined && { pane }) }) } : result;
  }

  /** Where the cursor of a read of `name` starts, taken BEFORE the read: the recording's
   * position now, the recording started first when there is none yet, so what the pane
   * prints between the read and the cursor is returned by read_since, never lost behind
   * it. Null when it cannot be recorded; a target the gate refuses is left to the read
   * itself, which answers with the same error. `admitted`: the target the gate admitted
   * to start the recording, handed to the read so the gate is asked once (issue 47). */
  async function positionBefore(name: string): Promise<{ position: RecordingPosition | null; admitted: ReadableTarget | null }> {
    const known = recorder.positionByName(name);
    if (known !== null || !deps.config.transcripts.enabled) return { position: known, admitted: null };
    const target = await deps.access.readable(name).catch(() => null);
    return target === null ? { position: null, admitted: null } : { position: await recordingOf(target), admitted: target };
  }

  /** `result` with the cursor taken before its read when that was of the same session;
   * otherwise (renamed or replaced meanwhile, not recorded) a cursor taken now. */
  async function withPosition(result: PaneText, before: RecordingPosition | null, ofOnePane = false): Promise<PaneText> {
    const pane = ofOnePane && result.pane_id !== '' ? result.pane_id : undefined;
    if (before !== null && before.identity.sessionId === result.session_id) return { ...result, cursor: cursorText({ identity: before.identity, offset: before.offset, ...(pane !== undefined && { pane }) }) };
    return cursorOf(result, pane);
  }

  /** The live target's recording, started if needed; null when it cannot be. */
  async function recordingOf(t: ReadableTarget) {
    return recorder.position(t.identity) ?? (await recorder.ensure(t.identity, t.sessionName, t.pane, deps.access));
  }

  /** The same, for a read that needs it. */
  async function liveRecording(t: ReadableTarget) {
    if (!deps.config.transcripts.enabled) throw noTranscripts();
    const pos = await recordingOf(t);
    if (pos === null) throw new AppError('TMUX_UNAVAILABLE', 'the session is not being recorded right now', 'Call terminal_tail for a fresh cursor and try again in a few seconds.');
    return pos;
  }

  function since(identity: SessionIdentity, name: string, offset: number, maxLines: number, dead: boolean, pane: string | undefined): ReadSinceOutput {
    const store = recorder.store;
    const range = store.range(identity) ?? { first: 0, end: 0 };
    if (offset > range.end || (offset >= range.first && !store.isBoundary(identity, offset))) throw badCursor('does not point into this session\'s transcript');
    const rotated = offset < range.first;
    const read = store.eventsFrom(identity, Math.max(offset, range.first));
    // A gap marker after the cursor: output the broker never recorded lies in between.
    const unrecorded = read.some((e) => e.gap === true);
    // Gaps left by failed writes (a full disk) say when and how much (transcript-files.ts).
    const startedAt = store.meta(identity)?.startedAt ?? 0;
    const iso = (seconds: number) => new Date(startedAt + Math.round(seconds * 1000)).toISOString();
    const writeFailed = read
      .flatMap((e) => (e.writeFailed ? [{ from: iso(e.writeFailed.fromSeconds), to: iso(e.seconds), lines: e.writeFailed.lines }] : []))
      .slice(-TRANSCRIPT_LIMITS.maxWriteFailedSpans);
    let events = read.filter((e) => e.gap !== true && ofPane(e, pane));
    const overflow = Math.max(0, events.length - maxLines);
    if (overflow > 0) events = events.slice(overflow);
    const text = events.map((e) => e.text).join('\n');
    const droppedReason = rotated ? ('rotated' as const) : writeFailed.length > 0 ? ('write_failed' as const) : unrecorded ? ('unrecorded' as const) : overflow > 0 ? ('max_lines' as const) : undefined;
    const pending = dead ? '' : recorder.pending(identity, pane);
    return {
      session: name,
      session_id: identity.sessionId,
      text,
      line_count: events.length,
      redactions: countRedactions(text) + countRedactions(pending),
      // Past every event read, gap markers and other panes' lines included (each gap is
      // reported once; a later read starts after them).
      cursor: cursorText({ identity, offset: read.at(-1)?.end ?? Math.max(offset, range.first), ...(pane !== undefined && { pane }) }),
      dropped: droppedReason !== undefined,
      ...(overflow > 0 && { dropped_lines: overflow }),
      ...(droppedReason !== undefined && { dropped_reason: droppedReason }),
      ...(writeFailed.length > 0 && { write_failed_spans: writeFailed }),
      ...(pending !== '' && { pending }),
      dead,
    };
  }

  function cast(identity: SessionIdentity, name: string, dead: boolean, maxBytes: number, pane: string | undefined): ExportTranscriptOutput {
    const stored = recorder.store.castText(identity, pane);
    const header = stored?.header ?? JSON.stringify({ version: 2, width: 80, height: 24, title: name });
    const events = stored?.events ?? [];
    let bytes = Buffer.byteLength(header) + 1;
    let from = events.length;
    while (from > 0 && bytes + Buffer.byteLength(events[from - 1]!) + 1 <= maxBytes) {
      from -= 1;
      bytes += Buffer.byteLength(events[from]!) + 1;
    }
    const kept = events.slice(from);
    return { session: name, session_id: identity.sessionId, cast: [header, ...kept].join('\n') + '\n', events: kept.length, truncated: from > 0, dead };
  }

  return {
    async withCursor(name, read, ofOnePane) {
      const before = await positionBefore(name);
      return withPosition(await read(before.admitted), before.position, ofOnePane);
    },
    async withCursors(names, read, ofEachPane) {
      // Every recorded session's position now (memory only, no tmux call), then the named
      // sessions not recorded yet, started before the read as for one tail.
      const before = new Map<string, RecordingPosition>();
      for (const identity of recorder.recording()) {
        const pos = recorder.position(identity);
        if (pos !== null) before.set(identity.sessionId, pos);
      }
      for (const { position: pos } of await Promise.all((names ?? []).map(positionBefore))) if (pos !== null) before.set(pos.identity.sessionId, pos);
      const items = await read();
      return Promise.all(items.map(async (r) => (r.ok ? { ...r, tail: await withPosition(r.tail, before.get(r.tail.session_id) ?? null, ofEachPane) } : r)));
    },
    cursorOf,

    tail(name, lines, includeDead, live, pane) {
      return liveOrDead(deps, name, includeDead, live, (dead) => {
        const count = Math.min(lines, deps.config.max_capture_lines);
        const all = allLines(deps, dead.identity, deadPane(pane));
        return deadText(dead, all.lines.slice(-count), all.end, all.lines.length > count && lines > count, node, pane);
      });
    },

    capture(name, range, includeDead, live, pane) {
      return liveOrDead(deps, name, includeDead, live, (dead) => {
        const all = allLines(deps, dead.identity, deadPane(pane));
        // The last `height` lines are the "screen": row 0 is its top, negative rows reach back.
        const top = Math.max(0, all.lines.length - Math.max(1, dead.meta.height));
        const end = range.end ?? Math.max(0, all.lines.length - 1 - top);
        let start = range.start ?? end - deps.config.max_capture_lines + 1;
        let truncated = false;
        if (end - start + 1 > deps.config.max_capture_lines) {
          start = end - deps.config.max_capture_lines + 1;
          truncated = true;
        }
        const lines = all.lines.slice(Math.max(0, top + start), Math.max(0, top + end + 1));
        return deadText(dead, lines, all.end, truncated, node, pane);
      });
    },

    async readSince(input) {
      if (!deps.config.transcripts.enabled) throw noTranscripts();
      const cursor = decodeCursor(input.cursor);
      // A node's session may have this host's identity numbers (or another node's): the
      // cursor's host must be this one before anything else is compared.
      if (cursor.node !== node) throw badCursor('belongs to another session');
      const maxLines = input.max_lines ?? TRANSCRIPT_LIMITS.defaultReadSinceLines;
      const includeDead = input.include_dead === true;
      let target: ReadableTarget | null = null;
      try {
        target = await deps.access.readable(input.session);
      } catch (err) {
        if (!isNotFound(err)) throw err;
        // A gone session: its transcript, when include_dead says so.
        const dead = await findDead(deps, input.session, cursor.identity);
        if (dead === null) throw err;
        if (!includeDead) throw new AppError('SESSION_NOT_FOUND', (err as Error).message, deadHint);
        assertDeadReadable(deps, dead);
        return since(dead.identity, dead.meta.name, cursor.offset, maxLines, true, deadPane(input.pane) ?? cursor.pane);
      }
      if (sameSession(target.identity, cursor.identity)) {
        await liveRecording(target);
        // `pane` names a pane of the live session now; without it, the cursor's pane.
        const pane = input.pane !== undefined ? (await deps.access.readable(input.session, undefined, input.pane)).pane.paneId : cursor.pane;
        return since(cursor.identity, target.sessionName, cursor.offset, maxLines, false, pane);
      }
      // The name has a new live session; the cursor may be an earlier, gone one's.
      const dead = await findDead(deps, input.session, cursor.identity);
      if (dead === null) throw badCursor('belongs to another session');
      if (!includeDead) throw badCursor('belongs to an earlier session of this name, which is gone (DEAD): pass include_dead: true to read it');
      assertDeadReadable(deps, dead);
      return since(dead.identity, dead.meta.name, cursor.offset, maxLines, true, deadPane(input.pane) ?? cursor.pane);
    },

    exportCast(name, includeDead, maxBytes = TRANSCRIPT_LIMITS.exportBytes, pane) {
      if (!deps.config.transcripts.enabled) throw noTranscripts();
      return liveOrDead(
        deps,
        name,
        includeDead,
        async () => {
          const t = await deps.access.readable(name, undefined, pane);
          await liveRecording(t);
          return cast(t.identity, t.sessionName, false, maxBytes, pane === undefined ? undefined : t.pane.paneId);
        },
        (dead) => cast(dead.identity, dead.meta.name, true, maxBytes, deadPane(pane)),
      );
    },
  };
}
