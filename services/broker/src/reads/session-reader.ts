/**
 * The read path, and THE only module that reads pane content or a pane's identity from
 * tmux (eslint.config.js's reader zone and test/src/architecture.test.ts hold every other
 * module to that): discovery for every session (metadata only — discovery is not
 * access), and content (tail, capture, status, batch inspect, live frames, waits, the
 * supervisor's looks) only for targets the access gate admits. Facts are re-read from
 * tmux on every call; nothing a client says about a session is trusted.
 */
import {
  AppError,
  LIMITS,
  readAppErrorData,
  type BatchInspectItem,
  type ListPanesOutput,
  type PaneText,
  type SessionStatusResult,
  type StatusResult,
  type SessionSummary,
} from '@terminal-mcp/contract';
import type { AccessGate } from '../access/gate.js';
import { assertSameSession, type ReadableTarget, type TargetRef } from '../access/target.js';
import type { ReadAuditRecorder } from '../audit/read-audit.js';
import { readRecord, type ReadFacts } from '../audit/record-read.js';
import type { BrokerConfig } from '../config/schema.js';
import type { ListedSession, PaneFacts, TmuxAdapter, WindowPaneFacts } from '../effects/tmux/types.js';
import { sameSession, sessionIdentityOf, type SessionIdentity } from '../policy/identity.js';
import { redactSecrets } from '../policy/redact.js';
import { stripTerminalControls } from '../policy/sanitize.js';
import type { PaneWindow } from '../policy/pane-window.js';
import { classifyPaneStatus } from '../policy/status.js';
import { hostTimeZone, mayShowUsageLimit, type UsageLimit } from '../policy/usage-limit.js';
import type { SessionAccessFields } from '../policy/session-access.js';
import { createDeliveryReads, type DeliveryReads, type IdentityReader } from './delivery-reads.js';
import type { CutMemo } from './cut-memo.js';
import { lastLines, readPaneLines, readPaneWindow, startEarlyCapture, toLines, type EarlyCapture } from './pane-text.js';

/** ISO text of a unix time (seconds). */
export type IsoOf = (unixSeconds: number) => string;
const isoOnce: IsoOf = (unixSeconds) => new Date(unixSeconds * 1000).toISOString();

/** ISO strings of recent unix times: a session list formats two per session per call, and
 * the same few (creation times, last output) again and again. Bounded: cleared when full.
 * Owned by THE reader (one per broker, built in createBroker's assembleDeps). */
export function createIsoMemo(max = 4096): IsoOf {
  const memo = new Map<number, string>();
  return (unixSeconds) => {
    let text = memo.get(unixSeconds);
    if (text === undefined) {
      if (memo.size >= max) memo.clear();
      text = isoOnce(unixSeconds);
      memo.set(unixSeconds, text);
    }
    return text;
  };
}

/** Sessions' discovery rows: metadata and the access flags, never content (the grants
 * of the whole listing read in one query). */
export function summarizeSessions(access: Pick<AccessGate, 'describeAll'>, sessions: readonly ListedSession[], iso: IsoOf = isoOnce): SessionSummary[] {
  const flags = access.describeAll(sessions);
  return sessions.map((s, i) => ({
    name: s.name,
    session_id: s.sessionId,
    created: iso(s.created),
    attached: s.attached,
    windows: s.windows,
    last_activity: iso(s.activity),
    current_command: s.activePane?.currentCommand ?? '',
    in_copy_mode: s.activePane?.inMode ?? false,
    ...(flags[i] as SessionAccessFields),
  }));
}

function paneText(t: ReadableTarget, lines: string[], redactions: number, truncated: boolean): PaneText {
  return {
    session: t.sessionName,
    session_id: t.identity.sessionId,
    pane_id: t.identity.paneId,
    text: lines.join('\n'),
    line_count: lines.length,
    redactions,
    truncated,
  };
}

/** Classifies the target's pane. Quiet time is measured from the window's last output
 * (`#{window_activity}`), not `#{session_activity}`, which every attaching client (our
 * output watchers included) bumps. */
export function statusOf(t: ReadableTarget, screenLines: readonly string[], now: number, iso: IsoOf = isoOnce, paneZone?: string): SessionStatusResult {
  return classifiedStatus(t, screenLines, now, iso, paneZone).status;
}

