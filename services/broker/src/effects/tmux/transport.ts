/**
 * How the broker reaches a tmux server: the seam between the control-mode client (and its
 * one-shot command runner) and the process that carries the bytes. On this host, that is
 * `tmux` itself; on a node, `ssh … <host> -- tmux …` (effects/ssh/ssh-transport.ts). The
 * protocol above it is the same: same parser, same handshake, same identity pinning.
 */
import { identifyGateKey } from './identify-gate.js';
import { probeTmuxServer, tmuxSocketPath, type TmuxServerPresence } from './server-socket.js';

export interface LaunchCommand {
  file: string;
  args: string[];
}

export interface TmuxTransport {
  /** For logs: `local` or the node's name. */
  readonly label: string;
  /** True when tmux runs on this host: the hidden pane's loop can watch the broker's pid. */
  readonly sameHost: boolean;
  /** identify-gate.ts key: our control clients on one server take turns. */
  readonly identifyKey: string;
  /** The process to spawn for `tmux <tmuxArgs>` (global args included by the caller). */
  launch(tmuxArgs: readonly string[]): LaunchCommand;
  /** Whether a server listens, without starting anything; 'unknown' means "ask tmux". */
  probeServer(): Promise<TmuxServerPresence>;
  /** Ends what the transport keeps beyond its processes (an ssh master connection). */
  close(): Promise<void>;
  /** The remedy for a remote end that outlived its local process (control-process.ts
   * endStdioHolder): drops the connection this transport's processes share (a node's ssh
   * master; the next process makes a new one) and ends any `tmux <tmuxArgs>` that this left
   * orphaned on the other side. Absent on this host, where nothing is shared. */
  dropConnection?: (tmuxArgs: readonly string[]) => Promise<void>;
}

/** tmux on this host, found by socket name as tmux itself finds it. */
export function localTransport(socketName: string | undefined, tmuxPath: string, env: NodeJS.ProcessEnv): TmuxTransport {
  const socketPath = tmuxSocketPath(socketName, env);
  return {
    label: 'local',
    sameHost: true,
    identifyKey: identifyGateKey(socketName, env),
    launch: (tmuxArgs) => ({ file: tmuxPath, args: [...tmuxArgs] }),
    probeServer: () => probeTmuxServer(socketPath),
    close: async () => {},
  };
}
