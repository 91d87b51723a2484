/**
 * The network sockets a process holds, read from /proc without strace: the socket inodes
 * among its open file descriptors (`/proc/<pid>/fd/* -> socket:[inode]`) that appear in
 * its network namespace's TCP and UDP tables (`/proc/<pid>/net/{tcp,tcp6,udp,udp6}`). A
 * Unix socket (the broker's role sockets, tmux) is in none of those tables.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface NetworkSocket {
  table: 'tcp' | 'tcp6' | 'udp' | 'udp6';
  inode: string;
  /** The remote end as the table shows it (hex address:port). */
  remote: string;
}

function socketInodes(pid: number): Set<string> {
  const out = new Set<string>();
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return out;
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) out.add(m[1]!);
    } catch {
      // closed between the listing and the read
    }
  }
  return out;
}

/** The TCP and UDP sockets `pid` holds right now (empty when it has exited). */
export function networkSocketsOf(pid: number): NetworkSocket[] {
  const inodes = socketInodes(pid);
  if (inodes.size === 0) return [];
  const found: NetworkSocket[] = [];
  for (const table of ['tcp', 'tcp6', 'udp', 'udp6'] as const) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
      const inode = cols[9];
      if (inode !== undefined && inode !== '0' && inodes.has(inode)) found.push({ table, inode, remote: cols[2] ?? '' });
    }
  }
  return found;
}

/** Samples `pid`'s network sockets every `everyMs` until stopped; what it ever saw. */
export function watchNetworkSockets(pid: number, everyMs = 20): { sample(): NetworkSocket[]; seen(): NetworkSocket[]; stop(): NetworkSocket[] } {
  const seen = new Map<string, NetworkSocket>();
  const sample = () => {
    const now = networkSocketsOf(pid);
    for (const s of now) seen.set(`${s.table}:${s.inode}`, s);
    return now;
  };
  const timer = setInterval(sample, everyMs);
  return {
    sample,
    seen: () => [...seen.values()],
    stop() {
      clearInterval(timer);
      sample();
      return [...seen.values()];
    },
  };
}
