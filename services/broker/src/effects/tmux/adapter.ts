/**
 * The broker's tmux adapter: facts and pane text read through one persistent control
 * client (see control-client.ts), addressed by id only.
 *
 * Security assumptions:
 * - No user text ever reaches a tmux command line. Every id we put on one is checked
 *   against a strict regex first (`%7`, `$3`) and single-quoted; everything else on the
 *   line is a constant written here.
 * - Replies are parsed by position, with exactly one free-form field per record and that
 *   field LAST. tmux 3.3a stores session names already escaped (`:`/`.` become `_`; tab,
 *   newline, backslash and other non-printables become `\t`, `\n`, `\\`, `\001`), so a
 *   name can never contain the tab separator or a newline, whatever else it contains
 *   (spaces, `;`, `#`, quotes, unicode, a leading `-`). `#{pane_current_command}` is NOT
 *   escaped (a process can put a tab or a newline in its argv[0]): it is last, and a reply
 *   line that does not start with the fixed fields continues the previous command.
 */
import { randomBytes } from 'node:crypto';
import { AppError } from '@terminal-mcp/contract';
import {
  TmuxControlClient,
  type ControlClientOptions,
  type ControlNotification,
  type ControlReply,
  type ControlState,
  type ReconnectOptions,
} from './control-client.js';
import { HIDDEN_SESSION_NAME } from './hidden-session.js';
import { PANE_ID_RE, SESSION_ID_RE, assertPaneId, assertSessionId, silentLogger, splitFixed, uint, type TmuxLogger } from './format.js';
import { WATCHER_TERM } from './pane-watch.js';
import { coalesce } from './coalesce.js';
import { announcedFactsOf, type AnnouncedFacts } from './announced-facts.js';
import { createSessionCache } from './session-cache.js';
import { closePanePipe, listPanePipes, openPanePipe } from './pane-pipe.js';
import { readPaneIdentityByControl } from './pane-identity.js';
import type { TmuxTransport } from './transport.js';
import type { CaptureOptions, InputControl, ListedSession, PaneFacts, PanePipes, SessionFacts, SessionPanes, SessionsChange, SessionsChangeCause, TmuxAdapter, TmuxHealth, WindowPaneFacts } from './types.js';

export interface TmuxAdapterOptions {
  /** `tmux -L <socketName>` (TERMINAL_MCP_TMUX_SOCKET); undefined means the user's
   * default server. */
  socketName?: string;
  logger?: TmuxLogger;
  /** `tmux -f`: read only when a command starts a server, which the broker never does. */
  configFile?: string;
  tmuxPath?: string;
  commandTimeoutMs?: number;
  connectTimeoutMs?: number;
  reconnect?: ReconnectOptions;
  /** How tmux is reached (transport.ts): tmux on this host by default, ssh for a node. */
  transport?: TmuxTransport;
}

/** The adapter plus the control-mode extras later work subscribes to. */
export interface ControlModeTmuxAdapter extends TmuxAdapter, PanePipes {
  listSummaries(): Promise<ListedSession[]>;
  /** Always there through the control client (optional in TmuxAdapter for other adapters). */
  capturePaneWithFacts(paneId: string, options: CaptureOptions): Promise<{ facts: PaneFacts; text: string | null } | null>;
  /** tmux notifications (`%sessions-changed`, `%window-renamed @1 bash`, ...). */
  onNotification(listener: (n: ControlNotification) => void): () => void;
  onStateChange(listener: (s: ControlState) => void): () => void;
  readonly state: ControlState;
  /** Resolves true once connected, false after timeoutMs. */
  waitUntilConnected(timeoutMs: number): Promise<boolean>;
  /** The connection as the control client sees it, for node health: why the last attempt
   * failed (raw: for the log and classification, never for a caller), when it retries,
   * and the server pid while connected. */
  connectionFacts(): { lastError: string; nextRetryAt: number | undefined; serverPid: number | undefined };
  /** The input delivery's command path through the control client (types.ts). */
  inputControl: InputControl;
}

export { assertPaneId, assertSessionId };

