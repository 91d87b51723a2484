/**
 * The socket directory: the broker's privilege boundary on disk. The directory is 0700
 * (or group-restricted in production, see deploy/), each socket 0660 with the umask set
 * BEFORE listen() so there is no window in which a socket is world-connectable.
 * A lock file keeps one broker per directory, and stale sockets are removed only after
 * proving nobody answers on them — never another live broker's.
 * With separate service users (deploy/), each socket is handed to its own group so that
 * only that service's user can connect (TERMINAL_MCP_SOCKET_GROUPS).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, closeSync, lstatSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
// eslint-disable-next-line terminal-mcp/no-network-egress -- probes whether a Unix socket in the socket directory answers (a path, never a host or port)
import { createConnection, type Server } from 'node:net';
import { join } from 'node:path';
import { SOCKET_ROLES, type SocketRole } from '@terminal-mcp/contract';
import { pidAlive } from './pid-alive.js';

export class BrokerAlreadyRunningError extends Error {
  constructor(readonly pid: number | undefined, where: string) {
    super(`another broker${pid ? ` (pid ${pid})` : ''} is already serving ${where}`);
    this.name = 'BrokerAlreadyRunningError';
  }
}

export function ensureSocketDir(socketDir: string): void {
  mkdirSync(socketDir, { recursive: true, mode: 0o700 });
  const st = lstatSync(socketDir);
  if (!st.isDirectory()) throw new Error(`socket dir ${socketDir} is not a directory`);
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) {
    throw new Error(`socket dir ${socketDir} belongs to another user`);
  }
  // A pre-existing world-accessible directory would let others race our socket files.
  if ((st.mode & 0o007) !== 0) chmodSync(socketDir, st.mode & 0o770);
}

export interface InstanceLock {
  release(): void;
}

/** Exclusive-create lock file holding our pid; a lock whose pid is dead is stale. */
export function acquireInstanceLock(socketDir: string): InstanceLock {
  const lockPath = join(socketDir, 'broker.lock');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return {
        release() {
          try {
            if (readFileSync(lockPath, 'utf8').trim() === String(process.pid)) unlinkSync(lockPath);
          } catch {
            /* already gone */
          }
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let holder: number | undefined;
      try {
        holder = Number.parseInt(readFileSync(lockPath, 'utf8').trim(), 10);
      } catch {
        holder = undefined;
      }
      if (holder && holder !== process.pid && pidAlive(holder)) throw new BrokerAlreadyRunningError(holder, socketDir);
      try {
        unlinkSync(lockPath);
      } catch {
        /* raced with another cleaner */
      }
    }
  }
  throw new BrokerAlreadyRunningError(undefined, socketDir);
}

/** Resolves true when something accepts connections on the socket path. */
export function socketAnswers(path: string, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = createConnection(path);
    const done = (answer: boolean) => {
      sock.destroy();
      resolve(answer);
    };
    sock.setTimeout(timeoutMs, () => done(false));
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}

export async function removeStaleSocket(path: string): Promise<void> {
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return;
  }
  if (!st.isSocket()) throw new Error(`${path} exists and is not a socket; refusing to remove it`);
  if (await socketAnswers(path)) throw new BrokerAlreadyRunningError(undefined, path);
  unlinkSync(path);
}

/** A socket's group, by name (for messages) and id. */
export interface SocketGroup {
  name: string;
  gid: number;
}

export type SocketGroups = Partial<Record<SocketRole, SocketGroup>>;

export class SocketGroupsError extends Error {
  constructor(message: string) {
    super(`TERMINAL_MCP_SOCKET_GROUPS: ${message}`);
    this.name = 'SocketGroupsError';
  }
}

const GROUP_NAME_RE = /^[A-Za-z_][A-Za-z0-9_.-]{0,31}$/;

/** A group name or numeric id to its id. Names go through NSS (`getent group`), so groups
 * from LDAP or sssd work as well as /etc/group. */
function resolveGroup(name: string): SocketGroup {
  if (/^\d+$/.test(name)) return { name, gid: Number(name) };
  if (!GROUP_NAME_RE.test(name)) throw new SocketGroupsError(`"${name}" is not a group name`);
  let line: string;
  try {
    line = execFileSync('getent', ['group', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    throw new SocketGroupsError(`no group "${name}" on this machine; create it (deploy/install.sh does)`);
  }
  const gid = Number(line.split(':')[2]);
  if (!Number.isInteger(gid)) throw new SocketGroupsError(`cannot read the id of group "${name}"`);
  return { name, gid };
}

/**
 * Parses `gateway=tmcp-gateway,observer=tmcp-observer,web=tmcp-web` (any subset; unset or
 * empty means every socket keeps the broker's own group, as for a single-user install).
 * A typo must not silently leave a socket unusable or shared, so unknown roles, repeated
 * roles and unknown groups stop the broker.
 */
export function resolveSocketGroups(raw: string | undefined): SocketGroups {
  const groups: SocketGroups = {};
  if (raw === undefined || raw.trim() === '') return groups;
  for (const entry of raw.split(',')) {
    const m = /^\s*([a-z]+)\s*=\s*(\S+)\s*$/.exec(entry);
    if (!m) throw new SocketGroupsError(`"${entry}" is not role=group`);
    const role = m[1] as SocketRole;
    if (!SOCKET_ROLES.includes(role)) throw new SocketGroupsError(`unknown role "${m[1]}" (roles: ${SOCKET_ROLES.join(', ')})`);
    if (groups[role]) throw new SocketGroupsError(`role "${role}" is named twice`);
    groups[role] = resolveGroup(m[2]!);
  }
  return groups;
}

export async function listenOnSocket(server: Server, path: string, group?: SocketGroup): Promise<void> {
  await removeStaleSocket(path);
  const previous = process.umask(0o117); // sockets come into existence as 0660
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } finally {
    process.umask(previous);
  }
  chmodSync(path, 0o660);
  if (group) {
    // Born 0660 with our own group, so nobody else could connect before this.
    try {
      chownSync(path, -1, group.gid);
    } catch (err) {
      server.close();
      const code = (err as NodeJS.ErrnoException).code;
      const why = code === 'EPERM' ? `the broker's user must be a member of group ${group.name} (deploy/install.sh adds it; log in again or restart the unit)` : String(code);
      throw new SocketGroupsError(`cannot give ${path} to group ${group.name}: ${why}`);
    }
  }
}
