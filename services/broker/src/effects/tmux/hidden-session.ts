/**
 * The broker's own session inside the USER's tmux server, which the command client
 * (control-client.ts) stays attached to. tmux belongs to the user, so:
 *
 * - The broker never starts a server: every tmux it spawns runs with `-N` (see
 *   tmuxGlobalArgs), and with no server, calls answer TMUX_UNAVAILABLE with NO_SERVER_HINT
 *   while the client waits for one (server-socket.ts).
 * - Why a hidden session, and not `attach -t <a user session> -f
 *   ignore-size,no-output,read-only`: a control client exits unless attached to a
 *   session, and attaching to a user's session bumps its `session_activity`, runs its
 *   `client-attached` hooks, counts as a focused client (a program that asked for focus
 *   reports gets `ESC [ I`), and ties our connection to that session's life
 *   (docs/architecture.md section 6). A session of our own touches no user session.
 * - It is created detached by a one-shot client, then attached in control mode by exact
 *   name: two control clients running `new-session -A` for the same new name at once
 *   crash the tmux 3.3a server (reproduced here, about 1 in 6 tries; two brokers starting
 *   together, or a restart racing a dying broker, would do that to the user's server).
 *   Concurrent detached creations just answer "duplicate session", which is also how a
 *   session a crashed broker left is found and reused: there is only ever one.
 * - It goes when its broker dies, even by SIGKILL, because its pane's process is a loop
 *   that exits once the broker's pid is gone (ownerPaneCommands); the window's
 *   `remain-on-exit` is off, so the session closes with that pane a moment later. Not
 *   `destroy-unattached`: with it, the session was destroyed at the very moment every
 *   client of the dead broker (the command client and each output watcher) disconnected,
 *   and tmux 3.3a segfaults on that (reproduced here: 20 watchers, 4 SIGKILLs of 4 took
 *   the user's server down; 0 of 4 without it). The loop lets the clients go first.
 *   A hidden session found at connect (a crashed broker's, or one from an older version
 *   whose pane runs `cat`) gets the loop for this broker, so it goes with this one.
 * - When it is the only session left and the server would exit without it (`exit-empty`,
 *   tmux's default), the client leaves, so the user's server ends with the user's last
 *   session instead of living on because of us; the client then waits for a new server.
 *   It leaves (and closes) by killing the hidden session first (hiddenSessionRemoval),
 *   before its client exits, for the same reason: tmux 3.3a crashes when a session is
 *   destroyed under a client that is still exiting while another client disconnects.
 * - Our control clients identify one at a time and never while we change sessions
 *   (identify-gate.ts): tmux 3.3a crashes when a session changes meanwhile.
 *   With `exit-empty off` the server lives on without us anyway, and we stay.
 *   (Not handled: `exit-unattached on`, where our attached client alone keeps a server
 *   with detached user sessions alive.)
 */
import { SESSION_ID_RE } from './format.js';
import type { TmuxCommandRunner } from './tmux-command.js';

/** Fixed, never user-derived. A user session with this exact name would be treated as
 * ours (hidden from listings); the name is reserved. */
export const HIDDEN_SESSION_NAME = '__terminal_mcp_control';

/** What a caller is told while no tmux server runs (or only our hidden session was left). */
export const NO_SERVER_HINT =
  'No tmux server is running for the broker. Start tmux, e.g. `tmux new -s agent-1` (with `-L <name>` when TERMINAL_MCP_TMUX_SOCKET is set); the broker attaches when a server appears.';

/** How tmux 3.3a says that no server listens on the socket. */
const NO_SERVER_RE = /no server running|error connecting to|server exited unexpectedly/i;

export function isNoServerMessage(why: string): boolean {
  return NO_SERVER_RE.test(why);
}

/** The control client's command line after the global args. `=`: exactly this name,
 * never a user session it is a prefix of. Never resizes a window, never gets output. */
export const ATTACH_HIDDEN_SESSION_ARGS = ['-C', 'attach-session', '-t', `=${HIDDEN_SESSION_NAME}`, '-f', 'ignore-size,no-output'];

