/**
 * One persistent tmux control-mode client (`tmux -C`): commands go to its stdin, replies
 * come back as `%begin <time> <number> <flags>` ... `%end`/`%error` blocks, in the order
 * the commands were written, each matched to the head of a FIFO queue and checked by its
 * command number. ~0.3-0.6 ms per command instead of ~4 ms for spawning `tmux`.
 *
 * It stays attached to the broker's hidden session inside the user's server and never
 * starts a server (hidden-session.ts says how and why). With no server it polls the
 * socket (server-socket.ts: a stat, then a bare connect), spawning tmux only once
 * something listens; calls meanwhile fail fast with TMUX_UNAVAILABLE and a hint.
 *
 * The client never resizes anyone's window and never receives pane output: it attaches
 * with `-f ignore-size,no-output` to a session containing only its own window.
 *
 * Stream integrity (control-protocol.ts has the rules): commands whose reply contains
 * pane text run `fenced`, so a pane that prints a reply terminator cannot end its reply
 * early; other replies carry only tmux-escaped names, numbers and `pane_current_command`
 * (last field, see adapter.ts). Any protocol violation, and the control process exiting,
 * drop the connection, fail everything pending and reconnect.
 *
 * A slow command fails alone: past its deadline its caller gets TIMEOUT, and its entry
 * stays in the queue (abandoned) so its late reply is still consumed in order and
 * matched by number; the commands behind it get their own replies. The connection goes
 * only when tmux has sent nothing at all for `stallMs` while a command waited (a server
 * that stopped answering, not one that is slow): under load one command taking 5 s must
 * not fail every send in flight, half-finished pastes included (issue 43).
 */
import { randomBytes } from 'node:crypto';
import { AppError } from '@terminal-mcp/contract';
import { ControlStream, type ControlEvent, type ReplyPart } from './control-protocol.js';
import { spawnControlProcess, tmuxEnvironment, tmuxGlobalArgs, type ControlProcess } from './control-process.js';
import { silentLogger, type TmuxLogger } from './format.js';
import {
  ATTACH_HIDDEN_SESSION_ARGS,
  HANDSHAKE_COMMAND,
  NO_SERVER_HINT,
  ensureHiddenSession,
  hiddenSessionRemoval,
  isNoServerMessage,
  onlyHiddenSessionKeepsServer,
  ownerPaneCommands,
  parseHandshake,
} from './hidden-session.js';
import { acquireIdentifyTurn, noteSessionChange, withIdentifyTurn } from './identify-gate.js';
import { createTmuxCommandRunner, type TmuxCommandRunner } from './tmux-command.js';
import { localTransport, type TmuxTransport } from './transport.js';

export { decodeControlOutput } from './control-protocol.js';
export { tmuxEnvironment, tmuxGlobalArgs } from './control-process.js';
export { HIDDEN_SESSION_NAME, NO_SERVER_HINT } from './hidden-session.js';
export type { TmuxLogger };

/** While no server runs, the socket is probed at least this often. */
const MAX_SOCKET_POLL_MS = 1_000;
/** After leaving a server we were alone on, wait at least this long before looking again:
 * the server needs a moment to exit, and we must not re-create the hidden session in it. */
const AFTER_LEAVING_MS = 1_000;

export interface ReconnectOptions {
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** 0..1; see ControlClientOptions.reconnect. */
  jitter?: number;
}

export interface ControlClientOptions {
  /** `tmux -L <socketName>`; undefined means the user's default server. */
  socketName?: string;
  /** `tmux -f <file>`: tmux reads it only when a command starts a server, which the
   * broker never does (`-N`); kept so callers that pass it still work. */
  configFile?: string;
  /** Path of the tmux binary; default `tmux` from PATH. */
  tmuxPath?: string;
  /** Default per-command timeout. */
  commandTimeoutMs?: number;
  /** A connection that received nothing for this long while a command timed out is
   * dropped (default 30 s). */
  stallMs?: number;
  /** Upper bound for spawn + attach + handshake. */
  connectTimeoutMs?: number;
  /** Reconnect backoff: starts at initialDelayMs, doubles up to maxDelayMs; each wait is
   * stretched by a random part of itself up to `jitter` (0.5: up to half again), so
   * clients that lost their servers at one instant (a network blip cutting every node)
   * do not all reconnect at one instant. Default 0. */
  reconnect?: ReconnectOptions;
  logger?: TmuxLogger;
  /** How tmux is reached (transport.ts); default: tmux on this host. */
  transport?: TmuxTransport;
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
  /** A compound command's blocks (control-protocol.ts), in order. */
  readonly parts?: readonly ReplyPart[];
}

