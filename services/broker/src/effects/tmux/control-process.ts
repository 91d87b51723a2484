/**
 * One `tmux -C` child process: spawned with argv (never a shell) and an environment
 * without TMUX/TMUX_PANE, stdout delivered as text chunks, stdin writes coalesced per tick,
 * stderr kept (capped) for the log and for classifying why the client ended, and one
 * way to end it: close stdin (tmux detaches the client on EOF), then SIGTERM and finally
 * SIGKILL if it lingers, each escalation armed once, and never before tmux has identified
 * the client (its first output), because a control client that leaves mid-identify can
 * crash tmux 3.3a. If the broker dies first, the kernel
 * ends the client (death-signal.ts).
 *
 * What the bytes mean is control-protocol.ts's business; what to do when the process
 * ends is the client's (control-client.ts, pane-watch.ts).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { AppError } from '@terminal-mcp/contract';
import { deathSignalLauncher } from './death-signal.js';
import { acquireIdentifyTurn, acquireSettledIdentifyTurn } from './identify-gate.js';

const SOCKET_NAME_RE = /^[A-Za-z0-9_.-]{1,100}$/;
const MAX_STDERR_CHARS = 2_000;
/** A client asked to stop that tmux has still not identified after this long is wedged:
 * it is killed rather than left behind (sized for a machine far slower than ours). */
const IDENTIFY_GIVE_UP_MS = 60_000;
/** How long a process's stdio may outlive its exit before its holder is ended
 * (ControlProcessOptions.endStdioHolder): a remote tmux client that reads its input's end
 * leaves well within it, even on a busy machine. */
const STDIO_LINGER_MS = 10_000;
/** After the holder was ended, how long before our side of the streams is closed anyway. */
const STDIO_LAST_WAIT_MS = 30_000;
/** setpriv's exit status when it cannot exec the command. */
const EXEC_FAILED = 127;

/** The environment of every tmux spawn: without TMUX/TMUX_PANE, which tmux would follow
 * to the enclosing server instead of the one -L names. */
export function tmuxEnvironment(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env = { ...base };
  delete env.TMUX;
  delete env.TMUX_PANE;
  return env;
}

/** Global tmux flags for every spawn: `-L` when a socket name is configured, `-N` so no
 * command the broker runs ever starts a tmux server (the server is the user's), `-u` so
 * tmux treats the client as UTF-8 (otherwise it replaces every non-ASCII byte of a reply,
 * such as a unicode session name, with `_`). */
export function tmuxGlobalArgs(socketName: string | undefined, configFile?: string): string[] {
  const args: string[] = [];
  if (socketName !== undefined) {
    if (!SOCKET_NAME_RE.test(socketName) || socketName.startsWith('-')) {
      throw new AppError('INVALID_ARGUMENT', 'invalid tmux socket name');
    }
    args.push('-L', socketName);
  }
  if (configFile !== undefined) args.push('-f', configFile);
  args.push('-N', '-u');
  return args;
}

export interface ControlProcessOptions {
  tmuxPath: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  onData(chunk: string): void;
  /** Called once, when the process has ended or could not be started (`startFailed`).
   * `why` is tmux's stderr when it said anything, else how it ended. */
  onEnd(why: string, startFailed: boolean): void;
  /** identify-gate.ts key of the server: the process is spawned in our turn, which lasts
   * until its first output (tmux writes to a control client only once it is identified)
   * or its end. Writes, stop and kill before the spawn are honoured. */
  identifyTurn?: string;
  /** Ends whatever still holds the process's stdio after it exited. A node's ssh client
   * hands its stdin/stdout/stderr to the node's master connection, which keeps them while
   * the remote end holds the channel; until they close, 'close' does not come, and with it
   * neither the end nor the identify turn (held until then so that no client of ours
   * identifies while the old one may still be identifying or leaving). A client killed
   * before identifying, whose remote tmux client never left, kept the node's turn for good
   * (nodes down "connection timed out" forever at load 6-13). Called once, STDIO_LINGER_MS
   * after an exit that 'close' has not followed; for a node it ends the master connection,
   * which drops the remote end (its tmux client then sees its input end and its output
   * fail, as after a lost link). */
  endStdioHolder?: () => Promise<void>;
}