/** statusOf, and the usage limit behind it when there is one (the supervisor parks on it). */
export function classifiedStatus(t: ReadableTarget, screenLines: readonly string[], now: number, iso: IsoOf = isoOnce, paneZone?: string): { status: SessionStatusResult; limit: UsageLimit | undefined } {
  const lastOutput = t.pane.windowActivity;
  const idleSeconds = Math.max(0, Math.floor(now / 1000) - lastOutput);
  const verdict = classifyPaneStatus({
    lines: screenLines,
    currentCommand: t.currentCommand,
    inCopyMode: t.inCopyMode,
    idleSeconds,
    limitContext: { now, hostZone: hostTimeZone(), paneZone },
  });
  const limit = verdict.limit;
  const status: SessionStatusResult = {
    session: t.sessionName,
    session_id: t.identity.sessionId,
    status: verdict.status,
    reason: verdict.reason,
    current_command: t.currentCommand,
    in_copy_mode: t.inCopyMode,
    last_activity: iso(lastOutput),
    idle_seconds: idleSeconds,
  };
  return { status, limit };
}

/** Who a read is recorded for in the read audit: a socket's role and actor, or the
 * broker's own supervisor (`broker`, `broker:supervisor`). */
export interface ReadCallerId {
  role: string;
  actor: string;
}

/**
 * A read that spans many captures — a wait, a live stream, a supervisor watch. Each call
 * asks the access gate again (a revoked grant or a replaced session stops it at the next
 * capture). It is recorded in the read audit once when it first reads a pane, again only
 * when the pane it reads is another one, and once per refusal in a row; a stream of
 * frames is one read, not one row per frame.
 */
export interface ContinuedRead {
  /** The target through the gate, pinned as asked; no content is read. */
  target(): Promise<ReadableTarget>;
  /** The visible screen, redacted, as lines (what terminal_status classifies), and the
   * pane's TZ when this host can tell it and the screen may show a usage limit. */
  screen(): Promise<{ target: ReadableTarget; lines: string[]; paneZone?: string | undefined }>;
  /** The status of the visible screen, exactly as terminal_status computes it. */
  status(): Promise<{ target: ReadableTarget; status: SessionStatusResult }>;
  /** The visible screen with the rows above it that redaction needs, and the pane's
   * geometry and cursor read in the same tmux write (so the cursor belongs to the screen). */
  frame(): Promise<{ target: ReadableTarget; window: PaneWindow; facts: PaneFacts }>;
}

export interface FollowOptions {
  /** `'first'`: the session first read is pinned; a SessionIdentity: that one is. Every
   * later read of another session (same name, recreated; another server) is
   * IDENTITY_CHANGED. Absent: the name is followed to whatever session has it. */
  pin?: SessionIdentity | 'first';
}

/**
 * The one reader of pane content. Every read (named, bound, live frame, wait, batch,
 * input context, supervisor) first gets a target from the access gate, then reads it
 * here: the same capture, the same redaction, the same status. Reads that span many
 * captures (`follow`) are recorded in the read audit here; one-shot reads are recorded
 * by their procedure (rpc/procedures/sessions.ts), which also covers reads a transcript
 * answers.
 */
export interface SessionReader {
  /** `sessions`: a listing the caller just took (so one tmux call serves both it and the
   * summaries); omitted, the reader lists. */
  list(filter?: { nameContains?: string; readableOnly?: boolean }, sessions?: readonly ListedSession[]): Promise<SessionSummary[]>;
  /** `pane` (`%id` or `window.pane`): that pane of the session, else its active one. */
  tail(name: string, lines?: number, stripAnsi?: boolean, pane?: string): Promise<PaneText>;
  capture(name: string, range: { start?: number; end?: number }, stripAnsi?: boolean, pane?: string): Promise<PaneText>;
  status(name: string, pane?: string): Promise<SessionStatusResult>;
  /** The session's windows and panes (terminal_list_panes): metadata of a session the gate
   * admits for reading, window names redacted like pane text. */
  panes(name: string): Promise<ListPanesOutput>;
  /** `allPanes`: a row for every pane of each session (at most LIMITS.batchSessions rows),
   * not only its active pane. */
  batchInspect(names: readonly string[] | undefined, lines?: number, allPanes?: boolean): Promise<BatchInspectItem[]>;
  /** The last lines of a target the gate admitted (capped by config and LIMITS). */
  tailOf(target: ReadableTarget, lines?: number, stripAnsi?: boolean): Promise<PaneText>;
  /** The status of a target the gate admitted, from its visible screen. */
  /** terminal_status: the status, with limit_resets_at for an agent at its usage limit. */
  statusOf(target: ReadableTarget): Promise<StatusResult>;
  /** The gate's read check on a session or a binding's pinned pane, without reading
   * content (a watch being set up); throws the same errors as `tail`. */
  resolve(ref: TargetRef): Promise<ReadableTarget>;
  /** A read of `ref` that spans many captures, recorded for `caller` under `tool`. */
  follow(caller: ReadCallerId, tool: string, ref: TargetRef, options?: FollowOptions): ContinuedRead;
  /** The reads input delivery makes of a pane the input gate admitted (delivery-reads.ts). */
  readonly delivery: DeliveryReads;
  /** A transcript recorder's look at a session that polls (a node's:
   * effects/transcripts/node-recorder.ts): the gate admits `name`, pinned to `identity`
   * (IDENTITY_CHANGED otherwise), then the session's panes with their facts, and captures
   * of exactly those panes. The text is NOT redacted: it goes to the transcript's stream
   * redactor before anything is written, and never to a caller. Not audited per look
   * (recording is the broker's own work, as with pipes); reads of transcripts are. */
  recordingLook(name: string, identity: SessionIdentity): Promise<RecordingLook>;
}

