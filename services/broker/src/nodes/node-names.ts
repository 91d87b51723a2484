/**
 * One naming rule for sessions on many hosts: `node:session`, and a bare `session` (or
 * `local:session`) for this host. Unambiguous because tmux never stores a `:` in a session
 * name (it turns `:` into `_`), so the first `:` always ends a node name.
 */
import { AppError } from '@terminal-mcp/contract';
import { LOCAL_NODE, NODE_NAME_RE } from '../config/nodes-schema.js';
import { splitQualified } from '../policy/qualified-name.js';

export interface NodeSessionName {
  /** undefined: this host. */
  node: string | undefined;
  session: string;
}

export function splitNodeName(qualified: string, configured: readonly string[]): NodeSessionName {
  const { node, session } = splitQualified(qualified, LOCAL_NODE);
  if (node === null) return { node: undefined, session };
  if (!NODE_NAME_RE.test(node) || !configured.includes(node)) {
    throw new AppError(
      'SESSION_NOT_FOUND',
      'no such node',
      configured.length === 0 ? 'No nodes are configured: name a session of this host without a prefix.' : `Name a session as node:session with one of the configured nodes: ${configured.join(', ')}.`,
    );
  }
  return { node, session };
}

/** One rule for every host's names (policy/qualified-name.ts). */
export { qualify } from '../policy/qualified-name.js';
