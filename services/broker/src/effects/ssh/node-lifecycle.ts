/**
 * What the session lifecycle (lifecycle/) does on a node: tmux's `new-session`,
 * conditional `kill-session` and `resize-window` (effects/tmux/session-lifecycle.ts, the
 * same code as here) run on the node's tmux server as channels of the node's ssh master
 * connection (node-adapters.ts `nodeTmuxRunner`), taking their turn with the node's
 * control clients (identify-gate.ts key `ssh:<node>`, the transport's); and the real path
 * of a start directory, read ON the node: a local check of a remote path proves nothing.
 *
 * The directory read is one fixed remote command, `sh -c <constant script> sh <paths>`:
 * the paths are positional parameters (never script text), each single-quoted by
 * ssh-argv.ts, and were checked before (absolute, printable ASCII, no `..`, no `#`). For
 * each path the script prints its real path (GNU `realpath -e -z`: symlinks resolved, NUL
 * terminated, so no path can forge a second answer) when it is a directory, else an empty
 * answer. A node without GNU realpath answers nothing usable, and the start is refused.
 */
import { AppError } from '@terminal-mcp/contract';
import { execa } from 'execa';
import type { NodeConfig } from '../../config/nodes-schema.js';
import type { BrokerConfig } from '../../config/schema.js';
import { createSessionLifecycleTmux, type SessionLifecycleTmux } from '../tmux/session-lifecycle.js';
import { nodeTmuxRunner } from './node-adapters.js';
import { sshCommandArgs } from './ssh-argv.js';
import { ensureSshControlDir, sshTransport } from './ssh-transport.js';

/** One ssh round trip over the master connection. */
const REALPATH_TIMEOUT_MS = 10_000;
/** At most this many paths per read (a cwd and a profile's roots: 1 + 20). */
const MAX_PATHS = 32;

const REALPATH_SCRIPT = `for p do if [ -d "$p" ]; then realpath -e -z -- "$p" || printf '\\0'; else printf '\\0'; fi; done`;

export interface NodeLifecycleEffects {
  /** Creates, kills and resizes sessions on the node's tmux server. */
  readonly sessions: SessionLifecycleTmux;
  /** For each path, its real path on the node when it is a directory there, else null.
   * Throws TMUX_UNAVAILABLE when the node gave no usable answer. */
  realDirectories(paths: readonly string[]): Promise<(string | null)[]>;
}

/** Splits the script's NUL-terminated answers; null unless there is exactly one per path. */
export function parseRealDirectories(stdout: string, count: number): (string | null)[] | null {
  if (!stdout.endsWith('\0')) return count === 0 && stdout === '' ? [] : null;
  const answers = stdout.slice(0, -1).split('\0');
  if (answers.length !== count) return null;
  return answers.map((a) => (a === '' ? null : a));
}

export function nodeLifecycleEffects(config: BrokerConfig, stateDir: string, sshPath = 'ssh'): ((node: NodeConfig) => NodeLifecycleEffects) | undefined {
  if (config.nodes.length === 0) return undefined;
  const controlDir = ensureSshControlDir(stateDir);
  return (node) => {
    const target = { node, controlDir };
    return {
      sessions: createSessionLifecycleTmux({ runner: nodeTmuxRunner(node, controlDir), identifyKey: sshTransport(node, controlDir).identifyKey }),
      async realDirectories(paths) {
        if (paths.length > MAX_PATHS || paths.some((p) => !p.startsWith('/'))) throw new AppError('INTERNAL', 'refusing to read these paths on a node');
        const ran = await execa(sshPath, sshCommandArgs(target, ['sh', '-c', REALPATH_SCRIPT, 'sh', ...paths]), {
          reject: false,
          stdin: 'ignore',
          timeout: REALPATH_TIMEOUT_MS,
          killSignal: 'SIGKILL',
          maxBuffer: 1024 * 1024,
        });
        const answers = ran.exitCode === 0 && typeof ran.stdout === 'string' ? parseRealDirectories(ran.stdout, paths.length) : null;
        if (answers === null) throw new AppError('TMUX_UNAVAILABLE', `node ${node.name} gave no usable answer about the directory`);
        return answers;
      },
    };
  };
}
