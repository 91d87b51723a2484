/**
 * Re-reads, by pane id, everything the input path decides on: the identity tuple
 * (tmux server pid, session id and creation time, pane id and pid) plus the facts a gate
 * or a delivery check needs now (copy mode, cursor, foreground command, session name).
 * One `display-message -p` call: the values are one consistent snapshot of the server,
 * through the broker's persistent control client where it is connected (the adapter's
 * `readPaneIdentity`: no process spawned), else by spawning tmux.
 *
 * Parsing follows the adapter's rule: fixed fields first, the one free-form field
 * (`pane_current_command`, which a process controls and tmux does not escape) last.
 * `session_name` may sit among the fixed fields because tmux stores it escaped: it can
 * never contain the tab separator or a newline.
 */
import { AppError } from '@terminal-mcp/contract';
import { SESSION_ID_RE, assertPaneId, splitFixed, uint } from './format.js';
import type { PaneIdentity } from '../../policy/identity.js';
import type { TmuxCommandRunner } from './tmux-command.js';

/** The pane's identity (policy/identity.ts) plus the facts a gate or a delivery check
 * reads with it, in one snapshot. */
export interface PaneIdentityFacts extends PaneIdentity {
  sessionName: string;
  inMode: boolean;
  cursorX: number;
  cursorY: number;
  height: number;
  /** Lines scrolled off the top into history: `historySize + cursorY` is the cursor's
   * absolute line, which grows when output scrolls the screen. */
  historySize: number;
  currentCommand: string;
}

const FIXED_FIELDS = 11;
const IDENTITY_FORMAT =
  '#{pid}\t#{session_id}\t#{session_created}\t#{pane_id}\t#{pane_pid}\t#{pane_in_mode}\t#{cursor_x}\t#{cursor_y}\t#{pane_height}\t#{history_size}\t#{session_name}\t#{pane_current_command}';

export function parsePaneIdentity(paneId: string, stdout: string): PaneIdentityFacts | null {
  const split = splitFixed(stdout, FIXED_FIELDS);
  if (split === null) return null;
  const [pid, sessionId, createdText, id, panePid, inMode, cursorX, cursorY, height, history, sessionName] = split.fields;
  // A missing pane answers with the server pid and empty pane fields.
  if (id !== paneId || sessionId === undefined || !SESSION_ID_RE.test(sessionId)) return null;
  const serverPid = uint(pid);
  const created = uint(createdText);
  const panePidValue = uint(panePid);
  const x = uint(cursorX);
  const y = uint(cursorY);
  const h = uint(height);
  const historySize = uint(history);
  if (historySize === null || serverPid === null || created === null || panePidValue === null || x === null || y === null || h === null) return null;
  return {
    serverPid,
    sessionId,
    created,
    sessionName: sessionName ?? '',
    paneId,
    panePid: panePidValue,
    inMode: inMode === '1',
    cursorX: x,
    cursorY: y,
    height: h,
    historySize,
    currentCommand: split.rest.replace(/\n$/, ''),
  };
}

/** The pane's identity and input facts now; null when the pane (or the server) is gone. */
export async function readPaneIdentity(runner: TmuxCommandRunner, paneId: string): Promise<PaneIdentityFacts | null> {
  assertPaneId(paneId);
  const result = await runner.run(['display-message', '-p', '-t', paneId, IDENTITY_FORMAT]);
  if (result.timedOut) throw new AppError('TMUX_UNAVAILABLE', 'tmux did not answer in time');
  if (result.exitCode !== 0) {
    // The pane or the whole server is gone: the identity no longer exists.
    if (/can't find|no server running|error connecting|no such file/i.test(result.stderr)) return null;
    throw new AppError('TMUX_UNAVAILABLE', 'tmux could not read the pane');
  }
  return parsePaneIdentity(paneId, result.stdout);
}

/** A control-mode command runner (control-client.ts `run`). */
type ControlRun = (command: string, options?: { fenced?: boolean }) => Promise<{ readonly ok: boolean; readonly lines: readonly string[] }>;

/** The same read through the control client. Fenced: the last field is chosen by the
 * pane's process and may hold a newline and a line that looks like a reply's end. */
export async function readPaneIdentityByControl(run: ControlRun, paneId: string): Promise<PaneIdentityFacts | null> {
  assertPaneId(paneId);
  const reply = await run(`display-message -p -t '${paneId}' '${IDENTITY_FORMAT}'`, { fenced: true });
  if (!reply.ok) {
    if (reply.lines.some((l) => l.startsWith("can't find"))) return null;
    throw new AppError('TMUX_UNAVAILABLE', 'tmux could not read the pane');
  }
  return parsePaneIdentity(paneId, reply.lines.join('\n'));
}