/** See SessionReader.recordingLook. */
export interface RecordingLook {
  readonly panes: readonly WindowPaneFacts[];
  /** Rows `start`..`end` (wrapped lines joined) of one of `panes`, with its facts read in
   * the same write; null when the pane is gone. */
  capture(paneId: string, start: number, end: number): Promise<{ facts: PaneFacts; text: string } | null>;
}

export interface SessionReaderDeps {
  config: BrokerConfig;
  tmux: Pick<TmuxAdapter, 'listSessions' | 'capturePane' | 'capturePaneWithFacts' | 'paneHint' | 'paneFacts' | 'listPanes'>;
  access: AccessGate;
  /** Where continued reads are recorded (audit/read-audit.ts). */
  reads: Pick<ReadAuditRecorder, 'record'>;
  /** The identity read of the host's input delivery (this host's control client, or a
   * node's over ssh), behind `delivery.identity`. */
  identity: IdentityReader;
  /** The broker's memo of cut pane windows (reads/cut-memo.ts), one per broker, built by
   * the composition root: shared by every reader it builds. */
  cuts: CutMemo;
  now?: () => number;
  /** The TZ a pane's process was started with (effects/proc/process-time-zone.ts): this
   * host's reader only; a node's pane pids name another machine's processes. */
  paneTimeZone?: ((panePid: number) => string | undefined) | undefined;
}

