/**
 * How a session on another host is named to callers: `node:session` (`gpu:agent-1`), and a
 * session of this host bare. Pure, so the stores' rows (registry cleanup, bindings) and
 * the node routing name sessions by one rule (nodes/node-names.ts parses it back).
 */
export const qualify = (node: string | null | undefined, name: string): string => (node === undefined || node === null ? name : `${node}:${name}`);

/** A name as `terminal-mcp-registry annotate` takes it: `node:session`, or bare (or
 * `local:session`) for this host. tmux never stores a `:` in a session name, so the first
 * `:` ends the node. No check that the node is configured: rows of a node removed from the
 * config are still addressable. */
export function splitQualified(name: string, localNode: string): { node: string | null; session: string } {
  const colon = name.indexOf(':');
  if (colon < 0) return { node: null, session: name };
  const node = name.slice(0, colon);
  return { node: node === localNode ? null : node, session: name.slice(colon + 1) };
}
