/** Builds each node's tmux adapter over ssh (ssh-transport.ts): a slower link than a local
 * socket, so longer bounds, and a reconnect backoff that grows to half a minute. And each
 * node's input effects: delivery (as here: through the node's control client, or tmux's
 * load-buffer/paste-buffer/send-keys run through ssh as channels of the node's master
 * connection for a text that cannot travel on a control line, with identity re-read
 * through the node's control client), its process tree (remote-processes.ts) and
 * terminal_run's completion channels (node-run-fifos.ts). */
import type { Logger } from 'pino';
import type { NodeConfig } from '../../config/nodes-schema.js';
import type { BrokerConfig } from '../../config/schema.js';
import type { PaneProcessFacts } from '../../policy/foreground.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from '../tmux/adapter.js';
import { createPaneDelivery, type PaneDelivery } from '../tmux/deliver.js';
import { createTmuxCommandRunner, type TmuxCommandResult, type TmuxCommandRunner } from '../tmux/tmux-command.js';
import { createRunSignals, type RunSignals } from '../tmux/run-signal.js';
import { nodeRunEndpoints, nodeStty } from './node-run-fifos.js';
import { remoteProcessTreeReader } from './remote-processes.js';
import { createSshLane } from './ssh-lane.js';
import { ensureSshControlDir, sshTransport } from './ssh-transport.js';

/** Up to half again of each wait at random: after a network blip, nodes reconnect spread
 * out, not all in one instant (docs/architecture.md, "Toward 100+ nodes"). */
export const NODE_RECONNECT = { initialDelayMs: 500, maxDelayMs: 30_000, jitter: 0.5 };

/** A node's one-shot tmux commands get longer than the local 5 s: each is an ssh channel. */
export const NODE_TMUX_COMMAND_TIMEOUT_MS = 10_000;

/** What the input attempt needs of a node, beside its gate: the same delivery as here, and
 * the pane's process tree read on the node. */
export interface NodeInputEffects {
  delivery: PaneDelivery;
  processTree(panePid: number, tmuxCommand: string): Promise<PaneProcessFacts>;
  /** terminal_run's completion channels, their FIFOs on the node (node-run-fifos.ts). */
  run: RunSignals;
}

/** Each node's adapter; `startConnecting()` lets them connect (until then their connects
 * wait in the lane). */
export type NodeAdapters = ((node: NodeConfig) => ControlModeTmuxAdapter) & { startConnecting(): void };

export function nodeAdapters(config: BrokerConfig, stateDir: string, log: Logger): NodeAdapters | undefined {
  if (config.nodes.length === 0) return undefined;
  const controlDir = ensureSshControlDir(stateDir);
  // The nodes' connects and exits take turns (ssh-lane.ts), from when the broker serves:
  // 100 nodes connecting during the build held it for 57-63 s at load 20 (each spawn runs
  // on the event loop).
  const lane = createSshLane(undefined, { held: true });
  const adapterFor = (node: NodeConfig) =>
    createTmuxAdapter({
      ...(node.tmux_socket !== undefined && { socketName: node.tmux_socket }),
      logger: log.child({ node: node.name }),
      transport: sshTransport(node, controlDir, 'ssh', lane),
      commandTimeoutMs: 10_000,
      connectTimeoutMs: 30_000,
      reconnect: NODE_RECONNECT,
    });
  return Object.assign(adapterFor, { startConnecting: () => lane.open() });
}

/** ssh exits 255 for its own failures, and may do so after the remote tmux ran (the link
 * broke before the answer came back): that is "no answer", as a timeout is, so a paste or
 * key press is DELIVERY_UNKNOWN then, never "nothing was typed". tmux itself exits 0 or 1. */
function sshAware(runner: TmuxCommandRunner): TmuxCommandRunner {
  const judged = (r: TmuxCommandResult): TmuxCommandResult => (r.exitCode === 255 ? { ...r, timedOut: true } : r);
  return {
    run: async (args, options) => judged(await runner.run(args, options)),
    runList: async (commands, options) => judged(await runner.runList(commands, options)),
  };
}

/** One-shot tmux commands on the node's server, each an ssh channel of its master
 * connection; ssh's own failures read as "no answer" (sshAware). */
export function nodeTmuxRunner(node: NodeConfig, controlDir: string): TmuxCommandRunner {
  return sshAware(createTmuxCommandRunner({ socketName: node.tmux_socket, transport: sshTransport(node, controlDir), timeoutMs: NODE_TMUX_COMMAND_TIMEOUT_MS }));
}

export function nodeInputEffects(config: BrokerConfig, stateDir: string): ((node: NodeConfig, tmux: ControlModeTmuxAdapter) => NodeInputEffects) | undefined {
  if (config.nodes.length === 0) return undefined;
  const controlDir = ensureSshControlDir(stateDir);
  return (node, tmux) => {
    const runner = nodeTmuxRunner(node, controlDir);
    return {
      // Through the node's control connection when it is up (no ssh channel per send); a
      // text that cannot travel on a control line (a newline, a tab, over 4 KB) or a link
      // that is down: one ssh channel per text or key press.
      delivery: createPaneDelivery({ runner, tmux, control: tmux.inputControl, oneSpawn: true }),
      processTree: remoteProcessTreeReader({ node, controlDir }),
      run: createRunSignals({ stateDir, runner, tmux, endpoints: nodeRunEndpoints({ node, controlDir }), stty: nodeStty({ node, controlDir }) }),
    };
  };
}
