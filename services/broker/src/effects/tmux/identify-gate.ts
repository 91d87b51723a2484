/**
 * One control client of ours identifying at a time, and never while we change sessions.
 *
 * tmux 3.3a crashes the whole server (NULL `control_state` in `control_write`, upstream
 * tmux/tmux#4980) when a session is created, renamed or destroyed while a control client
 * is half identified: its first identify message marks it a control client, the last one
 * sets up its control state, and the `%sessions-changed` / `%session-renamed` written in
 * between dereferences NULL. The identify messages arrive in several reads (every passed
 * fd ends one), so that window spans several turns of the server loop and widens under
 * load: "server exited unexpectedly" for whoever asked next. Reproduced on this machine by
 * sending only the first identify message and then creating a session.
 *
 * The same NULL dereference follows when a control client leaves: tmux writes
 * `%client-detached` to every control client, the half-identified one included (reproduced
 * here: a watcher detaching while a raw client had sent its first identify message; the
 * cause of a `TMUX_UNAVAILABLE` in the live-frames corpus test at load 20). So our clients
 * also leave in a turn (control-process.ts stop()).
 *
 * The broker cannot stop a user from creating a session at that moment, but it must not
 * do it to the user's server itself: its control clients (the command client, every pane
 * watcher) and its own session changes (creating or removing the hidden session, ending a
 * client whose leaving destroys it) take turns here, one queue per tmux socket. A control
 * client holds its turn from spawn until its first byte of output, which tmux can only
 * send once the client's control state exists (control-process.ts).
 *
 * Session changes by others come in bursts (a script starting ten agents creates ten
 * sessions within a few milliseconds of each other). When transcripts attached a watcher
 * to every new readable session, attaching in the middle of such a burst crashed the
 * server 4 times of 4 here (40 sessions created back to back); transcripts now record
 * through pipe-pane and attach nothing (effects/tmux/pane-pipe.ts), but a live view or a
 * wait still attaches a watcher, and the command client reconnects. So a
 * client of ours identifies only once the server's sessions have been still for SETTLE_MS
 * (acquireSettledIdentifyTurn; the command client notes every `%sessions-changed` and
 * `%session-renamed`), or after SETTLE_MAX_MS at the latest. That does not close the
 * window (nothing can stop a user's single change landing in it), it keeps our identifies
 * out of the moments when changes are most likely.
 *
 * The queues live in a process-wide registry, so every copy of this module (the built one
 * a test helper imports, the source one a test runs) shares them.
 */
import { tmuxSocketPath } from './server-socket.js';

export type ReleaseTurn = () => void;

/** How long the server's sessions must have been still before a client of ours identifies. */
export const SETTLE_MS = 300;
/** The longest a client waits for that: on a server whose sessions never rest, it still attaches. */
export const SETTLE_MAX_MS = 5_000;

const REGISTRY = Symbol.for('terminal-mcp.tmux-identify-gate');
const CHANGES = Symbol.for('terminal-mcp.tmux-identify-gate.changes');

function queues(): Map<string, Promise<void>> {
  // eslint-disable-next-line terminal-mcp/no-module-state -- one identify queue per tmux server, shared by every copy of this module in the process (a test loads built and source copies): the tmux server it serialises is process-wide too
  const g = globalThis as { [REGISTRY]?: Map<string, Promise<void>> };
  return (g[REGISTRY] ??= new Map());
}

/** When a session change was last seen on each server (Date.now()). */
function lastChanges(): Map<string, number> {
  // eslint-disable-next-line terminal-mcp/no-module-state -- when each tmux server's sessions last changed, shared like the queues above for the same reason
  const g = globalThis as { [CHANGES]?: Map<string, number> };
  return (g[CHANGES] ??= new Map());
}

/** A session of this server was created, renamed or destroyed just now. */
export function noteSessionChange(key: string, at = Date.now()): void {
  lastChanges().set(key, at);
}

/** The queue of one tmux server, named by its socket path (or its -L name when no path
 * can be computed). */
export function identifyGateKey(socketName: string | undefined, env: NodeJS.ProcessEnv): string {
  return tmuxSocketPath(socketName, env) ?? `-L ${socketName ?? 'default'}`;
}

/** Waits for our turn on this server; the returned release is idempotent. */
export function acquireIdentifyTurn(key: string): Promise<ReleaseTurn> {
  const map = queues();
  const previous = map.get(key) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((resolve) => (done = resolve));
  const tail = previous.then(() => mine);
  map.set(key, tail);
  let released = false;
  return previous.then(() => () => {
    if (released) return;
    released = true;
    done();
    if (map.get(key) === tail) map.delete(key);
  });
}

/** Runs `fn` in our turn on this server. */
export async function withIdentifyTurn<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const release = await acquireIdentifyTurn(key);
  try {
    return await fn();
  } finally {
    release();
  }
}

/** Our turn for a control client to identify: acquireIdentifyTurn, then kept until no
 * session change has been noted on this server for SETTLE_MS (at most SETTLE_MAX_MS). */
export async function acquireSettledIdentifyTurn(
  key: string,
  now: () => number = Date.now,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<ReleaseTurn> {
  const release = await acquireIdentifyTurn(key);
  const started = now();
  for (;;) {
    const still = now() - (lastChanges().get(key) ?? Number.NEGATIVE_INFINITY);
    const waited = now() - started;
    if (still >= SETTLE_MS || waited >= SETTLE_MAX_MS) return release;
    await sleep(Math.min(SETTLE_MS - still, SETTLE_MAX_MS - waited));
  }
}