// Fixed fields first, the one free-form field last. The separator is a tab (a literal
// tab inside the single-quoted format).
const SESSION_FIELDS = 6;
// The last field is `#{window_activity}` of every window of the session (a `#{W:}`
// loop, space-separated): its latest is the session's last output. `#{session_activity}`
// is not: tmux bumps it on attach and key input only, so a pane that prints every second
// would look quiet, while any attach (our output watchers included) makes it look busy.
const SESSION_FIXED_FORMAT = '#{pid}\t#{session_id}\t#{session_created}\t#{session_attached}\t#{session_windows}\t#{W:#{window_activity} }';
const PANE_FIELDS = 10;
const PANE_FORMAT =
  '#{pane_id}\t#{pane_pid}\t#{pane_in_mode}\t#{pane_width}\t#{pane_height}\t#{history_size}\t#{window_activity}\t#{cursor_x}\t#{cursor_y}\t#{cursor_flag}\t#{pane_current_command}';
/** One session and its active pane (of its active window) in one record, for a read by
 * id: the session's fixed fields, its name, the pane's fixed fields, the pane's current
 * command last. The name can be a fixed field because tmux stores it escaped (no tab, no
 * newline; see above); were that ever not so, the fields would not parse or the name
 * would not match, and the caller falls back to a full listing. */
const SESSION_BY_ID_FIELDS = SESSION_FIELDS + 1 + PANE_FIELDS;
const SESSION_BY_ID_FORMAT = `${SESSION_FIXED_FORMAT}\t#{session_name}\t${PANE_FORMAT}`;

/** A listing for the session list: the session's fields, its name, and of its active pane
 * only copy mode and (free-form, last) the current command. */
const SUMMARY_FIELDS = SESSION_FIELDS + 2;
const SUMMARY_FORMAT = `${SESSION_FIXED_FORMAT}\t#{session_name}\t#{pane_in_mode}\t#{pane_current_command}`;
const listSummariesCommand = (tag: string) => `list-sessions -F '${tag}\t${SUMMARY_FORMAT}'`;
/** The same listing when the announced facts (name, creation, window count, server pid;
 * announced-facts.ts) are kept from an earlier one: only what tmux changes silently. */
const CHANGING_FIELDS = 4;
const CHANGING_FORMAT = '#{session_id}\t#{session_attached}\t#{W:#{window_activity} }\t#{pane_in_mode}\t#{pane_current_command}';
const listChangingCommand = (tag: string) => `list-sessions -F '${tag}\t${CHANGING_FORMAT}'`;

/** Every session with its active pane (of its active window) in ONE command, each record
 * `<tag>\t` + SESSION_BY_ID_FORMAT (list-sessions resolves pane fields to that pane).
 *
 * SECURITY: `pane_current_command` is argv[0] of the pane's foreground process, which that
 * process chooses, and tmux 3.3a keeps tabs and newlines in it, so a process can print
 * whole fake records after its own. Every real record therefore starts with a tag no pane
 * can know (a per-adapter secret plus a counter, like the capture fence in
 * control-client.ts); a line without it continues the previous record's command. A forged
 * line can neither add a session nor give another session a pane. */
const listSessionsCommand = (tag: string) => `list-sessions -F '${tag}\t${SESSION_BY_ID_FORMAT}'`;
/** Every pane of one session (`-s`), each record `<tag>\t` + where it sits + PANE_FORMAT
 * (its current command last, free-form: hence the tag, as for list-sessions). */
const LIST_PANES_FIELDS = 8 + PANE_FIELDS;
const listPanesCommand = (tag: string, sessionId: string) =>
  `list-panes -s -t '${sessionId}' -F '${tag}\t#{pid}\t#{session_id}\t#{session_created}\t#{window_id}\t#{window_index}\t#{window_active}\t#{pane_index}\t#{pane_active}\t${PANE_FORMAT}'`;
/** The session's windows, the name (free-form: a program can set its window's title) last. */
const listWindowsCommand = (tag: string, sessionId: string) => `list-windows -t '${sessionId}' -F '${tag}\t#{window_id}\t#{window_index}\t#{window_name}'`;
const WINDOW_ID_RE = /^@\d{1,10}$/;

/** Every client with its session and terminal name (free-form, last): our output
 * watchers are the clients whose terminal name is WATCHER_TERM (see pane-watch.ts). */
