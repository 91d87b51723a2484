/**
 * Where the tmux server's socket is, so the broker can wait for a server with a `stat`
 * instead of spawning tmux every few seconds. tmux 3.3a puts `-L <name>` (default
 * `default`) at `<dir>/tmux-<uid>/<name>`, where `<dir>` is the first of `$TMUX_TMPDIR`
 * and `/tmp` whose realpath resolves (a TMUX_TMPDIR that does not exist is skipped, as
 * docs/architecture.md section 6 notes).
 *
 * tmux 3.3a leaves the socket file behind when its server exits, so a present file is
 * probed with a bare connect(): ECONNREFUSED means nobody listens. Connecting and closing
 * at once is harmless to a live server (it drops a client that never identified). Only
 * 'absent' is trusted; 'listening' and 'unknown' both mean "ask tmux".
 */
import { realpathSync, statSync } from 'node:fs';
// eslint-disable-next-line terminal-mcp/no-network-egress -- probes tmux's own Unix socket (a path, never a host or port)
import { createConnection } from 'node:net';
import { join } from 'node:path';

export function tmuxSocketPath(socketName: string | undefined, env: NodeJS.ProcessEnv = process.env): string | null {
  const uid = process.getuid?.();
  if (uid === undefined) return null;
  for (const dir of [env.TMUX_TMPDIR, '/tmp']) {
    if (dir === undefined || dir === '') continue;
    try {
      return join(realpathSync(dir), `tmux-${uid}`, socketName ?? 'default');
    } catch {
      // tmux skips a directory it cannot resolve; so do we
    }
  }
  return null;
}

export type TmuxServerPresence = 'listening' | 'absent' | 'unknown';

/** 'absent' only when certainly no server listens on `path`. Never starts anything. */
export async function probeTmuxServer(path: string | null): Promise<TmuxServerPresence> {
  if (path === null) return 'unknown';
  try {
    if (!statSync(path).isSocket()) return 'absent';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'absent' : 'unknown';
  }
  return new Promise((resolve) => {
    const socket = createConnection(path);
    const done = (presence: TmuxServerPresence) => {
      socket.destroy();
      resolve(presence);
    };
    socket.setTimeout(1_000, () => done('unknown'));
    socket.once('connect', () => done('listening'));
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code === 'ECONNREFUSED' || err.code === 'ENOENT' ? 'absent' : 'unknown'));
  });
}
