/**
 * The ssh command line for a node, built from the node's config only (config/nodes-schema.ts
 * validated every field). Nothing a client sends reaches it: a client names a node, the
 * broker looks the name up in the config, and only the config's values are used.
 *
 * - Host keys are verified (`StrictHostKeyChecking=yes`, never updated by us), there is no
 *   terminal and no prompt (`-T`, `BatchMode=yes`: keys or the operator's ssh-agent only,
 *   no password ever), nothing is forwarded, and no local command runs.
 * - One multiplexed connection per node (`ControlMaster=auto` with `ControlPersist`): the
 *   control client, the one-shot commands and probes are channels of it. The control
 *   socket lives in a 0700 directory under the broker's private state dir, named by a hash
 *   of the node's whole ssh config (controlSocketName): not ssh's `%C` (host, port, user),
 *   which two nodes with the same destination but different known_hosts files would share,
 *   so the second would ride the first's already verified connection.
 * - `--` after the destination: whatever follows is the remote command, never an option.
 *   ssh joins the remote command's words with spaces and hands them to the remote login
 *   shell, so each word is single-quoted here (and only tmux's own argument check's
 *   printable ASCII gets this far).
 */
import { createHash } from 'node:crypto';
import { AppError } from '@terminal-mcp/contract';
import { parseDestination, SSH_SAFE_PATH_RE, type NodeConfig } from '../../config/nodes-schema.js';

/** Seconds the master connection outlives its last channel. */
export const CONTROL_PERSIST_SECONDS = 60;
/** Keepalive: a dead link is noticed after about interval × count seconds. */
export const SERVER_ALIVE_INTERVAL_SECONDS = 15;
const SERVER_ALIVE_COUNT_MAX = 3;
const CONNECT_TIMEOUT_SECONDS = 15;

export interface SshTarget {
  /** The node as configured. */
  node: NodeConfig;
  /** Directory of the node's ControlMaster sockets (0700, under the state dir). */
  controlDir: string;
}

/** The node's ControlMaster socket name: short (a Unix socket path has ~108 bytes) and
 * different for any change of what the connection is checked against. */
export function controlSocketName(node: NodeConfig): string {
  const { name, ssh, known_hosts, identity_file, ssh_config } = node;
  return createHash('sha256').update(JSON.stringify([name, ssh, known_hosts, identity_file, ssh_config])).digest('hex').slice(0, 20);
}

/** POSIX-shell single quoting of one word of the remote command. */
export function quoteRemoteWord(word: string): string {
  if (!/^[\x20-\x7e\t]*$/.test(word)) throw new AppError('INTERNAL', 'refusing a non-printable word in a remote command');
  return `'${word.replaceAll("'", "'\\''")}'`;
}

/** The options every ssh of a node gets, in order, before the destination. */
export function sshOptions(target: SshTarget): string[] {
  const { node, controlDir } = target;
  const dest = parseDestination(node.ssh);
  if (dest === null) throw new AppError('INTERNAL', 'node destination failed validation');
  if (!SSH_SAFE_PATH_RE.test(controlDir)) {
    throw new AppError('NODE_UNAVAILABLE', 'the state directory cannot hold ssh control sockets', 'Use a state directory path of letters, digits and . _ / + - only (TERMINAL_MCP_STATE_DIR).');
  }
  const o = (kv: string) => ['-o', kv];
  const args = [
    '-T',
    ...o('BatchMode=yes'),
    ...o('StrictHostKeyChecking=yes'),
    ...o('UpdateHostKeys=no'),
    ...o('PasswordAuthentication=no'),
    ...o('KbdInteractiveAuthentication=no'),
    ...o('ForwardAgent=no'),
    ...o('ForwardX11=no'),
    ...o('ClearAllForwardings=yes'),
    ...o('PermitLocalCommand=no'),
    ...o('ControlMaster=auto'),
    ...o(`ControlPath=${controlDir}/${controlSocketName(node)}`),
    ...o(`ControlPersist=${CONTROL_PERSIST_SECONDS}`),
    ...o(`ServerAliveInterval=${SERVER_ALIVE_INTERVAL_SECONDS}`),
    ...o(`ServerAliveCountMax=${SERVER_ALIVE_COUNT_MAX}`),
    ...o(`ConnectTimeout=${CONNECT_TIMEOUT_SECONDS}`),
  ];
  if (node.ssh_config !== undefined) args.push('-F', node.ssh_config);
  if (node.known_hosts !== undefined) args.push(...o(`UserKnownHostsFile=${node.known_hosts}`), ...o('GlobalKnownHostsFile=/dev/null'));
  if (node.identity_file !== undefined) args.push('-i', node.identity_file, ...o('IdentitiesOnly=yes'));
  if (dest.port !== undefined) args.push('-p', String(dest.port));
  if (dest.user !== undefined) args.push('-l', dest.user);
  return args;
}

