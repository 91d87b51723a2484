/**
 * One persistent tmux control-mode client (`tmux -C`): commands go to its stdin, replies
 * come back as `%begin <time> <number> <flags>` ... `%end`/`%error` blocks, in the order
 * the commands were written, each matched to the head of a FIFO queue and checked by its
 * command number. ~0.3-0.6 ms per command instead of ~4 ms for spawning `tmux`.
 *
 * Server lifecycle (a deliberate choice): a control client exits unless it is attached to
 * a session, so on connect we run `new-session -A -s __terminal_mcp_control` — attach to
 * the hidden session, or create it, and the server with it when none is running. That is
 * what lets the broker discover sessions the operator creates later on a fresh machine;
 * the price is that while the broker runs, the hidden session keeps a server alive (and
 * a server the operator kills is started again on the next reconnect). `close()` kills
 * only the hidden session, so a server we started alone exits with it (`exit-empty`).
 *
 * The client never resizes anyone's window and never receives pane output: it attaches
 * with `-f ignore-size,no-output` to a session containing only its own window.
 *
 * Stream integrity: command replies are NOT escaped by tmux. `capture-pane -p` writes
 * pane text verbatim, so a pane that displays `%end <time> <number> 1` (time and number
 * are guessable) would end the reply early, and the lines after it could pose as replies
 * to the next commands. Commands that return pane content are therefore run `fenced`: the
 * next stdin line is `display-message -p '<nonce>'`, a per-connection secret plus a
 * counter that no pane can know. Everything up to the fence block (`%begin`, nonce,
 * `%end`) is collected, and the reply is whatever precedes the LAST terminator matching
 * the command's own `%begin` before it: a forged terminator can only appear earlier, in
 * the data, so it is kept as data. Other replies carry only tmux-escaped names, numbers
 * and `pane_current_command` (cut at the first space, so it cannot spell a terminator).
 * Any violation of the protocol (a stray `%end`, text outside a block, a command number
 * going backwards, a command timing out) drops the connection, fails everything pending
 * and reconnects: we never guess where the stream resumes.
 *
 * Blocks with flags 0 are not replies to our commands: the first one answers the attach,
 * later ones carry the output of the user's `after-<command>` hooks (seen on 3.3a with
 * `set-hook -g after-display-message ...`). They are skipped.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { AppError } from '@terminal-mcp/contract';
import { SESSION_ID_RE, silentLogger, type TmuxLogger } from './format.js';

/** Fixed, never user-derived. A user session with this exact name would be treated as
 * ours (hidden from listings); the name is reserved. */
export const HIDDEN_SESSION_NAME = '__terminal_mcp_control';

export type { TmuxLogger };

export interface ControlClientOptions {
  /** `tmux -L <socketName>`; undefined means the user's default server. */
  socketName?: string;
  /** `tmux -f <file>`: only read when this client has to start the server (tests pass
   * /dev/null so a developer's ~/.tmux.conf cannot change what they measure). */
  configFile?: string;
  /** Path of the tmux binary; default `tmux` from PATH. */
  tmuxPath?: string;
  /** Default per-command timeout. */
  commandTimeoutMs?: number;
  /** Upper bound for spawn + attach + handshake. */
  connectTimeoutMs?: number;
  /** Reconnect backoff: starts at initialDelayMs, doubles up to maxDelayMs. */
  reconnect?: { initialDelayMs?: number; maxDelayMs?: number };
  logger?: TmuxLogger;
}

export interface RunOptions {
  timeoutMs?: number;
  /** Set for every command whose reply contains text a pane controls (capture-pane). */
  fenced?: boolean;
}

/** One command's reply: `ok` is false for an `%error` block (lines hold tmux's message). */
export interface ControlReply {
  readonly ok: boolean;
  readonly lines: readonly string[];
}

/** A `%name args` line outside any reply block, e.g. `%sessions-changed`,
 * `%window-renamed @1 bash`. `%output` args stay octal-escaped: see decodeControlOutput. */
export interface ControlNotification {
  /** Without the leading `%`. */
  readonly name: string;
  readonly args: string;
}

export type ControlState = 'connecting' | 'connected' | 'disconnected' | 'closed';

