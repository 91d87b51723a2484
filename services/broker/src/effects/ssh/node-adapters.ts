/** Builds each node's tmux adapter over ssh (ssh-transport.ts): a slower link than a local
 * socket, so longer bounds, and a reconnect backoff that grows to half a minute. */
import type { Logger } from 'pino';
import type { NodeConfig } from '../../config/nodes-schema.js';
import type { BrokerConfig } from '../../config/schema.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from '../tmux/adapter.js';
import { ensureSshControlDir, sshTransport } from './ssh-transport.js';

export const NODE_RECONNECT = { initialDelayMs: 500, maxDelayMs: 30_000 };

export function nodeAdapters(config: BrokerConfig, stateDir: string, log: Logger): ((node: NodeConfig) => ControlModeTmuxAdapter) | undefined {
  if (config.nodes.length === 0) return undefined;
  const controlDir = ensureSshControlDir(stateDir);
  return (node) =>
    createTmuxAdapter({
      ...(node.tmux_socket !== undefined && { socketName: node.tmux_socket }),
      logger: log.child({ node: node.name }),
      transport: sshTransport(node, controlDir),
      commandTimeoutMs: 10_000,
      connectTimeoutMs: 30_000,
      reconnect: NODE_RECONNECT,
    });
}