export function createSessionReader(deps: SessionReaderDeps): SessionReader {
  const { config, tmux, access } = deps;
  const now = deps.now ?? Date.now;
  const iso = createIsoMemo();

  /** Rows `start`..`end` of the pane as whole logical lines, redacted before they are cut
   * (escapes kept only when not stripped). */
  const readPane = (t: ReadableTarget, start: number, end: number | '-', stripAnsi: boolean, early?: EarlyCapture) =>
    readPaneLines(deps.cuts, tmux, t.pane, start, end, stripAnsi, early);

  async function tailOf(t: ReadableTarget, lines = config.default_tail_lines, stripAnsi = true, early?: EarlyCapture): Promise<PaneText> {
    const count = Math.min(lines, config.max_capture_lines, LIMITS.maxTailLines);
    const clean = lastLines(await readPane(t, -count, '-', stripAnsi, early), count);
    return paneText(t, clean.lines, clean.redactions, lines > count);
  }

  /** The pane's TZ, looked up only when the screen may show a usage limit. */
  const zoneOf = (t: ReadableTarget, lines: readonly string[]) =>
    deps.paneTimeZone !== undefined && mayShowUsageLimit(lines) ? deps.paneTimeZone(t.identity.panePid) : undefined;

  async function statusOfTarget(t: ReadableTarget): Promise<StatusResult> {
    const { lines } = await readPane(t, 0, '-', true);
    const { status, limit } = classifiedStatus(t, lines, now(), iso, zoneOf(t, lines));
    return limit === undefined ? status : { ...status, limit_resets_at: new Date(limit.resetsAt).toISOString() };
  }

  function follow(caller: ReadCallerId, tool: string, ref: TargetRef, options: FollowOptions = {}): ContinuedRead {
    let pinned = options.pin === 'first' ? undefined : options.pin;
    let lastRecorded: string | null = null;
    const record = (key: string, facts: ReadFacts) => {
      if (key === lastRecorded) return;
      lastRecorded = key;
      deps.reads.record(readRecord(caller, tool, facts, now()));
    };
    const read = (t: ReadableTarget, lineCount: number) =>
      record(`read\t${t.identity.sessionId}\t${t.identity.paneId}`, { session: t.sessionName, sessionId: t.identity.sessionId, paneId: t.identity.paneId, lineCount });
    /** A refusal (or a pane gone under the read) is recorded with its code, then rethrown. */
    const refused = (err: unknown): never => {
      const code = readAppErrorData(err)?.code ?? 'INTERNAL';
      record(`error\t${code}`, { session: ref.session ?? ref.binding, errorCode: code });
      throw err;
    };

    async function target(): Promise<ReadableTarget> {
      try {
        const t = await access.readableRef(ref);
        if (options.pin !== undefined) {
          if (pinned === undefined) pinned = sessionIdentityOf(t.identity);
          else assertSameSession(pinned, t.identity);
        }
        return t;
      } catch (err) {
        return refused(err);
      }
    }

    async function screen() {
      const t = await target();
      const { lines } = await readPane(t, 0, '-', true).catch(refused);
      read(t, lines.length);
      return { target: t, lines, paneZone: zoneOf(t, lines) };
    }

    return {
      target,
      screen,
      async status() {
        const { target: t, lines, paneZone } = await screen();
        return { target: t, status: statusOf(t, lines, now(), iso, paneZone) };
      },
      async frame() {
        const t = await target();
        // Both commands go out in one write and tmux answers them back to back, so the
        // cursor belongs to the screen captured. The screen is redacted together with
        // history above it, so a block or a wrapped token cut by the top edge is still
        // recognised.
        const [window, facts] = await Promise.all([readPaneWindow(deps.cuts, tmux, t.pane, 0, '-', true), tmux.paneFacts(t.pane.paneId)]).catch(refused);
        if (facts === null) return refused(new AppError('SESSION_NOT_FOUND', 'the pane no longer exists'));
        read(t, window.lines.length);
        return { target: t, window, facts };
      },
    };
  }

  /** A session's windows and panes (terminal_list_panes; batch rows per pane). */
  async function panesOf(name: string): Promise<ListPanesOutput> {
    const t = await access.readable(name);
    const listed = await tmux.listPanes(t.identity.sessionId);
    if (listed === null || !sameSession(listed, t.identity)) throw new AppError('SESSION_NOT_FOUND', 'the session no longer exists');
    const windowNames = new Map(listed.windows.map((w) => [w.windowId, redactSecrets(stripTerminalControls(w.name)).text]));
    return {
      session: t.sessionName,
      session_id: t.identity.sessionId,
      panes: listed.panes.map((p) => ({
        window: p.windowIndex,
        window_name: windowNames.get(p.windowId) ?? '',
        pane: p.paneIndex,
        pane_id: p.paneId,
        current_command: p.currentCommand,
        width: p.width,
        height: p.height,
        active: p.active,
      })),
    };
  }

  async function recordingLook(name: string, identity: SessionIdentity): Promise<RecordingLook> {
    const t = await access.readable(name);
    assertSameSession(identity, t.identity);
    const listed = await tmux.listPanes(t.identity.sessionId);
    if (listed === null || !sameSession(listed, t.identity)) throw new AppError('SESSION_NOT_FOUND', 'the session no longer exists');
    const ids = new Set(listed.panes.map((p) => p.paneId));
    return {
      panes: listed.panes,
      async capture(paneId, start, end) {
        // Only the panes this look listed, of the session the gate just admitted.
        if (!ids.has(paneId)) throw new AppError('SESSION_NOT_FOUND', 'the pane is not in this session');
        if (tmux.capturePaneWithFacts === undefined) throw new AppError('INTERNAL', 'this tmux adapter cannot capture a pane with its facts');
        const got = await tmux.capturePaneWithFacts(paneId, { start, end });
        return got === null || got.text === null ? null : { facts: got.facts, text: got.text };
      },
    };
  }

  return {
    recordingLook,
    resolve: (ref) => access.readableRef(ref),
    follow,
    delivery: createDeliveryReads({ tmux, delivery: deps.identity }),
    tailOf,
    statusOf: statusOfTarget,

    async list(filter = {}, listed) {
      const sessions = listed ?? (await tmux.listSessions());
      return summarizeSessions(access, sessions, iso)
        .filter((s) => (filter.nameContains ? s.name.includes(filter.nameContains) : true))
        .filter((s) => (filter.readableOnly ? s.read_allowed : true))
        .sort((a, b) => a.name.localeCompare(b.name));
    },

    async tail(name, lines = config.default_tail_lines, stripAnsi = true, pane) {
      // A named pane: no capture ahead (the hint is of the active pane only).
      if (pane !== undefined) return tailOf(await access.readable(name, undefined, pane), lines, stripAnsi);
      const count = Math.min(lines, config.max_capture_lines, LIMITS.maxTailLines);
      // One tmux round trip instead of two: the identity check goes out first, and right
      // behind it (same write, tmux runs them in order) a capture planned from the pane
      // as last seen. readPaneWindow uses that capture only when the check confirmed
      // that very pane and plan, after the gate admitted the session; else it captures
      // again. Only for names the whitelist admits as such (no grant lookup), so no
      // denied session's text is ever captured ahead.
      const found = access.readable(name);
      const hint = access.canRead(name, null) ? (tmux.paneHint?.(name) ?? null) : null;
      const early = hint ? startEarlyCapture(tmux, hint, -count, '-', !stripAnsi) : undefined;
      return tailOf(await found, lines, stripAnsi, early);
    },

    async capture(name, range, stripAnsi = true, pane) {
      const t = await access.readable(name, undefined, pane);
      const bottom = Math.max(0, t.pane.height - 1);
      const end = range.end ?? bottom;
      let start = range.start ?? end - config.max_capture_lines + 1;
      let truncated = false;
      if (end - start + 1 > config.max_capture_lines) {
        start = end - config.max_capture_lines + 1;
        truncated = true;
      }
      const clean = await readPane(t, start, end, stripAnsi);
      return paneText(t, clean.lines, clean.redactions, truncated);
    },

    async status(name, pane) {
      return statusOfTarget(await access.readable(name, undefined, pane));
    },

    panes: panesOf,

    async batchInspect(names, lines = 10, allPanes = false) {
      const sessions = await tmux.listSessions();
      const targets =
        names ??
        sessions
          .filter((s) => access.canRead(s.name, access.grantOf(s.name, s)))
          .map((s) => s.name)
          .sort((a, b) => a.localeCompare(b))
          .slice(0, LIMITS.batchSessions);
      const at = now();
      /** A row's error, inline: the other rows still return. */
      const failed = (name: string, err: unknown, pane?: string): BatchInspectItem => {
        const app = readAppErrorData(err);
        if (!app) throw err;
        return { session: name, ...(pane !== undefined && { pane }), ok: false, error_code: app.code, message: (err as Error).message };
      };
      const inspect = async (name: string, pane?: string): Promise<BatchInspectItem> => {
        try {
          const t = await access.readable(name, sessions, pane);
          // One capture serves both: the visible screen for status, the tail for display.
          const clean = await readPane(t, -lines, '-', true);
          const screen = toLines(clean.lines.slice(-Math.max(t.pane.height, 1)).join('\n'));
          const shown = lastLines(clean, lines);
          return {
            session: name,
            ...(pane !== undefined && { pane: t.pane.paneId }),
            ok: true,
            status: statusOf(t, screen, at, iso, zoneOf(t, screen)),
            tail: paneText(t, shown.lines, shown.redactions, false),
          };
        } catch (err) {
          return failed(name, err, pane);
        }
      };
      const wanted = targets.slice(0, LIMITS.batchSessions);
      if (!allPanes) return Promise.all(wanted.map((name) => inspect(name)));
      // Every pane: the session's own listing names them (the gate admits the session
      // first, so a session the caller may not read lists nothing).
      const rows = await Promise.all(
        wanted.map(async (name): Promise<(() => Promise<BatchInspectItem>)[]> => {
          try {
            const listed = await panesOf(name);
            return listed.panes.map((p) => () => inspect(name, p.pane_id));
          } catch (err) {
            const row = failed(name, err);
            return [() => Promise.resolve(row)];
          }
        }),
      );
      return Promise.all(rows.flat().slice(0, LIMITS.batchSessions).map((read) => read()));
    },
  };
}
