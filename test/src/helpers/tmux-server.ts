/**
 * An isolated tmux server for tests: its own `-L` socket name, TMUX/TMUX_PANE stripped
 * (tmux follows $TMUX to the enclosing server), `-f /dev/null` so no user config applies,
 * and a check that the socket really is a private one before anything runs on it. Tests
 * never touch the host's default server.
 *
 * Hostile session names, as found on tmux 3.3a:
 * - `new-session -s` and `rename-session` both run the name through format expansion:
 *   `new-session -s 'x#(touch F)y'` RAN the command (F was created) and named the session
 *   `xy`; `rename-session -- 'x#(touch F)y'` also gave `xy`, and `#{session_id}` in a name
 *   became `$6`. So a name is never passed unescaped to either.
 * - Doubling every `#` (`##` expands to a literal `#`) disables expansion completely:
 *   `rename-session -- 'x##(touch F)y'` gives the name `x#(touch F)y` and runs nothing.
 * - On a command line given as argv, an argument ending in `;` is a command separator;
 *   `foo\;` is the literal `foo;` (only the final `;` matters). `--` protects a leading `-`.
 * - tmux itself rewrites some names: `:` and `.` become `_`; tab, newline, backslash and
 *   other non-printables are stored vis-escaped (`\t`, `\n`, `\\`, `\001`, `\177`).
 *   Unicode is kept, but any client without `-u` (or a UTF-8 locale) prints it as `_`.
 * So newSession creates the session under a safe placeholder name, renames it by id with
 * the escaped name, and returns the name tmux stored (read back by id) for the caller to
 * compare.
 *
 * Every command takes its turn with the broker's control clients in this process
 * (identify-gate.ts): tmux 3.3a crashes when a session is created or renamed while a
 * control client is half identified, and a test that did so while an adapter or watcher
 * attaches would test tmux's bug, not ours ("server exited unexpectedly" under load).
 */
import { randomBytes } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { identityOf, signalIdentified, type ProcessIdentity } from '@terminal-mcp/broker/process-identity';
import { identifyGateKey, withIdentifyTurn } from '@terminal-mcp/broker/tmux-identify-gate';
import { execa } from 'execa';

export interface TmuxTestSession {
  sessionId: string;
  paneId: string;
  /** The name as tmux stored it (read back by id). */
  name: string;
}

export interface TmuxTestServer {
  readonly socketName: string;
  readonly socketPath: string;
  /** Runs one tmux command line (argv) on this server; resolves with its stdout. */
  tmux(args: readonly string[], input?: string): Promise<string>;
  /** Creates a detached session with an arbitrary (hostile) name, safely. */
  newSession(name: string, command?: string, size?: { width: number; height: number }): Promise<TmuxTestSession>;
  /** `kill-server` on this socket, waits for the server to exit and removes its socket
   * file (tmux 3.3a leaves it); no error when it is already gone. `leaveSocketFile` keeps
   * the file, for a test of what a stale socket does. */
  kill(options?: { leaveSocketFile?: boolean }): Promise<void>;
}

export interface StartTmuxServerOptions {
  /** Reuse a socket name (to start a server again after `kill()`); default: a new one. */
  socketName?: string;
}

const SOCKET_NAME_RE = /^tmcp-test-[A-Za-z0-9-]+$/;

/** Servers this process started and has not removed yet: name -> socket path. */
const started = new Map<string, string>();
// For the suite's leak guard (leak-guard.ts), which runs after each file without
// importing this module into files that start no tmux server.
(globalThis as Record<symbol, unknown>)[Symbol.for('terminal-mcp.test.tmux-servers')] = () => removeLeftoverTestServers();

/** A unique test socket name. It carries the run's tag (TERMINAL_MCP_TEST_RUN, set by
 * scripts/run-tests.mjs), so the run's leftover check can tell its own sockets from those
 * of another run on the same machine. */
