/**
 * Live pane output: one tmux control-mode client per watched session, attached to that
 * session BY ID with `-f ignore-size,read-only`, whose `%output` lines are decoded and
 * handed to subscribers as `{ paneId, data }`. A control client only receives `%output`
 * for the panes of the session it is attached to, hence one client per session; the
 * broker's main client (control-client.ts) attaches with `no-output` and stays as it is.
 *
 * Lifecycle: ref-counted. The first subscriber of a session spawns its client; the last
 * one to leave starts a short grace period (a dashboard re-rendering, a wait resuming)
 * after which the client detaches (stdin closed, SIGTERM if it lingers). A watch never
 * reconnects by itself: session ids restart at `$0` with a new tmux server, so attaching
 * to the same id again could watch a DIFFERENT session. When the client ends (session
 * killed, server gone, `%exit`), every subscriber gets `onEnd(error)` once and the
 * caller decides, after re-checking the session through the adapter, what to do.
 *
 * What attaching does and does not change on tmux 3.3a (tested in pane-watch.test.ts):
 * - `ignore-size`: the client never takes part in window sizing; no window is resized.
 * - `read-only`: the client cannot type into or act on the session.
 * - `#{session_attached}` counts the client. The adapter subtracts our watchers, which it
 *   recognises by `#{client_termname}`: they are spawned with `TERM=WATCHER_TERM`.
 * - `#{session_activity}` is bumped by any attach (`#{window_activity}` is not), and the
 *   session's `client-attached` hooks run. Status uses the window's activity for this
 *   reason (see PaneFacts.windowActivity).
 * - Known limit: a control client counts as focused. With the user option
 *   `focus-events on`, a pane whose program asked for focus reports (`CSI ? 1004 h`)
 *   and had no focused client receives one focus-in (`ESC [ I`) when a watcher attaches.
 *   tmux 3.3a has no flag to attach unfocused.
 *
 * Stream integrity: the same strict parser as the command client (control-protocol.ts);
 * `%output` data is octal-escaped by tmux, so it never spans lines. The only command this
 * client sends is one identity query after the attach (ids and numbers only). Any
 * protocol violation ends the watch. Output is a wake-up signal for live views, waits and
 * the supervisor; nothing here reaches a client. (Transcripts do not use watchers: they
 * record through pipe-pane, effects/tmux/pane-pipe.ts.)
 */
import { AppError } from '@terminal-mcp/contract';
import { spawnControlProcess, tmuxEnvironment, tmuxGlobalArgs, type ControlProcess } from './control-process.js';
import { identifyGateKey } from './identify-gate.js';
import { ControlStream, type ControlEvent } from './control-protocol.js';
import { SESSION_ID_RE, silentLogger, type TmuxLogger } from './format.js';
import type { SessionIdentity } from '../../policy/identity.js';

/** `TERM` of every watcher client, visible as `#{client_termname}`: how listSessions
 * tells our watchers from users' clients (including users' own control-mode clients,
 * such as iTerm2's tmux integration, which must keep counting as attached). */
export const WATCHER_TERM = 'terminal-mcp-watcher';

export interface PaneOutputChunk {
  readonly paneId: string;
  readonly data: Buffer;
}

export interface PaneWatchListener {
  onOutput(chunk: PaneOutputChunk): void;
  /** The watch is over for good (session gone, tmux gone, watcher closed). Called at
   * most once; no output follows it. */
  onEnd(error: AppError): void;
}


export interface PaneWatchSubscription {
  /** Resolves once the client is attached: output written from then on is delivered.
   * Rejects with the same error onEnd gets when the attach fails. */
  readonly ready: Promise<SessionIdentity>;
  /** Idempotent. The client detaches after the grace period if nobody else watches. */
  unsubscribe(): void;
}

export interface PaneWatcher {
  watch(sessionId: string, listener: PaneWatchListener): PaneWatchSubscription;
  /** Session ids that currently have a watcher client (attaching, attached or in grace). */
  watchedSessions(): string[];
  /** Ends every watch (subscribers get onEnd) and waits for the clients to exit. */
  close(): Promise<void>;
}

export interface PaneWatcherOptions {
  socketName?: string;
  tmuxPath?: string;
  /** How long a client stays attached after its last subscriber left. Default 2 s. */
  graceMs?: number;
  /** Upper bound for spawn + attach + identity query. Default 5 s. */
  attachTimeoutMs?: number;
  /** At most this many sessions are watched at once. Default 64. */
  maxSessions?: number;
  logger?: TmuxLogger;
}

