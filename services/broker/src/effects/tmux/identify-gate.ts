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
 * The broker cannot stop a user from creating a session at that moment, but it must not
 * do it to the user's server itself: its control clients (the command client, every pane
 * watcher) and its own session changes (creating or removing the hidden session, ending a
 * client whose leaving destroys it) take turns here, one queue per tmux socket. A control
 * client holds its turn from spawn until its first byte of output, which tmux can only
 * send once the client's control state exists (control-process.ts).
 *
 * The queues live in a process-wide registry, so every copy of this module (the built one
 * a test helper imports, the source one a test runs) shares them.
 */
import { tmuxSocketPath } from './server-socket.js';

export type ReleaseTurn = () => void;

const REGISTRY = Symbol.for('terminal-mcp.tmux-identify-gate');

function queues(): Map<string, Promise<void>> {
  const g = globalThis as { [REGISTRY]?: Map<string, Promise<void>> };
  return (g[REGISTRY] ??= new Map());
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
