/**
 * One naming rule for sessions on many hosts: `node:session`, and a bare `session` (or
 * `local:session`) for this host. Unambiguous because tmux never stores a `:` in a session
 * name (it turns `:` into `_`), so the first `:` always ends a node name.
 */
import { AppError } from '@terminal-mcp/contract';
import { LOCAL_NODE, NODE_NAME_RE } from '../config/nodes-schema.js';

export interface NodeSessionName {
  /** undefined: this host. */
  node: string | undefined;
  session: string;
}

export function splitNodeName(qualified: string, configured: readonly string[]): NodeSessionName {
  const colon = qualified.indexOf(':');
  if (colon < 0) return { node: undefined, session: qualified };
  const node = qualified.slice(0, colon);
  const session = qualified.slice(colon + 1);
  if (node === LOCAL_NODE) return { node: undefined, session };
  if (!NODE_NAME_RE.test(node) || !configured.includes(node)) {
    throw new AppError(
      'SESSION_NOT_FOUND',
      'no such node',
      configured.length === 0 ? 'No nodes are configured: name a session of this host without a prefix.' : `Name a session as node:session with one of the configured nodes: ${configured.join(', ')}.`,
    );
  }
  return { node, session };
}

export const qualify = (node: string | undefined, name: string): string => (node === undefined ? name : `${node}:${name}`);