const LIST_CLIENTS = "list-clients -F '#{session_id}\t#{client_termname}'";

/** Parses `pane_id ... current_command` (PANE_FORMAT). */
function parsePaneFields(fields: readonly string[], offset: number, command: string): PaneFacts | null {
  const paneId = fields[offset];
  const panePid = uint(fields[offset + 1]);
  const inMode = fields[offset + 2];
  const width = uint(fields[offset + 3]);
  const height = uint(fields[offset + 4]);
  const historySize = uint(fields[offset + 5]);
  const windowActivity = uint(fields[offset + 6]);
  const cursorX = uint(fields[offset + 7]);
  const cursorY = uint(fields[offset + 8]);
  if (
    paneId === undefined ||
    !PANE_ID_RE.test(paneId) ||
    panePid === null ||
    width === null ||
    height === null ||
    historySize === null ||
    windowActivity === null ||
    cursorX === null ||
    cursorY === null
  ) {
    return null;
  }
  const cursor = { x: cursorX, y: cursorY, visible: fields[offset + 9] !== '0' };
  return { paneId, panePid, currentCommand: command, inMode: inMode === '1', width, height, historySize, windowActivity, cursor };
}

/** Parses SESSION_FIXED_FORMAT's fields (the first SESSION_FIELDS of `fields`). */
/** The latest of the space-separated window activity times; null when any is unparsable. */
function latestActivity(text: string | undefined): number | null {
  const times = (text ?? '').split(' ').filter((t) => t !== '').map(uint);
  if (times.length === 0 || times.some((t) => t === null)) return null;
  return Math.max(...(times as number[]));
}

function parseSessionFields(fields: readonly string[], name: string): Omit<SessionFacts, 'activePane'> | null {
  const [pidText, sessionId, createdText, attachedText, windowsText, activityText] = fields;
  const serverPid = uint(pidText);
  const created = uint(createdText);
  const attached = uint(attachedText);
  const windows = uint(windowsText);
  const activity = latestActivity(activityText);
  if (
    serverPid === null ||
    sessionId === undefined ||
    !SESSION_ID_RE.test(sessionId) ||
    created === null ||
    attached === null ||
    windows === null ||
    activity === null
  ) {
    return null;
  }
  return { serverPid, sessionId, name, created, attached, windows, activity };
}

/** One record of a SESSION_BY_ID_FORMAT reply (the command may span lines); null when
 * the session fields do not parse. An unparsable pane leaves the session without one. */
function parseSessionRecord(record: string, logger: TmuxLogger): Omit<SessionFacts, 'activePane'> & { activePane: PaneFacts | null } | null {
  const split = splitFixed(record, SESSION_BY_ID_FIELDS);
  if (split === null) return null;
  const s = parseSessionFields(split.fields, split.fields[SESSION_FIELDS] as string);
  if (s === null) return null;
  const pane = parsePaneFields(split.fields, SESSION_FIELDS + 1, split.rest);
  if (pane === null) logger.warn({ sessionId: s.sessionId }, 'unparsable tmux pane record skipped');
  return { ...s, activePane: pane };
}

/** One record of a SUMMARY_FORMAT reply; null when the session fields do not parse. */
function parseSummaryRecord(record: string): ListedSession | null {
  const split = splitFixed(record, SUMMARY_FIELDS);
  if (split === null) return null;
  const s = parseSessionFields(split.fields, split.fields[SESSION_FIELDS] as string);
  if (s === null) return null;
  const inMode = split.fields[SESSION_FIELDS + 1];
  // A session always has an active pane; empty fields mean tmux had none to expand.
  return { ...s, activePane: inMode === '0' || inMode === '1' ? { inMode: inMode === '1', currentCommand: split.rest } : null };
}

/** One record of a CHANGING_FORMAT reply completed with the kept facts of its session;
 * null when the fields do not parse or the session's facts are not kept. */