export function testSocketName(label = randomBytes(4).toString('hex')): string {
  const run = process.env.TERMINAL_MCP_TEST_RUN;
  return `tmcp-test-${run && /^[a-z0-9]+$/.test(run) ? `${run}-` : ''}${process.pid}-${label}`;
}

function testEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.TMUX;
  delete env.TMUX_PANE;
  return env;
}

/** Makes text a literal argument for commands that expand formats (`new-session -s`,
 * `rename-session`) when passed as argv: every `#` doubled, a final `;` escaped. */
export function escapeTmuxFormatArgument(text: string): string {
  const escaped = text.replaceAll('#', '##');
  return escaped.endsWith(';') ? `${escaped.slice(0, -1)}\\;` : escaped;
}

export async function startTmuxServer(options: StartTmuxServerOptions = {}): Promise<TmuxTestServer> {
  const socketName = options.socketName ?? testSocketName();
  if (!SOCKET_NAME_RE.test(socketName)) throw new Error(`refusing a test socket name that is not tmcp-test-*: ${socketName}`);
  const env = testEnv();
  let placeholder = 0;

  const turnKey = identifyGateKey(socketName, env);

  const tmux = (args: readonly string[], input?: string): Promise<string> =>
    withIdentifyTurn(turnKey, async () => {
      const argv = ['-L', socketName, '-f', '/dev/null', '-u', ...args];
      const result =
        input === undefined
          ? await execa('tmux', argv, { env, extendEnv: false, stdin: 'ignore' })
          : await execa('tmux', argv, { env, extendEnv: false, input });
      return result.stdout;
    });

  // A server with no session would exit at once: keep it up with exit-empty off.
  await tmux(['start-server', ';', 'set-option', '-s', 'exit-empty', 'off']);
  const socketPath = await tmux(['display-message', '-p', '#{socket_path}']);
  try {
    assertPrivateSocket(socketPath, socketName);
  } catch (err) {
    await execa('tmux', ['-L', socketName, 'kill-server'], { env, extendEnv: false, stdin: 'ignore', reject: false });
    throw err;
  }
  started.set(socketName, socketPath);

  return {
    socketName,
    socketPath,
    tmux,
    async newSession(name, command, size) {
      const safeName = `tmcp-placeholder-${process.pid}-${++placeholder}`;
      const args = ['new-session', '-d', '-P', '-F', '#{session_id}\t#{pane_id}', '-s', safeName];
      if (size !== undefined) args.push('-x', String(size.width), '-y', String(size.height));
      if (command !== undefined) args.push(command);
      const created = await tmux(args);
      const [sessionId, paneId] = created.split('\t');
      if (sessionId === undefined || paneId === undefined || !/^\$\d+$/.test(sessionId) || !/^%\d+$/.test(paneId)) {
        throw new Error(`unexpected new-session output: ${created}`);
      }
      // One invocation: a lone `;` argument separates the two commands (the escaped name
      // itself can only end in `\;`, which is literal).
      const stored = await tmux([
        'rename-session',
        '-t',
        sessionId,
        '--',
        escapeTmuxFormatArgument(name),
        ';',
        'display-message',
        '-p',
        '-t',
        sessionId,
        '#{session_name}',
      ]);
      return { sessionId, paneId, name: stored };
    },
    async kill(options) {
      await killServer(socketName, socketPath, env);
      if (!options?.leaveSocketFile) removeSocketFile(socketName, socketPath);
    },
  };
}

async function killServer(socketName: string, socketPath: string, env: NodeJS.ProcessEnv): Promise<void> {
  // -S: exactly the socket this helper made and checked, whatever TMUX_TMPDIR says now.
  const pid = await execa('tmux', ['-S', socketPath, '-N', 'display-message', '-p', '#{pid}'], { env, extendEnv: false, stdin: 'ignore', reject: false });
  const serverPid = Number(pid.stdout);
  // Recorded while the server still runs: once it exits, its descendants are reparented
  // and nothing ties them to it any more.
  const panes = descendantsOf(serverPid);
  await execa('tmux', ['-S', socketPath, 'kill-server'], { env, extendEnv: false, stdin: 'ignore', reject: false });
  // kill-server returns before the server has exited; a server started on the same
  // socket meanwhile would meet the dying one ("server exited unexpectedly").
  await waitForExit(serverPid);
  // kill-server hangs up each pane's terminal, but not a terminal a pane process opened
  // itself: under `script -qc cmd`, cmd and its children outlived the server (and the run)
  // with script waiting above them. Whatever the server started is ours: end each process
  // still running, and only while it is still the one recorded (pid and start time).
  for (const id of panes) signalIdentified(id, 'SIGKILL');
}

