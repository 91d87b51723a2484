/**
 * tmux's own output tap: `pipe-pane -O` copies everything a pane prints to the stdin of a
 * command the tmux server forks, here `cat` into a FIFO the broker reads
 * (effects/transcripts/pane-fifos.ts). Transcripts record through it, so recording adds
 * NO control client to the user's server: tmux 3.3a crashes when a session changes while
 * a control client identifies (identify-gate.ts), and one watcher client per recorded
 * session meant an identify for every new session. A pipe is a socketpair and a child
 * process; no client, no identify, no session, no window, no option, no resize.
 *
 * What the user can notice, on tmux 3.3a:
 * - `#{pane_pipe}` is 1 on a recorded pane, and the server has one `cat` child per
 *   recorded pane.
 * - A pane has ONE pipe. The broker never takes a pane that is piped already (the user's
 *   `pipe-pane`); a user's `pipe-pane` on a recorded pane replaces ours (the recording of
 *   that pane ends), and a user's `pipe-pane -o` toggle first closes ours and opens
 *   nothing (tmux's -o opens only when no pipe was open), so the next press opens theirs.
 *   The recorder then leaves that pane alone for the rest of its life.
 * - Only `-O` (output): `-I` pipes on dead panes crashed tmux (tmux/tmux#3174), and the
 *   read side is not needed. Dead panes are never piped (tmux refuses anyway).
 *
 * SECURITY: pipe-pane runs its command through `sh -c` after format (`#{}`, `#()`) and
 * strftime (`%`) expansion. The command is a constant plus a FIFO path of the broker's
 * own making, checked against a strict character set (no `#`, `%`, quote, space or shell
 * metacharacter); nothing user-derived is ever part of it. Pane ids are checked too.
 */
import { AppError } from '@terminal-mcp/contract';
import type { ControlReply } from './control-client.js';
import { assertPaneId, PANE_ID_RE, SESSION_ID_RE, splitFixed, uint } from './format.js';
import type { OpenedPanePipe, PanePipeFacts } from './types.js';

/** What a FIFO path may contain to be put on a pipe-pane command line. */
export const SAFE_PIPE_PATH_RE = /^\/[A-Za-z0-9._/-]{1,1000}$/;

type Run = (command: string, options?: { timeoutMs?: number }) => Promise<ControlReply>;
type RunBatch = (commands: readonly { command: string; fenced?: boolean }[]) => Promise<ControlReply[]>;

const SCAN_FIELDS = 7;
const LIST_PANES = "list-panes -a -F '#{pid}\t#{session_id}\t#{session_created}\t#{pane_id}\t#{pane_pid}\t#{pane_pipe}\t#{pane_dead}\t'";

/** Every pane of the server (the broker's hidden session included: callers filter). */
export async function listPanePipes(run: Run): Promise<PanePipeFacts[]> {
  const reply = await run(LIST_PANES);
  if (!reply.ok) throw new AppError('TMUX_UNAVAILABLE', 'tmux could not list panes');
  const out: PanePipeFacts[] = [];
  for (const line of reply.lines) {
    const split = splitFixed(line, SCAN_FIELDS);
    if (split === null) continue;
    const [pid, sessionId, created, paneId, panePid, piped, dead] = split.fields;
    const serverPid = uint(pid);
    const createdAt = uint(created);
    const pp = uint(panePid);
    if (serverPid === null || createdAt === null || pp === null || !SESSION_ID_RE.test(sessionId ?? '') || !PANE_ID_RE.test(paneId ?? '')) continue;
    out.push({ serverPid, sessionId: sessionId!, created: createdAt, paneId: paneId!, panePid: pp, piped: piped === '1', dead: dead === '1' });
  }
  return out;
}

/**
 * The pipe's shell command: `cat` from the pane into the FIFO.
 * - `[ -p F ] || exit`: never a redirection onto a name that is not our FIFO (it would
 *   create a regular file and put raw output in it).
 * - `3<>F >F 3<&-`: the FIFO is opened for writing WITHOUT blocking. A plain `>F` blocks
 *   until a reader opens it, so a broker gone between sending the pipe and `sh` running
 *   (a SIGKILL) would leave `sh` blocked for good, and tmux would keep the pane's output
 *   for it in memory without bound. Opening it read-write first never blocks (Linux), and
 *   with that descriptor as the reader the write-only open does not either; once it is
 *   closed, `cat` is the FIFO's only writer and the broker its only reader: no broker, and
 *   `cat`'s first write ends it (SIGPIPE), which closes the pipe in tmux.
 */
export function pipeCommand(fifoPath: string): string {
  return `[ -p ${fifoPath} ] || exit 1; exec 3<>${fifoPath} >${fifoPath} 3<&-; exec cat`;
}

const OPENED_FIELDS = 7;

/**
 * Opens the pane's output pipe into `fifoPath` and, in the same write to tmux (so in the
 * same turn of its loop), reads the pane's facts and captures its text: the capture is
 * what the pane showed when the pipe began, and the pipe carries everything after it.
 * The pipe opens first, so a line printed between the two (should tmux ever read them
 * apart) is in both, never in neither. SESSION_NOT_FOUND when the pane is gone or dead.
 */
export async function openPanePipe(runBatch: RunBatch, paneId: string, fifoPath: string, historyLines: number): Promise<OpenedPanePipe> {
  assertPaneId(paneId);
  if (!SAFE_PIPE_PATH_RE.test(fifoPath)) throw new AppError('INTERNAL', 'the transcript pipe path has characters tmux would expand');
  const lines = Math.max(0, Math.min(Math.floor(historyLines), 1_000_000));
  const [piped, facts, captured] = await runBatch([
    { command: `pipe-pane -O -t '${paneId}' '${pipeCommand(fifoPath)}'` },
    { command: `display-message -p -t '${paneId}' '#{pane_id}\t#{pane_pid}\t#{pane_width}\t#{pane_height}\t#{cursor_x}\t#{cursor_y}\t#{pane_dead}\t'` },
    { command: `capture-pane -p -J -t '${paneId}' -S -${lines} -E -`, fenced: true },
  ]);
  if (!piped!.ok) throw new AppError('SESSION_NOT_FOUND', `the pane cannot be piped: ${piped!.lines.join(' ').slice(0, 200)}`);
  const split = facts!.ok ? splitFixed(facts!.lines.join('\n'), OPENED_FIELDS) : null;
  const [id, pid, width, height, cursorX, cursorY, dead] = split?.fields ?? [];
  const n = { pid: uint(pid), width: uint(width), height: uint(height), x: uint(cursorX), y: uint(cursorY) };
  if (id !== paneId || n.pid === null || n.width === null || n.height === null || n.x === null || n.y === null || dead === '1' || !captured!.ok) {
    throw new AppError('SESSION_NOT_FOUND', 'the pane ended while its pipe opened');
  }
  return { paneId, panePid: n.pid, width: n.width, height: n.height, cursorX: n.x, cursorY: n.y, text: captured!.lines.join('\n') };
}

/** Closes whatever pipe the pane has (pipe-pane with no command). Callers close only a
 * pipe they know is theirs (its FIFO has not ended). Errors (pane gone) are ignored. */
export async function closePanePipe(run: Run, paneId: string): Promise<void> {
  assertPaneId(paneId);
  await run(`pipe-pane -t '${paneId}'`, { timeoutMs: 2_000 }).catch(() => undefined);
}