/** One line of a batch: `fenced` as for run(); `compound` for a line whose commands answer
 * with several blocks (a `;` list, an if-shell branch): its reply has them all as `parts`. */
export interface BatchCommand {
  readonly command: string;
  readonly fenced?: boolean;
  readonly compound?: boolean;
}

/** A `%name args` line outside any reply block, e.g. `%sessions-changed`,
 * `%window-renamed @1 bash` (`%output` and `%exit` are handled by the client itself). */
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

interface PendingCommand {
  readonly text: string;
  /** The reply holds pane text: a fence line follows the command (control-protocol.ts). */
  readonly fenced: boolean;
  /** Several blocks answer it, collected up to a fence line (control-protocol.ts). */
  readonly compound?: boolean;
  readonly resolve: (reply: ControlReply) => void;
  readonly reject: (err: Error) => void;
  timer: NodeJS.Timeout | undefined;
  /** Timed out: the caller already has its error; the reply is still consumed. */
  abandoned: boolean;
}

interface Connection {
  readonly process: ControlProcess;
  /** Parses the stream; holds the commands written, in the order their replies come. */
  readonly stream: ControlStream<PendingCommand>;
  info: ControlConnection | null;
  readonly fencePrefix: string;
  fenceCounter: number;
  connectTimer: NodeJS.Timeout | undefined;
  /** A "is anyone but us left?" check is running / another was asked for meanwhile. */
  checking: boolean;
  recheck: boolean;
  /** When this connection last received bytes (the stall check of a timed-out command). */
  lastDataAt: number;
}

export class TmuxControlClient {
  private readonly opts: {
    socketName: string | undefined;
    configFile: string | undefined;
    tmuxPath: string;
    commandTimeoutMs: number;
    stallMs: number;
    connectTimeoutMs: number;
    initialDelayMs: number;
    maxDelayMs: number;
    jitter: number;
  };
  private readonly logger: TmuxLogger;
  private readonly env: NodeJS.ProcessEnv;
  private readonly spawnArgs: string[];
  /** Creates the hidden session (one-shot, detached) before the control client attaches. */
  private readonly runner: TmuxCommandRunner;
  private readonly transport: TmuxTransport;
  /** identify-gate.ts: our control clients and session changes on this server take turns. */
  private readonly identifyKey: string;
  /** The hidden session goes when this process has (hidden-session.ts ownerPaneCommands). */
  private readonly ownerPid = process.pid;
  /** Not connected because no server runs (or we left one that had only our session). */
  private noServer = false;
  /** A connect() is looking for the server (between timers). */
  private probing = false;
  private stateValue: ControlState = 'disconnected';
  private conn: Connection | null = null;
  /** Commands issued while connecting: written once the handshake is done. */
  private waiting: PendingCommand[] = [];
  private reconnectTimer: NodeJS.Timeout | undefined;
  private nextDelayMs: number;
  private retryAt = 0;
  private lastErrorValue = 'not started';
  private closing: Promise<void> | null = null;
  /** whenIdle() callers, woken when the last reply in flight arrives. */
  private readonly idleWaiters = new Set<() => void>();
  private readonly notificationListeners = new Set<(n: ControlNotification) => void>();
  private readonly stateListeners = new Set<(s: ControlState) => void>();