function parseChangingRecord(record: string, kept: ReadonlyMap<string, AnnouncedFacts>): ListedSession | null {
  const split = splitFixed(record, CHANGING_FIELDS);
  if (split === null) return null;
  const [sessionId, attachedText, activityText, inMode] = split.fields as [string, string, string, string];
  const facts = kept.get(sessionId);
  const attached = uint(attachedText);
  const activity = latestActivity(activityText);
  if (facts === undefined || attached === null || activity === null) return null;
  // Written out in parseSessionFields' order: the same object shape as a full listing's.
  const { serverPid, name, created, windows } = facts;
  const activePane = inMode === '0' || inMode === '1' ? { inMode: inMode === '1', currentCommand: split.rest } : null;
  return { serverPid, sessionId, name, created, attached, windows, activity, activePane };
}

/** The records of a listSessionsCommand(tag) reply: lines that start with the tag begin
 * one, any other line continues the previous one's current command. */
function taggedRecords(lines: readonly string[], tag: string): string[] {
  const start = `${tag}\t`;
  const records: string[] = [];
  for (const line of lines) {
    if (line.startsWith(start)) records.push(line.slice(start.length));
    else if (records.length > 0) records[records.length - 1] += `\n${line}`;
  }
  return records;
}

/** Session id -> number of our output watcher clients attached to it. A user's terminal
 * name is free-form (last field); only an exact WATCHER_TERM counts. */
function countWatcherClients(lines: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of lines) {
    const tab = line.indexOf('\t');
    if (tab < 0 || line.slice(tab + 1) !== WATCHER_TERM) continue;
    const sessionId = line.slice(0, tab);
    if (SESSION_ID_RE.test(sessionId)) counts.set(sessionId, (counts.get(sessionId) ?? 0) + 1);
  }
  return counts;
}

/** Corrects a record of this very reply in place: our own output watchers must not make a
 * session look attached to a user. */
function discountWatchers(s: { sessionId: string; attached: number }, watchers: ReadonlyMap<string, number>): void {
  s.attached = Math.max(0, s.attached - (watchers.get(s.sessionId) ?? 0));
}

function lineArgument(value: number | '-', what: string): string {
  if (value === '-') return '-';
  if (!Number.isSafeInteger(value) || Math.abs(value) > 1_000_000_000) {
    throw new AppError('INVALID_ARGUMENT', `${what} must be an integer line number or '-'`);
  }
  return String(value);
}

function isMissingTarget(reply: ControlReply): boolean {
  return !reply.ok && reply.lines.some((l) => l.startsWith("can't find"));
}