export interface ControlConnection {
  serverPid: number;
  hiddenSessionId: string;
}

const SOCKET_NAME_RE = /^[A-Za-z0-9_.-]{1,100}$/;

/** The environment of every tmux spawn: without TMUX/TMUX_PANE, which tmux would follow
 * to the enclosing server instead of the one -L names. */
export function tmuxEnvironment(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env = { ...base };
  delete env.TMUX;
  delete env.TMUX_PANE;
  return env;
}

/** Global tmux flags for every spawn: `-L` when a socket name is configured, `-u` so tmux
 * treats the client as UTF-8 (otherwise it replaces every non-ASCII byte of a reply, such
 * as a unicode session name, with `_`). */
export function tmuxGlobalArgs(socketName: string | undefined, configFile?: string): string[] {
  const args: string[] = [];
  if (socketName !== undefined) {
    if (!SOCKET_NAME_RE.test(socketName) || socketName.startsWith('-')) {
      throw new AppError('INVALID_ARGUMENT', 'invalid tmux socket name');
    }
    args.push('-L', socketName);
  }
  if (configFile !== undefined) args.push('-f', configFile);
  args.push('-u');
  return args;
}

/** Decodes the octal escapes tmux puts in `%output` data (a backslash and three octal
 * digits, `\134` for a backslash itself) back to bytes. Unused while the client attaches
 * with no-output; here for subscribers that attach to a session's output later. */
export function decodeControlOutput(escaped: string): Buffer {
  const out = Buffer.from(escaped, 'utf8');
  let w = 0;
  for (let r = 0; r < out.length; r++) {
    const c = out[r] as number;
    if (c === 0x5c && r + 3 < out.length && isOctal(out[r + 1]) && isOctal(out[r + 2]) && isOctal(out[r + 3])) {
      out[w++] = (((out[r + 1] as number) - 48) << 6) | (((out[r + 2] as number) - 48) << 3) | ((out[r + 3] as number) - 48);
      r += 3;
    } else {
      out[w++] = c;
    }
  }
  return out.subarray(0, w);
}

function isOctal(c: number | undefined): boolean {
  return c !== undefined && c >= 48 && c <= 55;
}

interface PendingCommand {
  readonly text: string;
  readonly resolve: (reply: ControlReply) => void;
  readonly reject: (err: Error) => void;
  timer: NodeJS.Timeout | undefined;
  /** Timed out: the caller already has its error; the reply is still consumed. */
  abandoned: boolean;
  /** The nonce the fence block after this command's reply must print, or null. */
  readonly fence: string | null;
}

/** Collecting a fenced reply: every line until the fence block is complete. */
interface FenceScan {
  readonly entry: PendingCommand;
  readonly replyNumber: number;
  /** The two lines that can end the fenced command's own reply. */
  readonly endLine: string;
  readonly errorLine: string;
  /** How many of them were seen; more than one means the pane imitated one. */
  terminators: number;
  readonly lines: string[];
  /** Tail of the %begin just before a nonce line: the next line should end that block. */
  fenceTail: string | null;
}

interface Connection {
  readonly child: ChildProcessWithoutNullStreams;
  /** Replies arrive in this order. Index `head` is the oldest; compacted lazily. */
  readonly pending: (PendingCommand | undefined)[];
  head: number;
  /** Nothing may be written before tmux has answered the attach itself: commands read
   * earlier run before the client has a session (seen on 3.3a). */
  attached: boolean;
  outBuffer: string;
  flushScheduled: boolean;
  carry: string;
  /** Tail (`<time> <number> <flags>`) of the open block, or null outside a block. */
  blockTail: string | null;
  /** The open block answers one of our commands (flags 1, or the attach). */
  blockIsReply: boolean;
  fenceScan: FenceScan | null;
  blockLines: string[];
  lastNumber: number;
  info: ControlConnection | null;
  readonly fencePrefix: string;
  fenceCounter: number;
  stderr: string;
  connectTimer: NodeJS.Timeout | undefined;
  exited: Promise<void>;
}

