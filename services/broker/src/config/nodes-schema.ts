/**
 * `nodes:` in config.yaml: other hosts whose tmux server the broker reaches over OpenSSH.
 * Pure: validation only. Everything that later lands on an ssh command line comes from
 * here and nowhere else (effects/ssh/ssh-argv.ts), so every field is checked against a
 * strict character set: no leading `-` (an option), no whitespace (a second argument
 * inside `-o`), no `%` (ssh expands `%` tokens in paths and commands), no `~`, no quotes.
 */
import { z } from 'zod';

/** A node's name, as written in `node:session`. `local` names this host. */
export const NODE_NAME_RE = /^[a-z][a-z0-9_-]{0,31}$/;
export const LOCAL_NODE = 'local';

/** `host`, `user@host`, `host:port`, `user@host:port`, or an alias of the operator's
 * ~/.ssh/config (a host token). IPv6 literals go in brackets. */
const DESTINATION_RE = /^(?:([A-Za-z_][A-Za-z0-9._-]{0,31})@)?([A-Za-z0-9][A-Za-z0-9.-]{0,252}|\[[0-9A-Fa-f:.]{2,45}\])(?::([0-9]{1,5}))?$/;

/** An absolute path ssh can take inside `-o Key=value`: no whitespace, `%`, `~`, quotes or `=`-tricks. */
export const SSH_SAFE_PATH_RE = /^\/[A-Za-z0-9._/+-]{1,1023}$/;

export interface SshDestination {
  user?: string;
  host: string;
  port?: number;
}

/** The parsed destination, or null when it is not one of the accepted forms. */
export function parseDestination(text: string): SshDestination | null {
  const m = DESTINATION_RE.exec(text);
  if (m === null) return null;
  const [, user, host, portText] = m;
  if (host === undefined) return null;
  const port = portText === undefined ? undefined : Number(portText);
  if (port !== undefined && (port < 1 || port > 65_535)) return null;
  return { ...(user !== undefined && { user }), host, ...(port !== undefined && { port }) };
}

const pattern = z.string().min(1).max(256);
const safePath = (what: string) =>
  z.string().regex(SSH_SAFE_PATH_RE, `${what} must be an absolute path of letters, digits and . _ / + - (no spaces, %, ~ or quotes)`);

export const nodeSchema = z
  .object({
    name: z
      .string()
      .regex(NODE_NAME_RE, 'node name: a lowercase letter, then up to 31 of a-z 0-9 _ -')
      .refine((n) => n !== LOCAL_NODE, `"${LOCAL_NODE}" names this host and cannot be configured`),
    /** An alias of the operator's ssh config, or [user@]host[:port]. */
    ssh: z
      .string()
      .max(300)
      .refine((d) => parseDestination(d) !== null, 'ssh must be an ssh config alias or [user@]host[:port] (letters, digits, . _ -; no leading -, no %, no spaces)'),
    /** `tmux -L <name>` on the node; absent: the remote user's default server. */
    tmux_socket: z
      .string()
      .regex(/^[A-Za-z0-9_.][A-Za-z0-9_.-]{0,99}$/, 'tmux_socket: letters, digits, _ . - (no leading -)')
      .optional(),
    /** Host keys are checked against this file (absent: the operator's ~/.ssh/known_hosts). */
    known_hosts: safePath('known_hosts').optional(),
    /** A private key file (absent: the operator's default keys or ssh-agent). No passwords, ever. */
    identity_file: safePath('identity_file').optional(),
    /** An ssh_config file to use instead of ~/.ssh/config. */
    ssh_config: safePath('ssh_config').optional(),
    /** Sessions of this node an agent may read (by their name on the node); absent: the
     * top-level allowed_session_patterns. */
    allowed_session_patterns: z.array(pattern).max(500).optional(),
    /** Sessions of this node an agent may type into (by their name on the node), when
     * `permissions.terminal_input` is on; absent: `input_policy.allowed_session_patterns`,
     * else this node's read patterns. Deny patterns, sensitive names, guarded commands and
     * every other input rule are the top-level ones. */
    input_session_patterns: z.array(pattern).max(500).optional(),
  })
  .strict();

export const nodesSchema = z
  .array(nodeSchema)
  .max(100)
  .default([])
  .refine((ns) => new Set(ns.map((n) => n.name)).size === ns.length, 'node names must be unique');

export type NodeConfig = z.output<typeof nodeSchema>;