/** Every process below `rootPid` (children, their children, ...), with its identity. */
function descendantsOf(rootPid: number): ProcessIdentity[] {
  if (!Number.isSafeInteger(rootPid) || rootPid <= 1) return [];
  const children = new Map<number, number[]>();
  let pids: number[];
  try {
    pids = readdirSync('/proc').map(Number).filter((n) => Number.isSafeInteger(n) && n > 1);
  } catch {
    return []; // no /proc: nothing can be proven ours
  }
  for (const child of pids) {
    try {
      const stat = readFileSync(`/proc/${child}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), child]);
    } catch {
      /* gone meanwhile */
    }
  }
  const found: ProcessIdentity[] = [];
  for (let queue = [...(children.get(rootPid) ?? [])]; queue.length > 0; ) {
    const next = queue.shift()!;
    const id = identityOf(next);
    if (id) found.push(id);
    queue = queue.concat(children.get(next) ?? []);
  }
  return found;
}

/** tmux 3.3a leaves its socket file when the server exits: remove it (only ours, only a socket). */
function removeSocketFile(socketName: string, socketPath: string): void {
  started.delete(socketName);
  try {
    if (basename(socketPath) === socketName && SOCKET_NAME_RE.test(socketName) && lstatSync(socketPath).isSocket()) unlinkSync(socketPath);
  } catch {
    /* already gone */
  }
}

/**
 * After a test file: the servers it started and did not remove. A server still running was
 * forgotten by the test (killed here, and named, so the leak gets fixed where it is); the
 * socket file of one that ended otherwise (`kill-server` through its own tmux commands, a
 * crash) is removed. Called by the suite's leak guard (leak-guard.ts) after each file.
 */
export async function removeLeftoverTestServers(): Promise<string[]> {
  const forgotten: string[] = [];
  for (const [socketName, socketPath] of [...started]) {
    const env = testEnv();
    const alive = await execa('tmux', ['-S', socketPath, '-N', 'list-sessions'], { env, extendEnv: false, stdin: 'ignore', reject: false });
    if (alive.exitCode === 0 || !/no server running|error connecting/.test(alive.stderr)) {
      forgotten.push(socketName);
      await killServer(socketName, socketPath, env);
    }
    removeSocketFile(socketName, socketPath);
  }
  return forgotten;
}

/** Resolves once the process is gone or a zombie (where nobody reaps orphans, as in
 * some containers, an exited tmux server stays a zombie). */
async function waitForExit(pid: number): Promise<void> {
  if (!Number.isSafeInteger(pid) || pid <= 0) return;
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      return;
    }
    if (/^\d+ \(.*\) Z/s.test(stat)) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The socket must be ours: named after our unique socket name, in a directory only
 * this user can enter (tmux's /tmp/tmux-UID is 0700), never the default server. If
 * TMUX_TMPDIR names a missing directory tmux falls back to /tmp/tmux-UID; the name
 * check still holds there. */
function assertPrivateSocket(socketPath: string, socketName: string): void {
  if (basename(socketPath) !== socketName || basename(socketPath) === 'default') {
    throw new Error(`tmux test server is not on its private socket: ${socketPath}`);
  }
  const dir = statSync(dirname(socketPath));
  const uid = process.getuid?.();
  if ((dir.mode & 0o077) !== 0 || (uid !== undefined && dir.uid !== uid)) {
    throw new Error(`tmux socket directory is not private: ${dirname(socketPath)}`);
  }
}