export class TmuxControlClient {
  private readonly opts: {
    socketName: string | undefined;
    configFile: string | undefined;
    tmuxPath: string;
    commandTimeoutMs: number;
    connectTimeoutMs: number;
    initialDelayMs: number;
    maxDelayMs: number;
  };
  private readonly logger: TmuxLogger;
  private readonly env: NodeJS.ProcessEnv;
  private readonly spawnArgs: string[];
  private stateValue: ControlState = 'disconnected';
  private conn: Connection | null = null;
  /** Commands issued while connecting: written once the handshake is done. */
  private waiting: PendingCommand[] = [];
  private reconnectTimer: NodeJS.Timeout | undefined;
  private nextDelayMs: number;
  private lastErrorValue = 'not started';
  private closing: Promise<void> | null = null;
  private readonly notificationListeners = new Set<(n: ControlNotification) => void>();
  private readonly stateListeners = new Set<(s: ControlState) => void>();

  constructor(options: ControlClientOptions = {}) {
    this.opts = {
      socketName: options.socketName,
      configFile: options.configFile,
      tmuxPath: options.tmuxPath ?? 'tmux',
      commandTimeoutMs: options.commandTimeoutMs ?? 5_000,
      connectTimeoutMs: options.connectTimeoutMs ?? 5_000,
      initialDelayMs: options.reconnect?.initialDelayMs ?? 100,
      maxDelayMs: options.reconnect?.maxDelayMs ?? 5_000,
    };
    this.logger = options.logger ?? silentLogger;
    this.env = tmuxEnvironment();
    this.spawnArgs = [
      ...tmuxGlobalArgs(this.opts.socketName, this.opts.configFile),
      '-C',
      'new-session',
      '-A',
      '-s',
      HIDDEN_SESSION_NAME,
      '-f',
      'ignore-size,no-output',
      '-x',
      '80',
      '-y',
      '24',
      // The hidden pane's process: waits forever on a terminal nobody types into.
      'cat',
    ];
    this.nextDelayMs = this.opts.initialDelayMs;
  }

  get state(): ControlState {
    return this.stateValue;
  }

  /** Server pid and hidden session id of the current connection, or null. */
  get connection(): ControlConnection | null {
    return this.stateValue === 'connected' ? (this.conn?.info ?? null) : null;
  }

  /** Why the last connection attempt failed or the last connection ended. */
  get lastError(): string {
    return this.lastErrorValue;
  }

  /** Starts connecting (idempotent). Later disconnects reconnect by themselves. */
  start(): void {
    if (this.stateValue === 'disconnected' && this.reconnectTimer === undefined) this.connect();
  }

  /** Subscribes to tmux notifications; returns the unsubscribe function. */
  onNotification(listener: (n: ControlNotification) => void): () => void {
    this.notificationListeners.add(listener);
    return () => this.notificationListeners.delete(listener);
  }