  constructor(options: ControlClientOptions = {}) {
    this.opts = {
      socketName: options.socketName,
      configFile: options.configFile,
      tmuxPath: options.tmuxPath ?? 'tmux',
      commandTimeoutMs: options.commandTimeoutMs ?? 5_000,
      stallMs: options.stallMs ?? 30_000,
      connectTimeoutMs: options.connectTimeoutMs ?? 5_000,
      initialDelayMs: options.reconnect?.initialDelayMs ?? 100,
      maxDelayMs: options.reconnect?.maxDelayMs ?? 5_000,
      jitter: options.reconnect?.jitter ?? 0,
    };
    this.logger = options.logger ?? silentLogger;
    this.env = tmuxEnvironment();
    this.transport = options.transport ?? localTransport(this.opts.socketName, this.opts.tmuxPath, this.env);
    this.identifyKey = this.transport.identifyKey;
    this.runner = createTmuxCommandRunner({ socketName: this.opts.socketName, tmuxPath: this.opts.tmuxPath, transport: this.transport });
    this.spawnArgs = [...tmuxGlobalArgs(this.opts.socketName, this.opts.configFile), ...ATTACH_HIDDEN_SESSION_ARGS];
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
  /** When the next connection attempt is due (epoch ms), while backing off; else undefined. */
  get nextRetryAt(): number | undefined {
    return this.reconnectTimer !== undefined && this.stateValue !== 'connected' ? this.retryAt : undefined;
  }

  get lastError(): string {
    return this.lastErrorValue;
  }

  /** True while not connected because no tmux server runs: the client attaches by itself
   * when one appears, and never starts one. */
  get waitingForServer(): boolean {
    return this.noServer && this.stateValue !== 'connected' && this.stateValue !== 'closed';
  }

  /** Starts connecting (idempotent). Later disconnects reconnect by themselves. */
  start(): void {
    if (this.stateValue === 'disconnected' && this.reconnectTimer === undefined && !this.probing) void this.connect();
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
    return new Promise<ControlReply>((resolve, reject) => {
      const entry = this.pendingCommand(command, options?.fenced === true, options?.timeoutMs ?? this.opts.commandTimeoutMs, resolve, reject);
      if (state === 'connected' && this.conn !== null) this.enqueue(this.conn, entry);
      else this.waiting.push(entry);
    });
  }

  /** True when no command is written and unanswered, and none waits for the connection. */
  private isIdle(): boolean {
    return this.waiting.length === 0 && (this.conn?.stream.pendingReplies ?? 0) === 0;
  }

  /**
   * Resolves once no command is in flight on this client (at once when none is, or when not
   * connected: a command then fails fast anyway), or after `maxWaitMs` regardless, so
   * background work is never starved for good. Background work (transcript pipes at start)
   * writes its commands only then: tmux answers in the order commands were written, so a
   * caller's command issued meanwhile waits behind at most one background command, never
   * behind a queue of them (issue 48: 200 pipe-panes queued at start made a caller's first
   * command time out and drop the connection).
   */
  whenIdle(maxWaitMs: number): Promise<void> {
    if (this.stateValue !== 'connected' || this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.idleWaiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, maxWaitMs);
      timer.unref();
      this.idleWaiters.add(wake);
    });
  }

  /** A command waiting for its reply, failed with TIMEOUT after `timeoutMs`. */
  private pendingCommand(text: string, fenced: boolean, timeoutMs: number, resolve: (reply: ControlReply) => void, reject: (err: Error) => void, compound = false): PendingCommand {
    const entry: PendingCommand = { text, fenced, compound, resolve, reject, timer: undefined, abandoned: false };
    entry.timer = setTimeout(() => {
      entry.abandoned = true;
      entry.timer = undefined;
      reject(new AppError('TIMEOUT', 'tmux did not answer in time'));
      // This command fails alone (the header): its reply, when it comes, is consumed. Only
      // a stream silent for stallMs is taken as stuck, and started over.
      const conn = this.conn;
      if (conn !== null && this.stateValue === 'connected' && Date.now() - conn.lastDataAt >= this.opts.stallMs) this.connectionLost(conn, `tmux sent nothing for ${Math.round(this.opts.stallMs / 1000)} s while a command waited`);
    }, timeoutMs);
    entry.timer.unref();
    return entry;
  }

  /**
   * Runs several command lines written to tmux in ONE write, so the server reads and runs
   * them in the same turn of its loop (no pane output is processed between them, as long
   * as they arrive in one read; a write this small does). Each line gets its own reply,
   * in order; a failing line does not stop the others (they are separate lines, not a
   * `;` list). Only while connected: a batch must not be split by a reconnect.
   */
  runBatch(commands: readonly BatchCommand[], options?: { timeoutMs?: number }): Promise<ControlReply[]> {
    if (commands.some((c) => c.command.includes('\n') || c.command.includes('\r'))) {
      return Promise.reject(new AppError('INVALID_ARGUMENT', 'a tmux command must be one line'));
    }
    const conn = this.conn;
    if (this.stateValue !== 'connected' || conn === null) return Promise.reject(this.stateValue === 'closed' ? new AppError('TMUX_UNAVAILABLE', 'tmux adapter is closed') : this.unavailable());
    const timeoutMs = options?.timeoutMs ?? this.opts.commandTimeoutMs;
    let text = '';
    const replies = commands.map(
      (c) =>
        new Promise<ControlReply>((resolve, reject) => {
          const entry = this.pendingCommand(c.command, c.fenced === true, timeoutMs, resolve, reject, c.compound === true);
          text += this.expectReply(conn, entry);
        }),
    );
    conn.process.write(text);
    return Promise.all(replies);
  }

  /** runBatch, or null when not connected: then nothing was written. Once it returns a
   * promise the lines were written, so a rejection means their outcome is unknown (the
   * input delivery tells "not typed" from "maybe typed" by this). */
  tryRunBatch(commands: readonly BatchCommand[], options?: { timeoutMs?: number }): Promise<ControlReply[]> | null {
    if (this.stateValue !== 'connected' || this.conn === null) return null;
    if (commands.some((c) => c.command.includes('\n') || c.command.includes('\r'))) return null;
    return this.runBatch(commands, options);
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
    // Removing the hidden session (kill-session) is a session change: done in our turn
    // (identify-gate.ts), held until the client has exited.
    let releaseTurn: () => void = () => {};
    let inTurn = false;
    if (conn !== null && info !== null) {
      try {
        const removal = await hiddenSessionRemoval((c, o) => this.run(c, o), info.hiddenSessionId);
        releaseTurn = await acquireIdentifyTurn(this.identifyKey);
        inTurn = true;
        // Written without expecting a reply: the client is closed before it arrives.
        if (removal !== null) conn.process.write(`${removal}\n`);
      } catch {
        // Closing anyway: the connection is gone or tmux is wedged.
      }
    }
    this.setState('closed');
    if (this.reconnectTimer !== undefined) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    this.failAll(new AppError('TMUX_UNAVAILABLE', 'tmux adapter is closed'));
    if (conn !== null) {
      if (conn.connectTimer !== undefined) clearTimeout(conn.connectTimer);
      await conn.process.stop(2_000, { inTurn });
      this.conn = null;
    }
    releaseTurn();
    await this.transport.close();
  }

  private unavailable(): AppError {
    if (this.noServer) return new AppError('TMUX_UNAVAILABLE', 'no tmux server is running', NO_SERVER_HINT);
    return new AppError('TMUX_UNAVAILABLE', 'tmux server is not reachable');
  }

  private setState(state: ControlState): void {
    if (this.stateValue === state) return;
    this.stateValue = state;
    for (const l of this.stateListeners) l(state);
  }

  /** Looks for a server without spawning anything; attaches when one listens. */
  private async connect(): Promise<void> {
    this.reconnectTimer = undefined;
    // Calls made while we look wait for the answer, unless we already know that no
    // server runs: then they fail fast with the hint while we keep polling.
    if (!this.noServer) this.setState('connecting');
    this.probing = true;
    const presence = await this.transport.probeServer();
    this.probing = false;
    if (this.stateValue === 'closed') return;
    if (presence === 'absent') {
      // Nobody listens: look again soon.
      if (!this.noServer) this.logger.info({ socket: this.opts.socketName ?? 'default' }, 'no tmux server for the broker; it attaches when one appears');
      this.noServer = true;
      this.lastErrorValue = 'no tmux server is running';
      this.setState('disconnected');
      this.failAll(this.unavailable(), null);
      this.scheduleConnect(Math.min(this.nextBackoff(), MAX_SOCKET_POLL_MS));
      return;
    }
    await this.attach();
  }

  private async attach(): Promise<void> {
    this.setState('connecting');
    // Creating a session: in our turn (identify-gate.ts), and not at all once closed.
    const notCreated = await withIdentifyTurn(this.identifyKey, async () =>
      this.stateValue === 'closed' ? null : ensureHiddenSession(this.runner, this.opts.connectTimeoutMs),
    );
    if (this.stateValue === 'closed') return;
    if (notCreated !== null) return this.connectionLost(null, notCreated);
    // The callbacks run asynchronously, after `conn` below is initialised.
    const launch = this.transport.launch(this.spawnArgs);
    const child = spawnControlProcess({
      tmuxPath: launch.file,
      args: launch.args,
      env: this.env,
      onData: (chunk) => this.onData(conn, chunk),
      onEnd: (why) => this.connectionLost(conn, why),
      identifyTurn: this.identifyKey,
      endStdioHolder: this.transport.dropConnection === undefined ? undefined : () => this.endLingeringRemote(),
    });
    const conn: Connection = {
      process: child,
      stream: new ControlStream<PendingCommand>(),
      info: null,
      fencePrefix: `tmcp-fence-${randomBytes(12).toString('hex')}-`,
      fenceCounter: 0,
      connectTimer: undefined,
      checking: false,
      recheck: false,
      lastDataAt: Date.now(),
    };
    this.conn = conn;
    conn.connectTimer = setTimeout(() => this.connectionLost(conn, 'timed out connecting to tmux'), this.opts.connectTimeoutMs);
    conn.connectTimer.unref();
    // The first block answers the attach; nothing is written before it (see
    // ControlStream.isAttached). Then a handshake reads the server pid and the hidden
    // session id.
  }

  /** A client's remote end outlived it (control-process.ts endStdioHolder). */
  private async endLingeringRemote(): Promise<void> {
    this.logger.warn({ via: this.transport.label }, 'a tmux control client exited but its remote end did not; dropping the connection and ending what it left');
    await this.transport.dropConnection?.(this.spawnArgs);
  }

  private onAttached(conn: Connection, ok: boolean, lines: readonly string[]): void {
    if (!ok) {
      this.connectionLost(conn, `tmux refused the control client: ${lines.join(' ').slice(0, 200)}`);
      return;
    }
    this.enqueue(conn, {
      text: HANDSHAKE_COMMAND,
      resolve: (reply) => this.onHandshake(conn, reply),
      reject: () => {},
      fenced: false,
      timer: undefined,
      abandoned: false,
    });
  }

  private onHandshake(conn: Connection, reply: ControlReply): void {
    const info = parseHandshake(reply);
    if (info === null) {
      this.connectionLost(conn, 'unexpected tmux handshake reply');
      return;
    }
    conn.info = info;
    if (conn.connectTimer !== undefined) clearTimeout(conn.connectTimer);
    conn.connectTimer = undefined;
    this.nextDelayMs = this.opts.initialDelayMs;
    this.lastErrorValue = '';
    this.noServer = false;
    // On another host the broker's pid means nothing: the hidden session stays after a
    // crash there and is found and reused on the next connect (hidden-session.ts).
    for (const text of this.transport.sameHost ? ownerPaneCommands(info.hiddenSessionId, this.ownerPid) : []) {
      this.enqueue(conn, {
        text,
        resolve: (r) => {
          if (!r.ok) this.logger.warn({ tmux: r.lines.join(' ').slice(0, 200) }, 'tmux refused to tie the hidden session to this broker; it may outlive a crash');
        },
        reject: () => {},
        fenced: false,
        timer: undefined,
        abandoned: false,
      });
    }
    this.logger.info({ serverPid: info.serverPid, socket: this.opts.socketName ?? 'default' }, 'tmux control client connected');
    this.setState('connected');
    const waiting = this.waiting;
    this.waiting = [];
    for (const entry of waiting) {
      if (!entry.abandoned) this.enqueue(conn, entry);
    }
    void this.leaveIfAlone(conn);
  }

  /** Leaves the server when only our hidden session keeps it alive (hidden-session.ts).
   * Run on connect and on every `%sessions-changed`; overlapping requests collapse into
   * one re-check. */
  private async leaveIfAlone(conn: Connection): Promise<void> {
    if (conn.checking) {
      conn.recheck = true;
      return;
    }
    conn.checking = true;
    try {
      do {
        conn.recheck = false;
        const alone = await onlyHiddenSessionKeepsServer((c, o) => this.run(c, o), conn.info?.hiddenSessionId ?? '');
        if (this.conn !== conn) return;
        if (alone && !conn.recheck) {
          const removal = await hiddenSessionRemoval((c, o) => this.run(c, o), conn.info?.hiddenSessionId ?? '');
          if (this.conn !== conn) return;
          if (!conn.recheck) return this.leaveServer(conn, removal);
        }
      } while (conn.recheck);
    } catch {
      // The connection ended meanwhile: its own handler reports that.
    } finally {
      conn.checking = false;
    }
  }

  /** `removal` (hidden-session.ts): the hidden session is removed by kill-session before
   * the client goes, as on close. Destroying it as the client exits crashes tmux 3.3a
   * when any other client disconnects meanwhile: the session is destroyed under our
   * still-listed client (NULL `curw` in server_client_check_modes; reproduced here about
   * 1 in 15 with destroy-unattached). With another broker attached too, it stays for that one. */
  private leaveServer(conn: Connection, removal: string | null): void {
    this.logger.info({ socket: this.opts.socketName ?? 'default' }, 'only the broker\'s hidden tmux session is left; leaving so the tmux server can exit');
    this.noServer = true;
    this.nextDelayMs = Math.max(this.nextDelayMs, AFTER_LEAVING_MS);
    // With the hidden session gone, the empty server exits.
    this.dropConnection(conn, 'only the hidden session was left', true, removal);
  }

  private enqueue(conn: Connection, entry: PendingCommand): void {
    conn.process.write(this.expectReply(conn, entry));
  }

  /** Registers the reply `entry` waits for; returns the text to write for it. */
  private expectReply(conn: Connection, entry: PendingCommand): string {
    if (!entry.fenced && entry.compound !== true) {
      conn.stream.expect(entry);
      return `${entry.text}\n`;
    }
    // A per-connection secret plus a counter: no pane can know it.
    const fence = `${conn.fencePrefix}${(conn.fenceCounter++).toString(36)}`;
    conn.stream.expect(entry, fence, entry.compound === true);
    // A separate line, not `cmd ; fence`: tmux skips the rest of a command list after an
    // error, and a failed capture must still be fenced.
    return `${entry.text}\ndisplay-message -p '${fence}'\n`;
  }

  private onData(conn: Connection, chunk: string): void {
    if (this.conn !== conn || this.stateValue === 'closed') return;
    conn.lastDataAt = Date.now();
    for (const event of conn.stream.push(chunk)) {
      this.onEvent(conn, event);
      if (this.conn !== conn) return; // the event ended this connection
    }
    if (this.idleWaiters.size > 0 && this.isIdle()) for (const wake of [...this.idleWaiters]) wake();
  }

  private onEvent(conn: Connection, event: ControlEvent<PendingCommand>): void {
    switch (event.type) {
      case 'attach':
        return this.onAttached(conn, event.ok, event.lines);
      case 'reply': {
        const entry = event.token;
        if (entry.timer !== undefined) clearTimeout(entry.timer);
        entry.timer = undefined;
        if (event.imitations > 0) {
          this.logger.warn({ imitations: event.imitations }, 'pane text imitated a tmux reply terminator; kept as data');
        }
        if (!entry.abandoned) entry.resolve(event.parts ? { ok: event.ok, lines: event.lines, parts: event.parts } : { ok: event.ok, lines: event.lines });
        return;
      }
      case 'notification':
        return this.dispatchNotification(conn, { name: event.name, args: event.args });
      case 'output':
        return; // attached with no-output: none is expected, none is needed
      case 'exit':
        return this.connectionLost(conn, event.reason !== '' ? `tmux: ${event.reason}` : 'tmux control client exited');
      case 'desync':
        this.logger.warn({ why: event.why }, 'tmux control stream out of sync; reconnecting');
        return this.connectionLost(conn, `control stream out of sync: ${event.why}`);
    }
  }

  private dispatchNotification(conn: Connection, notification: ControlNotification): void {
    const { name, args } = notification;
    if (name === 'session-changed' && conn.info !== null && !args.startsWith(`${conn.info.hiddenSessionId} `)) {
      // Our hidden session was destroyed and tmux moved this client into a user session
      // (detach-on-destroy off). Start over so the hidden session is recreated.
      this.connectionLost(conn, 'hidden control session was replaced');
      return;
    }
    // Our next control client waits until the sessions have been still (identify-gate.ts).
    if (name === 'sessions-changed' || name === 'session-renamed') noteSessionChange(this.identifyKey);
    if (name === 'sessions-changed' && conn.info !== null) void this.leaveIfAlone(conn);
    for (const l of this.notificationListeners) {
      try {
        l(notification);
      } catch (err) {
        this.logger.warn({ err: (err as Error).message }, 'tmux notification listener failed');
      }
    }
  }

  /** Ends `conn` (if it is still the current one): every pending command fails with
   * TMUX_UNAVAILABLE and a reconnect is scheduled with backoff. */
  private connectionLost(conn: Connection | null, why: string): void {
    if (conn !== null && this.conn !== conn) return;
    if (this.stateValue === 'closed') return;
    // Did the attach fail because nothing listens on the socket (tmux -N started nothing)?
    if (this.stateValue === 'connecting') this.noServer = isNoServerMessage(why);
    this.dropConnection(conn, why, false);
  }

  private dropConnection(conn: Connection | null, why: string, detach: boolean, lastCommand: string | null = null): void {
    this.lastErrorValue = why;
    const wasConnected = this.stateValue === 'connected';
    if (conn !== null) {
      this.conn = null;
      if (conn.connectTimer !== undefined) clearTimeout(conn.connectTimer);
      conn.process.ignoreOutput();
      const end = (inTurn: boolean) => {
        // Written without expecting a reply: the client is gone before it arrives.
        if (lastCommand !== null) conn.process.write(`${lastCommand}\n`);
        if (detach) void conn.process.stop(1_000, { inTurn });
        else conn.process.kill();
      };
      if (conn.info === null) end(false);
      else {
        // The last command may remove the hidden session: a session change, made in our
        // turn (identify-gate.ts). A client that never got that far may still hold the
        // turn itself: it ends at once.
        void withIdentifyTurn(this.identifyKey, async () => {
          end(true);
          await conn.process.exited;
        });
      }
    }
    this.setState('disconnected');
    this.failAll(this.unavailable(), conn);
    const delay = this.nextBackoff();
    if (this.noServer) {
      if (wasConnected || detach) this.logger.info({ why, socket: this.opts.socketName ?? 'default' }, 'no tmux server for the broker; it attaches when one appears');
    } else if (wasConnected) {
      this.logger.warn({ why, retryInMs: delay }, 'tmux control client disconnected');
    } else {
      this.logger.debug({ why, retryInMs: delay }, 'tmux control client could not connect');
    }
    this.scheduleConnect(delay);
  }

  /** The next reconnect delay; doubles up to maxDelayMs, then stretched by the jitter
   * (never shortened: a caller's minimum wait holds). */
  private nextBackoff(): number {
    const delay = this.nextDelayMs;
    this.nextDelayMs = Math.min(this.nextDelayMs * 2, this.opts.maxDelayMs);
    return Math.round(delay * (1 + this.opts.jitter * Math.random()));
  }

  private scheduleConnect(delayMs: number): void {
    this.retryAt = Date.now() + delayMs;
    this.reconnectTimer = setTimeout(() => void this.connect(), delayMs);
    this.reconnectTimer.unref();
  }

  private failAll(err: AppError, conn: Connection | null = this.conn): void {
    const entries: PendingCommand[] = this.waiting;
    this.waiting = [];
    if (conn !== null) entries.push(...conn.stream.drain());
    for (const e of entries) {
      if (e.timer !== undefined) clearTimeout(e.timer);
      if (!e.abandoned) {
        e.abandoned = true;
        e.reject(err);
      }
    }
  }
}
