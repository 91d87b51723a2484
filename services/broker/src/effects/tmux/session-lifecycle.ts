/**
 * Creates, kills and resizes tmux sessions for launch profiles (lifecycle/). Security
 * assumptions, each enforced here or before:
 * - The command is the operator's profile argv, given to `new-session` after `--` as
 *   separate arguments, so tmux execs it without a shell. No client text is in it.
 * - The session name and cwd were checked by policy/launch.ts: the name is letters,
 *   digits, `_` and `-` (tmux format-expands `-s`; `#(...)` would run a command), the cwd
 *   has no `#`. Every argument passes tmux-command.ts's check (printable, no trailing `;`).
 * - Sessions are then addressed by id (`$3`) only. A kill is conditional inside tmux on
 *   the session's creation time (`if-shell -F` evaluated in the same server step), so a
 *   session that was replaced under the same id (a restarted server) is never killed.
 * - Inside the if-shell command string the id is single-quoted: tmux's parser would read
 *   an unquoted `$3` as an environment variable.
 * - Creating and killing take their turn with the broker's control clients
 *   (identify-gate.ts): tmux 3.3a crashes when a session changes while one of them is
 *   half identified.
 * - Resizing sets one window's size; the broker's own control clients attach with
 *   `ignore-size`, so they neither resize nor are counted in sizing.
 */
import { AppError } from '@terminal-mcp/contract';
import { tmuxEnvironment } from './control-process.js';
import { assertSessionId, uint } from './format.js';
import { identifyGateKey, noteSessionChange, withIdentifyTurn } from './identify-gate.js';
import { createTmuxCommandRunner, type TmuxCommandRunner } from './tmux-command.js';

export interface NewSessionSpec {
  name: string;
  cwd: string;
  width: number;
  height: number;
  env: Readonly<Record<string, string>>;
  command: readonly string[];
}

export interface CreatedSession {
  serverPid: number;
  sessionId: string;
  sessionCreated: number;
  paneId: string;
  panePid: number;
}

/** `no_answer`: tmux (or the ssh link to a node's tmux) gave no answer in time, so the
 * session may or may not exist now. */
export type CreateOutcome = { ok: true; session: CreatedSession } | { ok: false; reason: 'duplicate' | 'failed' | 'no_answer'; detail: string };

export interface SessionLifecycleTmux {
  create(spec: NewSessionSpec): Promise<CreateOutcome>;
  /** Kills the session only if it is still the one created at `created`; true when it
   * was killed by this call, false when tmux answered that it was not. Throws
   * TMUX_UNAVAILABLE when tmux gave no answer (whether it was killed is unknown). */
  kill(sessionId: string, created: number): Promise<boolean>;
  /** Sets the size of the session's current window; false when tmux refused. */
  resize(sessionId: string, width: number, height: number): Promise<boolean>;
}

const CREATED_FORMAT = '#{pid} #{session_id} #{session_created} #{pane_id} #{pane_pid}';

function parseCreated(stdout: string): CreatedSession | null {
  const [pid, sessionId, created, paneId, panePid] = stdout.trim().split(' ');
  const serverPid = uint(pid);
  const sessionCreated = uint(created);
  const pp = uint(panePid);
  if (serverPid === null || sessionCreated === null || pp === null || !/^\$\d+$/.test(sessionId ?? '') || !/^%\d+$/.test(paneId ?? '')) return null;
  return { serverPid, sessionId: sessionId!, sessionCreated, paneId: paneId!, panePid: pp };
}

const positive = (n: number, max: number) => {
  if (!Number.isSafeInteger(n) || n <= 0 || n > max) throw new Error('size out of range');
  return String(n);
};

export function createSessionLifecycleTmux(
  options: {
    socketName?: string | undefined;
    runner?: TmuxCommandRunner;
    /** identify-gate.ts key of the server the runner reaches (a node's transport's
     * `identifyKey`); default: this host's server under `socketName`. */
    identifyKey?: string;
  } = {},
): SessionLifecycleTmux {
  const runner = options.runner ?? createTmuxCommandRunner({ socketName: options.socketName });
  const gateKey = options.identifyKey ?? identifyGateKey(options.socketName, tmuxEnvironment());
  const changingSessions = <T>(fn: () => Promise<T>): Promise<T> =>
    withIdentifyTurn(gateKey, async () => {
      try {
        return await fn();
      } finally {
        noteSessionChange(gateKey);
      }
    });
  return {
    async create(spec) {
      const env = Object.entries(spec.env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
      const ran = await changingSessions(() => runner.run([
        'new-session',
        '-d',
        '-P',
        '-F',
        CREATED_FORMAT,
        '-s',
        spec.name,
        '-c',
        spec.cwd,
        '-x',
        positive(spec.width, 500),
        '-y',
        positive(spec.height, 200),
        ...env,
        '--',
        ...spec.command,
      ]));
      if (ran.timedOut) return { ok: false, reason: 'no_answer', detail: ran.stderr.slice(0, 200) };
      if (ran.exitCode !== 0) {
        return { ok: false, reason: /duplicate session/i.test(ran.stderr) ? 'duplicate' : 'failed', detail: ran.stderr.slice(0, 200) };
      }
      const session = parseCreated(ran.stdout);
      return session ? { ok: true, session } : { ok: false, reason: 'failed', detail: 'tmux did not report the new session' };
    },

    async kill(sessionId, created) {
      assertSessionId(sessionId);
      const ran = await changingSessions(() => runner.run(['if-shell', '-F', '-t', sessionId, `#{==:#{session_created},${positive(created, Number.MAX_SAFE_INTEGER)}}`, `kill-session -t '${sessionId}'`, 'display-message -p tmcp-not-killed']));
      if (ran.timedOut) throw new AppError('TMUX_UNAVAILABLE', 'tmux gave no answer to the kill: the session may or may not be gone');
      return ran.exitCode === 0 && !ran.stdout.includes('tmcp-not-killed');
    },

    async resize(sessionId, width, height) {
      assertSessionId(sessionId);
      const ran = await runner.run(['resize-window', '-t', `${sessionId}:`, '-x', positive(width, 500), '-y', positive(height, 200)]);
      return !ran.timedOut && ran.exitCode === 0;
    },
  };
}