  onStateChange(listener: (s: ControlState) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  /** Resolves true once connected, false if not connected within timeoutMs or closed. */
  waitUntilConnected(timeoutMs: number): Promise<boolean> {
    if (this.stateValue === 'connected') return Promise.resolve(true);
    if (this.stateValue === 'closed') return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        off();
        resolve(false);
      }, timeoutMs);
      const off = this.onStateChange((s) => {
        if (s === 'connected' || s === 'closed') {
          clearTimeout(timer);
          off();
          resolve(s === 'connected');
        }
      });
    });
  }

  /**
   * Runs one tmux command line. The caller guarantees no user text is in it (ids only,
   * validated). Rejects with TMUX_UNAVAILABLE at once when not connected (never hangs),
   * with TIMEOUT after the timeout; a tmux-level failure resolves with `ok: false`.
   */
  run(command: string, options?: RunOptions): Promise<ControlReply> {
    if (command.includes('\n') || command.includes('\r')) {
      return Promise.reject(new AppError('INVALID_ARGUMENT', 'a tmux command must be one line'));
    }
    const state = this.stateValue;
    if (state === 'closed') return Promise.reject(new AppError('TMUX_UNAVAILABLE', 'tmux adapter is closed'));
    if (state === 'disconnected') return Promise.reject(this.unavailable());
    const conn = this.conn;
    if (conn === null) return Promise.reject(this.unavailable());
    return new Promise<ControlReply>((resolve, reject) => {
      let fence: string | null = null;
      let text = command;
      if (options?.fenced === true) {
        fence = `${conn.fencePrefix}${(conn.fenceCounter++).toString(36)}`;
        // A separate line, not `cmd ; fence`: tmux skips the rest of a command list
        // after an error, and a failed capture must still be fenced.
        text = `${command}\ndisplay-message -p '${fence}'`;
      }
      const entry: PendingCommand = { text, resolve, reject, timer: undefined, abandoned: false, fence };
      const timeoutMs = options?.timeoutMs ?? this.opts.commandTimeoutMs;
      entry.timer = setTimeout(() => {
        entry.abandoned = true;
        entry.timer = undefined;
        reject(new AppError('TIMEOUT', 'tmux did not answer in time'));
        // A stuck stream does not heal: start over rather than queue behind it.
        if (this.conn === conn && this.stateValue === 'connected') this.connectionLost(conn, 'a tmux command timed out');
      }, timeoutMs);
      entry.timer.unref();
      if (state === 'connected') this.enqueue(conn, entry);
      else this.waiting.push(entry);
    });
  }

  /** Kills the hidden session (only when no other broker is attached to it) and ends the
   * client. The user's server and sessions are left alone. */
  close(): Promise<void> {
    this.closing ??= this.closeOnce();
    return this.closing;
  }

  private async closeOnce(): Promise<void> {
    if (this.stateValue === 'closed') return;
    // Mid-connect, the hidden session may already exist: let the attempt finish so it
    // can be removed.
    if (this.stateValue === 'connecting') await this.waitUntilConnected(this.opts.connectTimeoutMs);
    // (re-read after the await: a concurrent close() may have finished meanwhile)
    if ((this.stateValue as ControlState) === 'closed') return;
    const conn = this.conn;
    const info = this.stateValue === 'connected' ? (conn?.info ?? null) : null;
    if (conn !== null && info !== null) {
      try {
        const reply = await this.run(`display-message -p -t '${info.hiddenSessionId}' '#{session_attached}'`, {
          timeoutMs: 2_000,
        });
        if (reply.ok && reply.lines[0] === '1') {
          this.write(conn, `kill-session -t '${info.hiddenSessionId}'\n`);
        }
      } catch {
        // Closing anyway: the connection is gone or tmux is wedged.
      }
    }
    this.setState('closed');
    if (this.reconnectTimer !== undefined) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    this.failAll(new AppError('TMUX_UNAVAILABLE', 'tmux adapter is closed'));
    if (conn !== null) {
      this.flush(conn);
      conn.child.stdin.end();
      const killTimer = setTimeout(() => conn.child.kill('SIGKILL'), 2_000);
      await conn.exited;
      clearTimeout(killTimer);
      this.conn = null;
    }
  }

  private unavailable(): AppError {
    return new AppError('TMUX_UNAVAILABLE', 'tmux server is not reachable');
  }

  private setState(state: ControlState): void {
    if (this.stateValue === state) return;
    this.stateValue = state;
    for (const l of this.stateListeners) l(state);
  }

  private connect(): void {
    this.reconnectTimer = undefined;
    this.setState('connecting');
    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawn(this.opts.tmuxPath, this.spawnArgs, { env: this.env, cwd: '/', stdio: 'pipe' });
    } catch (err) {
      this.connectionLost(null, `spawn failed: ${(err as Error).message}`);
      return;
    }
    const conn: Connection = {
      child,
      pending: [],
      head: 0,
      attached: false,
      outBuffer: '',
      flushScheduled: false,
      carry: '',
      blockTail: null,
      blockIsReply: false,
      fenceScan: null,
      blockLines: [],
      lastNumber: -1,
      info: null,
      fencePrefix: `tmcp-fence-${randomBytes(12).toString('hex')}-`,
      fenceCounter: 0,
      stderr: '',
      connectTimer: undefined,
      exited: new Promise((resolve) => child.once('close', () => resolve())),
    };
    this.conn = conn;
    conn.connectTimer = setTimeout(() => this.connectionLost(conn, 'timed out connecting to tmux'), this.opts.connectTimeoutMs);
    conn.connectTimer.unref();

    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => this.onData(conn, chunk));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (conn.stderr.length < 2_000) conn.stderr += chunk;
    });
    child.stdin.on('error', () => {
      // EPIPE when tmux is gone: the close handler reports it.
    });
    child.once('error', (err) => this.connectionLost(conn, `tmux could not be started: ${err.message}`));
    child.once('close', (code, signal) => {
      const why = conn.stderr.trim() || `tmux control client exited (${signal ?? `code ${String(code)}`})`;
      this.connectionLost(conn, why);
    });

    // The first block answers the attach; nothing is written before it (see `attached`).
    // Then a handshake reads the server pid and the hidden session id.
    const handshake: PendingCommand = {
      text: `display-message -p '#{pid}\t#{session_id}'`,
      resolve: (reply) => this.onHandshake(conn, reply),
      reject: () => {},
      timer: undefined,
      abandoned: false,
      fence: null,
    };
    const attach: PendingCommand = {
      text: '',
      resolve: (reply) => {
        if (!reply.ok) {
          this.connectionLost(conn, `tmux refused the control client: ${reply.lines.join(' ').slice(0, 200)}`);
          return;
        }
        conn.attached = true;
        this.enqueue(conn, handshake);
      },
      reject: () => {},
      timer: undefined,
      abandoned: false,
      fence: null,
    };
    conn.pending.push(attach);
  }

  private onHandshake(conn: Connection, reply: ControlReply): void {
    const line = reply.lines[0] ?? '';
    const tab = line.indexOf('\t');
    const pid = Number(line.slice(0, tab));
    const sessionId = line.slice(tab + 1);
    if (!reply.ok || tab < 0 || !Number.isSafeInteger(pid) || pid <= 0 || !SESSION_ID_RE.test(sessionId)) {
      this.connectionLost(conn, 'unexpected tmux handshake reply');
      return;
    }
    conn.info = { serverPid: pid, hiddenSessionId: sessionId };
    if (conn.connectTimer !== undefined) clearTimeout(conn.connectTimer);
    conn.connectTimer = undefined;
    this.nextDelayMs = this.opts.initialDelayMs;
    this.lastErrorValue = '';
    this.logger.info({ serverPid: pid, socket: this.opts.socketName ?? 'default' }, 'tmux control client connected');
    this.setState('connected');
    const waiting = this.waiting;
    this.waiting = [];
    for (const entry of waiting) {
      if (!entry.abandoned) this.enqueue(conn, entry);
    }
  }

  private enqueue(conn: Connection, entry: PendingCommand): void {
    conn.pending.push(entry);
    this.write(conn, `${entry.text}\n`);
  }

  /** Coalesces the writes of one tick into one pipe write. */
  private write(conn: Connection, text: string): void {
    conn.outBuffer += text;
    if (!conn.flushScheduled) {
      conn.flushScheduled = true;
      queueMicrotask(() => this.flush(conn));
    }
  }

  private flush(conn: Connection): void {
    conn.flushScheduled = false;
    if (conn.outBuffer === '' || !conn.child.stdin.writable) return;
    conn.child.stdin.write(conn.outBuffer);
    conn.outBuffer = '';
  }

  private onData(conn: Connection, chunk: string): void {
    if (this.conn !== conn || this.stateValue === 'closed') return;
    let start = 0;
    let data = chunk;
    if (conn.carry !== '') {
      data = conn.carry + chunk;
      conn.carry = '';
    }
    for (;;) {
      const nl = data.indexOf('\n', start);
      if (nl < 0) break;
      this.onLine(conn, data.slice(start, nl));
      if (this.conn !== conn) return; // the line ended this connection
      start = nl + 1;
    }
    if (start < data.length) conn.carry = data.slice(start);
  }

  private onLine(conn: Connection, line: string): void {
    if (conn.fenceScan !== null) return this.onFencedLine(conn, conn.fenceScan, line);
    const tail = conn.blockTail;
    if (tail !== null) {
      // Inside a block only the exact matching terminator ends it; everything else,
      // including lines that look like notifications, is reply data.
      const first = line.charCodeAt(0);
      if (first === 0x25 /* % */ && line.endsWith(tail)) {
        if (line.length === tail.length + 5 && line.startsWith('%end ')) return this.endBlock(conn, true);
        if (line.length === tail.length + 7 && line.startsWith('%error ')) return this.endBlock(conn, false);
      }
      if (conn.blockIsReply) conn.blockLines.push(line);
      return;
    }
    if (line.startsWith('%begin ')) {
      const rest = line.slice(7);
      const parts = rest.split(' ');
      const number = Number(parts[1]);
      if (parts.length !== 3 || !Number.isSafeInteger(number) || number <= conn.lastNumber) {
        return this.desync(conn, 'malformed or out-of-order %begin');
      }
      conn.lastNumber = number;
      conn.blockIsReply = parts[2] === '1' || !conn.attached;
      const head = conn.blockIsReply ? conn.pending[conn.head] : undefined;
      if (head !== undefined && head.fence !== null) {
        conn.fenceScan = {
          entry: head,
          replyNumber: number,
          endLine: `%end ${rest}`,
          errorLine: `%error ${rest}`,
          terminators: 0,
          lines: [],
          fenceTail: null,
        };
        return;
      }
      conn.blockTail = rest;
      return;
    }
    if (line.startsWith('%end ') || line.startsWith('%error ')) return this.desync(conn, 'reply terminator outside a block');
    if (line.startsWith('%exit')) {
      this.connectionLost(conn, line.length > 6 ? `tmux: ${line.slice(6)}` : 'tmux control client exited');
      return;
    }
    if (line.charCodeAt(0) !== 0x25) {
      // With -C tmux writes nothing but blocks and notifications.
      return this.desync(conn, 'text outside a reply block');
    }
    this.onNotificationLine(conn, line);
  }

  private onNotificationLine(conn: Connection, line: string): void {
    const space = line.indexOf(' ');
    const name = space < 0 ? line.slice(1) : line.slice(1, space);
    const args = space < 0 ? '' : line.slice(space + 1);
    if (name === 'session-changed' && conn.info !== null && !args.startsWith(`${conn.info.hiddenSessionId} `)) {
      // Our hidden session was destroyed and tmux moved this client into a user session
      // (detach-on-destroy off). Start over so the hidden session is recreated.
      this.connectionLost(conn, 'hidden control session was replaced');
      return;
    }
    if (this.notificationListeners.size === 0) return;
    const notification: ControlNotification = { name, args };
    for (const l of this.notificationListeners) {
      try {
        l(notification);
      } catch (err) {
        this.logger.warn({ err: (err as Error).message }, 'tmux notification listener failed');
      }
    }
  }

  private endBlock(conn: Connection, ok: boolean): void {
    conn.blockTail = null;
    if (!conn.blockIsReply) return; // hook output (flags 0)
    const lines = conn.blockLines;
    conn.blockLines = [];
    const entry = this.shiftPending(conn);
    if (entry === undefined) return this.desync(conn, 'reply with no pending command');
    if (!entry.abandoned) entry.resolve({ ok, lines });
  }

  /** Collects a fenced reply until its fence block (`%begin T N 1`, nonce, `%end T N 1`)
   * is complete, then cuts the reply at the last terminator matching its own %begin. */
  private onFencedLine(conn: Connection, scan: FenceScan, line: string): void {
    const fenceTail = scan.fenceTail;
    if (fenceTail !== null) {
      scan.fenceTail = null;
      if (line.length === fenceTail.length + 5 && line.startsWith('%end ') && line.endsWith(fenceTail)) {
        return this.endFencedReply(conn, scan, fenceTail);
      }
    }
    const lines = scan.lines;
    if (line.charCodeAt(0) === 0x25 && (line === scan.endLine || line === scan.errorLine)) scan.terminators++;
    if (line === scan.entry.fence && lines.length > 0) {
      const previous = lines[lines.length - 1] as string;
      if (previous.startsWith('%begin ')) scan.fenceTail = previous.slice(7);
    }
    lines.push(line);
  }

  private endFencedReply(conn: Connection, scan: FenceScan, fenceTail: string): void {
    conn.fenceScan = null;
    const lines = scan.lines;
    lines.length -= 2; // the fence's %begin and nonce
    const fenceNumber = Number(fenceTail.split(' ')[1]);
    const { endLine, errorLine } = scan;
    let cut = lines.length - 1;
    while (cut >= 0 && lines[cut] !== endLine && lines[cut] !== errorLine) cut--;
    // Between the reply's terminator and the fence only flags-0 hook blocks may appear.
    if (cut < 0 || !Number.isSafeInteger(fenceNumber) || fenceNumber <= scan.replyNumber) {
      return this.desync(conn, 'fenced reply without its terminator');
    }
    conn.lastNumber = fenceNumber;
    if (scan.terminators > 1) {
      this.logger.warn({ imitations: scan.terminators - 1 }, 'pane text imitated a tmux reply terminator; kept as data');
    }
    const ok = lines[cut] === endLine;
    // After the real terminator only tmux speaks: hook blocks (flags 0) and notifications.
    const between = lines.slice(cut + 1);
    lines.length = cut;
    let hookTail: string | null = null;
    for (const line of between) {
      if (hookTail !== null) {
        if (line === `%end ${hookTail}` || line === `%error ${hookTail}`) hookTail = null;
      } else if (line.startsWith('%begin ')) {
        hookTail = line.slice(7);
      } else if (line.charCodeAt(0) === 0x25 && !line.startsWith('%exit')) {
        this.onNotificationLine(conn, line);
        if (this.conn !== conn) return;
      }
    }
    const entry = this.shiftPending(conn);
    if (entry !== scan.entry) return this.desync(conn, 'fenced reply out of order');
    if (!entry.abandoned) entry.resolve({ ok, lines });
  }

  private shiftPending(conn: Connection): PendingCommand | undefined {
    const entry = conn.pending[conn.head];
    if (entry === undefined) return undefined;
    conn.pending[conn.head] = undefined;
    conn.head++;
    if (conn.head === conn.pending.length) {
      conn.pending.length = 0;
      conn.head = 0;
    } else if (conn.head > 1024 && conn.head * 2 > conn.pending.length) {
      conn.pending.splice(0, conn.head);
      conn.head = 0;
    }
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    entry.timer = undefined;
    return entry;
  }

  private desync(conn: Connection, why: string): void {
    this.logger.warn({ why }, 'tmux control stream out of sync; reconnecting');
    this.connectionLost(conn, `control stream out of sync: ${why}`);
  }

  /** Ends `conn` (if it is still the current one): every pending command fails with
   * TMUX_UNAVAILABLE and a reconnect is scheduled with backoff. */
  private connectionLost(conn: Connection | null, why: string): void {
    if (conn !== null && this.conn !== conn) return;
    if (this.stateValue === 'closed') return;
    this.lastErrorValue = why;
    const wasConnected = this.stateValue === 'connected';
    if (conn !== null) {
      this.conn = null;
      if (conn.connectTimer !== undefined) clearTimeout(conn.connectTimer);
      conn.child.stdout.removeAllListeners('data');
      if (conn.child.exitCode === null && conn.child.signalCode === null) conn.child.kill('SIGTERM');
    }
    this.setState('disconnected');
    this.failAll(new AppError('TMUX_UNAVAILABLE', 'tmux server is not reachable'), conn);
    const delay = this.nextDelayMs;
    this.nextDelayMs = Math.min(this.nextDelayMs * 2, this.opts.maxDelayMs);
    if (wasConnected) this.logger.warn({ why, retryInMs: delay }, 'tmux control client disconnected');
    else this.logger.debug({ why, retryInMs: delay }, 'tmux control client could not connect');
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
    this.reconnectTimer.unref();
  }

  private failAll(err: AppError, conn: Connection | null = this.conn): void {
    const entries: PendingCommand[] = this.waiting;
    this.waiting = [];
    if (conn !== null) {
      for (let i = conn.head; i < conn.pending.length; i++) {
        const e = conn.pending[i];
        if (e !== undefined) entries.push(e);
      }
      conn.pending.length = 0;
      conn.head = 0;
    }
    for (const e of entries) {
      if (e.timer !== undefined) clearTimeout(e.timer);
      if (!e.abandoned) {
        e.abandoned = true;
        e.reject(err);
      }
    }
  }
}