/** A `%output` line is at most a few times tmux's read size; anything longer is not tmux. */
const MAX_LINE_CHARS = 4 * 1024 * 1024;

type EntryState = 'attaching' | 'attached' | 'ended';

interface WatchEntry {
  readonly sessionId: string;
  readonly process: ControlProcess;
  /** The one command ever expected is the identity query. */
  readonly stream: ControlStream<'identity'>;
  readonly listeners: Set<PaneWatchListener>;
  state: EntryState;
  graceTimer: NodeJS.Timeout | undefined;
  attachTimer: NodeJS.Timeout | undefined;
  readonly ready: Promise<SessionIdentity>;
  resolveReady(identity: SessionIdentity): void;
  rejectReady(error: AppError): void;
}

export function createPaneWatcher(options: PaneWatcherOptions = {}): PaneWatcher {
  const logger = options.logger ?? silentLogger;
  const graceMs = options.graceMs ?? 2_000;
  // Sized for a slow, busy machine: a watcher first waits its turn to identify (up to
  // identify-gate.ts SETTLE_MAX_MS behind each client before it).
  const attachTimeoutMs = options.attachTimeoutMs ?? 30_000;
  const maxSessions = options.maxSessions ?? 64;
  const globalArgs = tmuxGlobalArgs(options.socketName);
  const env = { ...tmuxEnvironment(), TERM: WATCHER_TERM };
  const identifyKey = identifyGateKey(options.socketName, env);
  const entries = new Map<string, WatchEntry>();
  let closed = false;

  function end(entry: WatchEntry, error: AppError): void {
    if (entry.state === 'ended') return;
    entry.state = 'ended';
    if (entries.get(entry.sessionId) === entry) entries.delete(entry.sessionId);
    if (entry.graceTimer !== undefined) clearTimeout(entry.graceTimer);
    if (entry.attachTimer !== undefined) clearTimeout(entry.attachTimer);
    entry.process.ignoreOutput();
    entry.rejectReady(error);
    // EOF makes tmux detach the client; a client that lingers is stopped.
    void entry.process.stop(1_000);
    const listeners = [...entry.listeners];
    entry.listeners.clear();
    for (const l of listeners) {
      try {
        l.onEnd(error);
      } catch (err) {
        logger.warn({ err: (err as Error).message }, 'pane watch end listener failed');
      }
    }
  }

  function endedByTmux(entry: WatchEntry, reason: string): AppError {
    const text = `${reason} ${entry.process.stderr()}`.toLowerCase();
    if (text.includes("can't find session") || text.includes('session not found')) {
      return new AppError('SESSION_NOT_FOUND', 'the watched session no longer exists');
    }
    if (text.includes('no server') || text.includes('error connecting') || text.includes('server exited') || text.includes('lost server')) {
      return new AppError('TMUX_UNAVAILABLE', 'tmux server is not reachable');
    }
    // A bare `%exit`: the session was destroyed — or the whole server (tmux 3.3a says the
    // same for both). Callers re-check the session through the adapter either way.
    return new AppError('SESSION_NOT_FOUND', 'the watched session ended');
  }

  function onEvent(entry: WatchEntry, event: ControlEvent<'identity'>): void {
    switch (event.type) {
      case 'output': {
        if (entry.state !== 'attached') return;
        const chunk: PaneOutputChunk = { paneId: event.paneId, data: event.data };
        for (const l of entry.listeners) {
          try {
            l.onOutput(chunk);
          } catch (err) {
            logger.warn({ err: (err as Error).message }, 'pane output listener failed');
          }
        }
        return;
      }
      case 'attach':
        if (!event.ok) return end(entry, endedByTmux(entry, event.lines.join(' ')));
        // Attached. Only now may commands be written (tmux 3.3a runs earlier ones before
        // the client has a session). Read back who we are attached to.
        entry.stream.expect('identity');
        entry.process.write(`display-message -p '#{pid}\t#{session_id}\t#{session_created}'\n`);
        return;
      case 'reply':
        return onIdentity(entry, event.ok, event.lines);
      case 'notification':
        if (event.name === 'session-changed' && event.args.split(' ')[0] !== entry.sessionId) {
          // With detach-on-destroy off, tmux moves a client whose session died into another
          // session: from then on it would deliver THAT session's output. Stop at once.
          end(entry, new AppError('SESSION_NOT_FOUND', 'the watched session ended'));
        }
        // Every other notification (%window-add, %layout-change, ...) is irrelevant here.
        return;
      case 'exit':
        return end(entry, endedByTmux(entry, event.reason));
      case 'desync':
        logger.warn({ why: event.why, sessionId: entry.sessionId }, 'tmux watcher stream out of sync');
        return end(entry, new AppError('TMUX_UNAVAILABLE', 'tmux watcher stream out of sync'));
    }
  }

  function onIdentity(entry: WatchEntry, ok: boolean, lines: readonly string[]): void {
    const [pid, sessionId, created] = (lines[0] ?? '').split('\t');
    const identity = { serverPid: Number(pid), sessionId: sessionId ?? '', created: Number(created) };
    if (!ok || sessionId !== entry.sessionId || !Number.isSafeInteger(identity.serverPid) || !Number.isSafeInteger(identity.created)) {
      end(entry, new AppError('SESSION_NOT_FOUND', 'the watched session could not be attached'));
      return;
    }
    entry.state = 'attached';
    if (entry.attachTimer !== undefined) clearTimeout(entry.attachTimer);
    entry.attachTimer = undefined;
    entry.resolveReady(identity);
  }

  function attach(sessionId: string): WatchEntry {
    let resolveReady!: (identity: SessionIdentity) => void;
    let rejectReady!: (error: AppError) => void;
    const ready = new Promise<SessionIdentity>((resolve, reject) => {
      resolveReady = resolve;
      rejectReady = reject;
    });
    // A subscriber may never look at `ready`; its failure is also reported by onEnd.
    ready.catch(() => {});
    // The callbacks run asynchronously, after `entry` below is initialised.
    const child = spawnControlProcess({
      tmuxPath: options.tmuxPath ?? 'tmux',
      args: [...globalArgs, '-C', 'attach-session', '-t', sessionId, '-f', 'ignore-size,read-only'],
      env,
      onData(chunk) {
        if (entry.state === 'ended') return;
        for (const event of entry.stream.push(chunk)) {
          onEvent(entry, event);
          if ((entry.state as EntryState) === 'ended') return; // the event ended the watch
        }
      },
      onEnd: (why, startFailed) => end(entry, startFailed ? new AppError('TMUX_UNAVAILABLE', why) : endedByTmux(entry, 'client exited')),
      // Never identifying while another of our clients does or our sessions change.
      identifyTurn: identifyKey,
    });
    const entry: WatchEntry = {
      sessionId,
      process: child,
      stream: new ControlStream<'identity'>({ maxLineChars: MAX_LINE_CHARS }),
      listeners: new Set(),
      state: 'attaching',
      graceTimer: undefined,
      attachTimer: undefined,
      ready,
      resolveReady,
      rejectReady,
    };
    entry.attachTimer = setTimeout(() => end(entry, new AppError('TMUX_UNAVAILABLE', 'tmux did not attach the watcher in time')), attachTimeoutMs);
    entry.attachTimer.unref();
    logger.debug({ sessionId }, 'pane watcher attaching');
    return entry;
  }

  return {
    watch(sessionId, listener) {
      if (closed) throw new AppError('TMUX_UNAVAILABLE', 'pane watcher is closed');
      if (!SESSION_ID_RE.test(sessionId)) throw new AppError('INVALID_ARGUMENT', 'not a tmux session id');
      let entry = entries.get(sessionId);
      if (entry === undefined) {
        if (entries.size >= maxSessions) throw new AppError('RATE_LIMITED', 'too many sessions are being watched at once', undefined, { retryAfterSeconds: 5 });
        entry = attach(sessionId);
        entries.set(sessionId, entry);
      }
      const e = entry;
      if (e.graceTimer !== undefined) clearTimeout(e.graceTimer);
      e.graceTimer = undefined;
      e.listeners.add(listener);
      let subscribed = true;
      return {
        ready: e.ready,
        unsubscribe() {
          if (!subscribed) return;
          subscribed = false;
          e.listeners.delete(listener);
          if (e.listeners.size > 0 || e.state === 'ended') return;
          e.graceTimer = setTimeout(() => {
            e.graceTimer = undefined;
            if (e.listeners.size === 0) end(e, new AppError('TMUX_UNAVAILABLE', 'nobody watches the session any more'));
          }, graceMs);
          e.graceTimer.unref();
        },
      };
    },

    watchedSessions: () => [...entries.keys()],

    async close() {
      closed = true;
      const all = [...entries.values()];
      for (const e of all) end(e, new AppError('TMUX_UNAVAILABLE', 'pane watcher is closed'));
      await Promise.all(all.map((e) => e.process.exited));
    },
  };
}