/** Creates the hidden session detached, or finds it; returns why not, or null. The
 * pane's process, `cat`, waits forever on a terminal nobody types into. */
export async function ensureHiddenSession(runner: TmuxCommandRunner, timeoutMs: number): Promise<string | null> {
  const created = await runner.run(['new-session', '-d', '-s', HIDDEN_SESSION_NAME, '-x', '80', '-y', '24', 'cat'], { timeoutMs });
  if (created.exitCode === 0 || created.stderr.includes('duplicate session')) return null;
  return created.stderr.trim() || (created.timedOut ? 'timed out creating the hidden session' : 'tmux could not be started');
}

interface Reply {
  readonly ok: boolean;
  readonly lines: readonly string[];
}
type Run = (command: string, options?: { timeoutMs?: number }) => Promise<Reply>;

/** The first command after the attach: who we are attached to. */
export const HANDSHAKE_COMMAND = "display-message -p '#{pid}\t#{session_id}\t#{session_name}'";

/** Server pid and hidden session id from the handshake, or null when the client is not
 * attached to the hidden session (then the connection is dropped). */
export function parseHandshake(reply: Reply): { serverPid: number; hiddenSessionId: string } | null {
  const [pidText, sessionId = '', name] = (reply.lines[0] ?? '').split('\t');
  const pid = Number(pidText);
  if (!reply.ok || !Number.isSafeInteger(pid) || pid <= 0 || !SESSION_ID_RE.test(sessionId) || name !== HIDDEN_SESSION_NAME) return null;
  return { serverPid: pid, hiddenSessionId: sessionId };
}

/** How often the hidden pane's loop looks for its broker: how long the hidden session can
 * outlive a broker that died without closing. */
export const OWNER_CHECK_SECONDS = 2;

/** Run right after the handshake: the hidden pane becomes a loop that ends when the
 * process `ownerPid` (this broker) has gone, and the session closes with it. argv form
 * (`sh -c <script>` as three arguments), so tmux executes `sh` itself and never the
 * user's default-shell, whose syntax may differ. `kill -0` asks without signalling; the
 * broker runs as the tmux server's user, so only a gone pid fails it. A pid the server
 * cannot see at all (the broker in another pid namespace: its pid is alive when this
 * runs) falls back to `cat`, which never ends: a leftover session after a crash, never a
 * session that closes at once and is recreated again and again. */
export function ownerPaneCommands(hiddenSessionId: string, ownerPid: number): string[] {
  if (!Number.isSafeInteger(ownerPid) || ownerPid <= 0) throw new Error(`not a pid: ${ownerPid}`);
  const loop = `kill -0 ${ownerPid} 2>/dev/null || exec cat; while kill -0 ${ownerPid} 2>/dev/null; do sleep ${OWNER_CHECK_SECONDS}; done`;
  return [`set-option -w -t '${hiddenSessionId}' remain-on-exit off`, `respawn-pane -k -t '${hiddenSessionId}' sh -c '${loop}'`];
}

/** True when the hidden session is the only one and the server would exit without it. */
export async function onlyHiddenSessionKeepsServer(run: Run, hiddenSessionId: string): Promise<boolean> {
  const [sessions, exitEmpty] = await Promise.all([run("list-sessions -F '#{session_id}'"), run('show-options -sv exit-empty')]);
  return sessions.ok && sessions.lines.every((id) => id === hiddenSessionId) && exitEmpty.ok && exitEmpty.lines[0] !== 'off';
}

/** The command that removes the hidden session on close, or null when another broker is
 * attached to it too (it then stays for that one). */
export async function hiddenSessionRemoval(run: Run, hiddenSessionId: string): Promise<string | null> {
  const reply = await run(`display-message -p -t '${hiddenSessionId}' '#{session_attached}'`, { timeoutMs: 2_000 });
  return reply.ok && reply.lines[0] === '1' ? `kill-session -t '${hiddenSessionId}'` : null;
}