/** The host ssh connects to (an alias or a name/address, brackets removed). */
function destinationHost(node: NodeConfig): string {
  const host = parseDestination(node.ssh)?.host ?? '';
  return host.startsWith('[') ? host.slice(1, -1) : host;
}

/** argv (after `ssh`) that runs `remote` (program and arguments) on the node. */
export function sshCommandArgs(target: SshTarget, remote: readonly string[]): string[] {
  return [...sshOptions(target), destinationHost(target.node), '--', ...remote.map(quoteRemoteWord)];
}

/** argv (after `ssh`) that asks the node's master connection to exit (`-O exit`). */
export function sshExitMasterArgs(target: SshTarget): string[] {
  return [...sshOptions(target), '-O', 'exit', destinationHost(target.node)];
}

/** Why a node is not reachable, as a category: ssh's stderr itself (paths, host names,
 * key fingerprints) stays in the broker log. */
export type SshFailure =
  | 'host_key_unknown'
  | 'host_key_changed'
  | 'auth_refused'
  | 'connection_refused'
  | 'connect_timeout'
  | 'unresolvable'
  | 'connection_lost'
  | 'remote_tmux_not_running'
  | 'remote_tmux_missing'
  | 'failed';

const FAILURES: readonly [RegExp, SshFailure][] = [
  [/REMOTE HOST IDENTIFICATION HAS CHANGED|Host key for .* has changed/i, 'host_key_changed'],
  [/Host key verification failed|No \S+ host key is known/i, 'host_key_unknown'],
  [/Permission denied/i, 'auth_refused'],
  [/Connection refused/i, 'connection_refused'],
  [/timed out|not responding/i, 'connect_timeout'],
  [/Could not resolve hostname|Name or service not known/i, 'unresolvable'],
  [/no server running|error connecting to|server exited unexpectedly/i, 'remote_tmux_not_running'],
  [/tmux: (?:command )?not found|No such file or directory/i, 'remote_tmux_missing'],
  [/closed by remote host|Connection closed|Broken pipe|Connection reset|exited \(|exit \d+|SIGTERM|SIGKILL/i, 'connection_lost'],
];

export function classifySshFailure(stderr: string): SshFailure {
  for (const [re, failure] of FAILURES) if (re.test(stderr)) return failure;
  return 'failed';
}

/** The command that makes a node's host key known, for the operator to run after checking
 * the fingerprint it prints. */
export function acceptHostKeyCommand(node: NodeConfig): string {
  const dest = parseDestination(node.ssh);
  const file = node.known_hosts ?? '~/.ssh/known_hosts';
  if (dest !== null && /^[0-9.]+$|^\[|\./.test(dest.host)) {
    // A real host name or address: ssh-keyscan reads no ssh config, so this is exact.
    return `ssh-keyscan ${dest.port !== undefined ? `-p ${dest.port} ` : ''}${destinationHost(node)} >> ${file}`;
  }
  // An alias of the ssh config: only ssh itself resolves it.
  return `ssh -o StrictHostKeyChecking=ask${node.known_hosts !== undefined ? ` -o UserKnownHostsFile=${node.known_hosts}` : ''} ${node.ssh} true`;
}

/** One line for a caller: what is wrong with the node and what to do. */
export function failureHint(node: NodeConfig, failure: SshFailure): string {
  switch (failure) {
    case 'host_key_unknown':
      return `The host key of node ${node.name} is not known, so the broker refuses to connect. Check the key's fingerprint out of band, then accept it: \`${acceptHostKeyCommand(node)}\``;
    case 'host_key_changed':
      return `The host key of node ${node.name} differs from the known one: possibly an attack. Verify the host; if the key really changed, remove the old line (\`ssh-keygen -R <host> -f <known_hosts>\`) and accept the new one: \`${acceptHostKeyCommand(node)}\``;
    case 'auth_refused':
      return `Node ${node.name} refused the broker's key: add the operator's public key to the remote authorized_keys, or load it into ssh-agent.`;
    case 'remote_tmux_not_running':
      return `No tmux server runs on node ${node.name}${node.tmux_socket !== undefined ? ` (socket ${node.tmux_socket})` : ''}; the broker attaches when one appears.`;
    case 'remote_tmux_missing':
      return `tmux is not installed on node ${node.name}.`;
    default:
      return `Node ${node.name} is not reachable over ssh; the broker retries with backoff. Call terminal_node_health for its state.`;
  }
}