export interface ControlProcess {
  /** Queues text for stdin; everything queued in one tick goes out in one write. */
  write(text: string): void;
  /** stderr so far (capped), for classifying why tmux ended the client. */
  stderr(): string;
  /** Stops delivering stdout (the client has given up on the stream). */
  ignoreOutput(): void;
  /** Closes stdin (tmux detaches the client), SIGTERM after `termAfterMs`, SIGKILL 2 s
   * after that. Idempotent; resolves when the process has exited. With `identifyTurn`, the
   * client leaves in our turn (held until it has exited), unless the caller already holds
   * that turn (`inTurn`). */
  stop(termAfterMs: number, opts?: { inTurn?: boolean }): Promise<void>;
  /** SIGTERM now (SIGKILL 2 s later if still alive). */
  kill(): void;
  readonly exited: Promise<void>;
}

export function spawnControlProcess(options: ControlProcessOptions): ControlProcess {
  let ended = false;
  const end = (why: string, startFailed = false) => {
    if (ended) return;
    ended = true;
    options.onEnd(why, startFailed);
  };
  let child: ChildProcessWithoutNullStreams | undefined;
  /** stop() or kill() before the spawn: the process is never started. */
  let cancelled = false;
  let resolveExited!: () => void;
  const exited = new Promise<void>((resolve) => (resolveExited = resolve));
  let releaseTurn: () => void = () => {};
  let stderr = '';
  let outBuffer = '';
  let flushScheduled = false;
  let delivering = true;
  let termTimer: NodeJS.Timeout | undefined;
  let killTimer: NodeJS.Timeout | undefined;
  let lingerTimer: NodeJS.Timeout | undefined;
  let stdioClosed = false;
  /** Whether tmux has written to the client: it can only once the client is identified. */
  let identified = false;
  /** A stop asked for while the client was still identifying, carried out on its first
   * output (tmux 3.3a can crash when a control client leaves mid-identify, identify-gate.ts). */
  let stopWhenIdentified: number | undefined;
  let identifyingTimer: NodeJS.Timeout | undefined;
  /** The client leaves holding an identify turn, released when it has exited. */
  let leavingInTurn = false;
  const running = () => child !== undefined && child.exitCode === null && child.signalCode === null;

  const flush = () => {
    flushScheduled = false;
    if (outBuffer === '' || child === undefined || !child.stdin.writable) return;
    child.stdin.write(outBuffer);
    outBuffer = '';
  };

  const start = () => {
    if (cancelled) {
      releaseTurn();
      resolveExited();
      return;
    }
    let c: ChildProcessWithoutNullStreams;
    let launched = false;
    try {
      // Through `setpriv --pdeathsig` where there is one, so the client ends with us (death-signal.ts).
      const prefix = deathSignalLauncher();
      launched = prefix.length > 0;
      const [launch, ...launchArgs] = [...prefix, options.tmuxPath, ...options.args] as [string, ...string[]];
      c = spawn(launch, launchArgs, { env: options.env, cwd: '/', stdio: 'pipe' });
    } catch (err) {
      releaseTurn();
      resolveExited();
      // Reported asynchronously, like every other end.
      queueMicrotask(() => end(`tmux could not be started: ${(err as Error).message}`, true));
      return;
    }
    child = c;
    c.stdout.setEncoding('utf8');
    c.stdout.on('data', (chunk: string) => {
      if (!identified) {
        identified = true;
        if (identifyingTimer !== undefined) clearTimeout(identifyingTimer);
        if (stopWhenIdentified !== undefined) {
          // Asked to stop while identifying: leave in the turn it identified in, so no
          // other client of ours is half identified when tmux announces the detach.
          leavingInTurn = true;
          void exited.then(releaseTurn);
          leaveNow(stopWhenIdentified);
        } else releaseTurn();
      }
      if (delivering) options.onData(chunk);
    });
    c.stderr.setEncoding('utf8');
    c.stderr.on('data', (chunk: string) => {
      if (stderr.length < MAX_STDERR_CHARS) stderr = (stderr + chunk).slice(0, MAX_STDERR_CHARS);
    });
    c.stdin.on('error', () => {
      // EPIPE when tmux is gone: the close handler reports it.
    });
    c.once('error', (err) => {
      releaseTurn();
      end(`tmux could not be started: ${err.message}`, true);
    });
    c.once('exit', () => {
      const endHolder = options.endStdioHolder;
      if (endHolder === undefined) return;
      lingerTimer = setTimeout(() => {
        void endHolder()
          .catch(() => {})
          .then(() => {
            if (stdioClosed) return;
            // The holder could not be ended: close our side so the end is reported at last.
            lingerTimer = setTimeout(() => {
              for (const stream of [c.stdin, c.stdout, c.stderr]) stream.destroy();
            }, STDIO_LAST_WAIT_MS);
            lingerTimer.unref();
          });
      }, STDIO_LINGER_MS);
      lingerTimer.unref();
    });
    c.once('close', (code, signal) => {
      stdioClosed = true;
      if (lingerTimer !== undefined) clearTimeout(lingerTimer);
      releaseTurn();
      resolveExited();
      if (identifyingTimer !== undefined) clearTimeout(identifyingTimer);
      if (termTimer !== undefined) clearTimeout(termTimer);
      if (killTimer !== undefined) clearTimeout(killTimer);
      // setpriv could not exec tmux (not installed, not executable): what spawn reports
      // as an error when tmux is started directly.
      if (launched && code === EXEC_FAILED && stderr.startsWith('setpriv:')) end(`tmux could not be started (exit ${EXEC_FAILED})`, true);
      else end(stderr.trim() || `tmux control client exited (${signal ?? `code ${String(code)}`})`);
    });
    if (outBuffer !== '') flush();
  };

  const kill = () => {
    if (child === undefined) {
      cancelled = true;
      return;
    }
    if (!running()) return;
    if (killTimer === undefined) {
      child.kill('SIGTERM');
      killTimer = setTimeout(() => {
        if (running()) child?.kill('SIGKILL');
      }, 2_000);
      killTimer.unref();
    }
  };

  /** Closes stdin: tmux detaches the client (SIGTERM after `termAfterMs` if it lingers). */
  const leaveNow = (termAfterMs: number) => {
    if (!running() || child === undefined) return;
    flush();
    child.stdin.end();
    if (termTimer === undefined && killTimer === undefined) {
      termTimer = setTimeout(kill, termAfterMs);
      termTimer.unref();
    }
  };

  const stopNow = (termAfterMs: number, inTurn: boolean) => {
    if (!running() || child === undefined) return;
    if (!identified) {
      // Still identifying: leaving now could take the user's server down. Leave once tmux
      // has written (it then knows the client), or kill a client that never gets there.
      stopWhenIdentified = termAfterMs;
      identifyingTimer ??= setTimeout(kill, IDENTIFY_GIVE_UP_MS);
      identifyingTimer.unref();
      return;
    }
    if (options.identifyTurn === undefined || inTurn || leavingInTurn) {
      leaveNow(termAfterMs);
      return;
    }
    // tmux 3.3a writes `%client-detached` to every control client when one leaves, and
    // crashes on a client that is half identified (NULL control state, identify-gate.ts):
    // so ours leave in a turn of their own, never while another of ours identifies.
    leavingInTurn = true;
    void acquireIdentifyTurn(options.identifyTurn).then((release) => {
      void exited.then(release);
      leaveNow(termAfterMs);
    });
  };

  if (options.identifyTurn === undefined) start();
  else {
    void acquireSettledIdentifyTurn(options.identifyTurn).then((release) => {
      releaseTurn = release;
      start();
    });
  }

  let stopping: Promise<void> | undefined;
  return {
    write(text) {
      outBuffer += text;
      if (!flushScheduled) {
        flushScheduled = true;
        queueMicrotask(flush);
      }
    },
    stderr: () => stderr,
    ignoreOutput() {
      delivering = false;
      // Keep draining: a full pipe would block tmux's writes to this client.
      child?.stdout.resume();
    },
    stop(termAfterMs, opts) {
      stopping ??= (async () => {
        if (child === undefined) {
          // Not spawned yet: never spawn it.
          cancelled = true;
        } else stopNow(termAfterMs, opts?.inTurn === true);
        await exited;
      })();
      return stopping;
    },
    kill,
    exited,
  };
}