export function createTmuxAdapter(options: TmuxAdapterOptions = {}): ControlModeTmuxAdapter {
  const logger = options.logger ?? silentLogger;
  const clientOptions: ControlClientOptions = { logger };
  if (options.socketName !== undefined) clientOptions.socketName = options.socketName;
  if (options.configFile !== undefined) clientOptions.configFile = options.configFile;
  if (options.tmuxPath !== undefined) clientOptions.tmuxPath = options.tmuxPath;
  if (options.commandTimeoutMs !== undefined) clientOptions.commandTimeoutMs = options.commandTimeoutMs;
  if (options.connectTimeoutMs !== undefined) clientOptions.connectTimeoutMs = options.connectTimeoutMs;
  if (options.reconnect !== undefined) clientOptions.reconnect = options.reconnect;
  if (options.transport !== undefined) clientOptions.transport = options.transport;
  const control = new TmuxControlClient(clientOptions);
  control.start();

  // Names, panes and announced facts between round trips: one cache, one rule for
  // forgetting (session-cache.ts).
  const cache = createSessionCache();
  control.onNotification((n) => cache.notified(n.name));
  control.onStateChange(() => cache.forget());

  const tagPrefix = `tmcp-list-${randomBytes(12).toString('hex')}-`;
  let tagCounter = 0;

  /** One tagged listing (`command(tag)`) and the clients, as records and our watchers per
   * session. Both lines go out in the same write; tmux answers them back to back. */
  async function listRecords(command: (tag: string) => string): Promise<{ records: string[]; watchers: Map<string, number> }> {
    const tag = `${tagPrefix}${(tagCounter++).toString(36)}`;
    const [sessionsReply, clientsReply] = await Promise.all([control.run(command(tag)), control.run(LIST_CLIENTS)]);
    if (!sessionsReply.ok) {
      // A server with no sessions cannot exist while our hidden session is attached.
      logger.warn({ tmux: sessionsReply.lines.join(' ').slice(0, 200) }, 'tmux list-sessions failed');
      throw new AppError('TMUX_UNAVAILABLE', 'tmux could not list sessions');
    }
    return { records: taggedRecords(sessionsReply.lines, tag), watchers: clientsReply.ok ? countWatcherClients(clientsReply.lines) : new Map<string, number>() };
  }

  /** The sessions of a listing, parsed by `parse`: the hidden session is left out and our
   * own watchers are not counted as attached. `keep` notes the announced facts of every
   * session, the hidden one too (a changing listing has a record for it). */
  function sessionsOf<T extends ListedSession>(
    listing: { records: string[]; watchers: Map<string, number> },
    parse: (record: string) => T | null,
    keep?: Map<string, AnnouncedFacts>,
  ): T[] {
    const sessions: T[] = [];
    for (const record of listing.records) {
      const s = parse(record);
      if (s === null) {
        logger.warn({}, 'unparsable tmux session record skipped');
        continue;
      }
      keep?.set(s.sessionId, announcedFactsOf(s));
      if (s.name === HIDDEN_SESSION_NAME) continue;
      discountWatchers(s, listing.watchers);
      sessions.push(s);
    }
    return sessions;
  }

  /** A listing of every fact, stored in the cache unless a change was read while it ran. */
  async function listSessions(): Promise<SessionFacts[]> {
    const ticket = cache.ticket();
    const bySession = new Map<string, AnnouncedFacts>();
    const sessions = sessionsOf(await listRecords(listSessionsCommand), (record) => parseSessionRecord(record, logger), bySession);
    cache.storeListing(ticket, bySession, { sessions });
    return sessions;
  }

  async function listSummaries(): Promise<ListedSession[]> {
    const kept = cache.announced();
    if (kept !== null) {
      const listing = await listRecords(listChangingCommand);
      // Used only when nothing that may change a kept fact was read meanwhile, and every
      // record is a session whose facts are kept (a new one comes with a notification).
      if (cache.current(kept.ticket) && listing.records.every((r) => kept.bySession.has(r.slice(0, r.indexOf('\t'))))) {
        return sessionsOf(listing, (record) => parseChangingRecord(record, kept.bySession));
      }
    }
    const ticket = cache.ticket();
    const bySession = new Map<string, AnnouncedFacts>();
    const summaries = sessionsOf(await listRecords(listSummariesCommand), parseSummaryRecord, bySession);
    cache.storeListing(ticket, bySession, { summaries });
    return summaries;
  }

  /** The session with this id and its active pane, read now in one round trip; null when
   * it is gone or the reply is not what we expect (the caller then lists everything). */
  async function sessionById(sessionId: string): Promise<SessionFacts | null> {
    assertSessionId(sessionId);
    const [reply, clientsReply] = await Promise.all([
      control.run(`display-message -p -t '${sessionId}' '${SESSION_BY_ID_FORMAT}'`),
      control.run(LIST_CLIENTS),
    ]);
    if (!reply.ok) return null;
    // A command with a newline spans lines; a missing target may answer empty fields.
    const s = parseSessionRecord(reply.lines.join('\n'), logger);
    if (s === null || s.activePane === null || s.sessionId !== sessionId || s.name === HIDDEN_SESSION_NAME) return null;
    const watchers = clientsReply.ok ? countWatcherClients(clientsReply.lines) : new Map<string, number>();
    discountWatchers(s, watchers);
    return s;
  }

  async function findSession(name: string): Promise<SessionFacts | null> {
    const cachedId = cache.idOf(name);
    if (cachedId !== undefined) {
      const ticket = cache.ticket();
      const s = await sessionById(cachedId);
      // The name check is what makes the hint safe: see session-cache.ts.
      if (s !== null && s.name === name) {
        if (s.activePane) cache.storePane(ticket, s.sessionId, s.activePane);
        return s;
      }
    }
    return (await listSessions()).find((s) => s.name === name) ?? null;
  }

  async function paneFacts(paneId: string): Promise<PaneFacts | null> {
    assertPaneId(paneId);
    const reply = await control.run(`display-message -p -t '${paneId}' '${PANE_FORMAT}'`);
    if (!reply.ok) {
      if (isMissingTarget(reply)) return null;
      logger.warn({ tmux: reply.lines.join(' ').slice(0, 200) }, 'tmux display-message failed');
      throw new AppError('INTERNAL', 'tmux could not read pane facts');
    }
    // A missing target answers with empty fields; a command with a newline spans lines.
    const split = splitFixed(reply.lines.join('\n'), PANE_FIELDS);
    if (split === null || split.fields[0] !== paneId) return null;
    return parsePaneFields(split.fields, 0, split.rest);
  }

  async function listPanes(sessionId: string): Promise<SessionPanes | null> {
    assertSessionId(sessionId);
    const paneTag = `${tagPrefix}${(tagCounter++).toString(36)}`;
    const windowTag = `${tagPrefix}${(tagCounter++).toString(36)}`;
    // Both go out in one write; tmux answers them back to back (one snapshot).
    const [panesReply, windowsReply] = await Promise.all([control.run(listPanesCommand(paneTag, sessionId)), control.run(listWindowsCommand(windowTag, sessionId))]);
    if (!panesReply.ok || !windowsReply.ok) {
      if (isMissingTarget(panesReply) || isMissingTarget(windowsReply)) return null;
      logger.warn({ tmux: [...panesReply.lines, ...windowsReply.lines].join(' ').slice(0, 200) }, 'tmux list-panes failed');
      throw new AppError('INTERNAL', 'tmux could not list the panes');
    }
    let session: Omit<SessionPanes, 'panes' | 'windows'> | null = null;
    const panes: WindowPaneFacts[] = [];
    for (const record of taggedRecords(panesReply.lines, paneTag)) {
      const split = splitFixed(record, LIST_PANES_FIELDS);
      if (split === null) continue;
      const [pid, sid, createdText, windowId, windowIndex, windowActive, paneIndex, paneActive] = split.fields;
      const serverPid = uint(pid);
      const created = uint(createdText);
      const wIndex = uint(windowIndex);
      const pIndex = uint(paneIndex);
      const facts = parsePaneFields(split.fields, 8, split.rest);
      // Every record must be of the session asked for (ids are checked, never trusted).
      if (serverPid === null || created === null || sid !== sessionId || windowId === undefined || !WINDOW_ID_RE.test(windowId) || wIndex === null || pIndex === null || facts === null) continue;
      if (session === null) session = { serverPid, sessionId, created };
      else if (session.serverPid !== serverPid || session.created !== created) return null;
      panes.push({ ...facts, windowId, windowIndex: wIndex, paneIndex: pIndex, active: windowActive === '1' && paneActive === '1' });
    }
    if (session === null) return null;
    const windows: SessionPanes['windows'] = [];
    for (const record of taggedRecords(windowsReply.lines, windowTag)) {
      const split = splitFixed(record, 2);
      const index = uint(split?.fields[1]);
      if (split === null || index === null || !WINDOW_ID_RE.test(split.fields[0] ?? '')) continue;
      windows.push({ windowId: split.fields[0]!, index, name: split.rest });
    }
    return { ...session, panes, windows };
  }

  function captureCommand(paneId: string, opts: CaptureOptions): string {
    assertPaneId(paneId);
    let command = opts.escapes === true ? 'capture-pane -p -J -e' : 'capture-pane -p -J';
    if (opts.start !== undefined) command += ` -S ${lineArgument(opts.start, 'start')}`;
    if (opts.end !== undefined) command += ` -E ${lineArgument(opts.end, 'end')}`;
    return `${command} -t '${paneId}'`;
  }

  function capturedText(reply: ControlReply): string {
    if (!reply.ok) {
      if (isMissingTarget(reply)) throw new AppError('SESSION_NOT_FOUND', 'the pane no longer exists');
      logger.warn({ tmux: reply.lines.join(' ').slice(0, 200) }, 'tmux capture-pane failed');
      throw new AppError('INTERNAL', 'tmux could not capture the pane');
    }
    return reply.lines.join('\n');
  }

  async function capturePane(paneId: string, opts: CaptureOptions = {}): Promise<string> {
    // Fenced: the reply is pane-controlled text (see control-client.ts).
    return capturedText(await control.run(captureCommand(paneId, opts), { fenced: true }));
  }

  async function capturePaneWithFacts(paneId: string, opts: CaptureOptions): Promise<{ facts: PaneFacts; text: string | null } | null> {
    const capture = captureCommand(paneId, opts);
    // Both go out in one write (as listPanes' two): tmux runs them in one turn of its loop.
    const [facts, captured] = await Promise.all([paneFacts(paneId), control.run(capture, { fenced: true }).catch(() => null)]);
    if (facts === null) return null;
    let text: string | null = null;
    try {
      if (captured !== null) text = capturedText(captured);
    } catch {
      // A capture tmux refused: no text, the facts stand.
    }
    return { facts, text };
  }

  async function health(): Promise<TmuxHealth> {
    // The detail reaches every client role: it names the state, never tmux's stderr
    // (which holds socket paths); the reason itself is in the broker log.
    if (control.waitingForServer) {
      return { ok: false, detail: 'no tmux server is running: start tmux (e.g. `tmux new -s agent-1`); the broker attaches when a server appears' };
    }
    if (control.state !== 'connected') {
      return { ok: false, detail: `tmux server not reachable (${control.state}); the broker reconnects by itself` };
    }
    try {
      const reply = await control.run(`display-message -p '#{version}\t#{pid}'`, { timeoutMs: 2_000 });
      const [version, pid] = (reply.lines[0] ?? '').split('\t');
      if (!reply.ok) return { ok: false, detail: 'tmux did not answer a status query' };
      return { ok: true, detail: `tmux ${version ?? '?'} server pid ${pid ?? '?'} (control mode)` };
    } catch (err) {
      return { ok: false, detail: `tmux server not reachable: ${(err as Error).message}` };
    }
  }

  /** tmux notifications that announce a change to the set of sessions or their names
   * (checked on tmux 3.3a: create and kill send `%sessions-changed`, rename sends
   * `%session-renamed`; there is no `%session-closed` for our client). */
  const SESSION_NOTIFICATIONS: ReadonlySet<string> = new Set<SessionsChangeCause>(['sessions-changed', 'session-renamed']);

  function onSessionsChanged(listener: (change: SessionsChange) => Promise<unknown> | unknown): () => void {
    const calls = coalesce<SessionsChange>(listener, {
      onError: (err) => logger.warn({ err: (err as Error).message }, 'tmux sessions-changed listener failed'),
    });
    const offNotification = control.onNotification((n) => {
      if (SESSION_NOTIFICATIONS.has(n.name)) void calls.request({ cause: n.name as SessionsChangeCause });
    });
    const offState = control.onStateChange((state) => {
      if (state === 'connected') void calls.request({ cause: 'connected' });
      // Only a probe that found no server sets waitingForServer: a connection that merely
      // dropped is not evidence that the sessions died.
      else if (state === 'disconnected' && control.waitingForServer) void calls.request({ cause: 'server-gone' });
    });
    return () => {
      offNotification();
      offState();
      void calls.stop();
    };
  }

  return {
    listSessions,
    listSummaries,
    findSession,
    paneFacts,
    listPanes,
    capturePane,
    capturePaneWithFacts,
    paneHint: (name) => cache.paneHint(name),
    health,
    readPaneIdentity: (paneId) => readPaneIdentityByControl((c, o) => control.run(c, o), paneId),
    listPanePipes: () => listPanePipes((c, o) => control.run(c, o)),
    openPanePipe: (paneId, fifoPath, historyLines) => openPanePipe((cs) => control.runBatch(cs), paneId, fifoPath, historyLines),
    closePanePipe: (paneId) => closePanePipe((c, o) => control.run(c, o), paneId),
    whenIdle: (maxWaitMs) => control.whenIdle(maxWaitMs),
    noServer: () => control.waitingForServer,
    onSessionsChanged,
    close: () => control.close(),
    onNotification: (listener) => control.onNotification(listener),
    onStateChange: (listener) => control.onStateChange(listener),
    get state() {
      return control.state;
    },
    waitUntilConnected: (timeoutMs) => control.waitUntilConnected(timeoutMs),
    inputControl: (lines) => control.tryRunBatch(lines),
    connectionFacts: () => ({ lastError: control.lastError, nextRetryAt: control.nextRetryAt, serverPid: control.connection?.serverPid }),
  };
}
