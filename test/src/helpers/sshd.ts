/**
 * A real OpenSSH server for the remote-node tests: `/usr/sbin/sshd -D` on a free loopback
 * port, with its own host key, config, pid file and authorized_keys in a temp dir under
 * TMPDIR, and a client key that authorized_keys accepts. Runs as the test's user (root in
 * CI: `PermitRootLogin prohibit-password`); the remote side's tmux finds the test's tmux
 * servers because sshd hands sessions the test's TMUX_TMPDIR (`SetEnv`), with an empty
 * HOME of their own so the account's rc files do not run on every channel.
 *
 * `kill()` ends the listener AND every connection process it forked (the whole tree, as a
 * crashed or rebooted host would), `start()` brings a listener back on the same port with
 * the same host key, `stop()` ends everything and removes the temp dir.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { fileTagged } from './file-tag.js';
import { freePort, portAnswers } from './ports.js';
import { pidAlive } from './owned-process.js';
import { findSystemTool } from './system-tool.js';
import { waitFor } from './wait-for.js';

export interface TestSshd {
  readonly port: number;
  readonly dir: string;
  /** Private key the server accepts. */
  readonly clientKey: string;
  /** A known_hosts file with this server's host key. */
  readonly knownHosts: string;
  /** A known_hosts file without it (an unknown host). */
  readonly emptyKnownHosts: string;
  /** `<the test's user>@127.0.0.1:PORT`. */
  readonly destination: string;
  /** The listener's pid (undefined while killed): its descendants are the connection
   * processes and what runs in them. */
  readonly pid: number | undefined;
  /** SIGKILL the listener and every session process it forked. */
  kill(): Promise<void>;
  /** Start the listener again (after kill) on the same port. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Why sshd cannot run here, or undefined. */
export function sshdUnavailable(): string | undefined {
  if (findSystemTool('sshd') === undefined) return 'sshd is not installed (apt-get install openssh-server)';
  if (findSystemTool('ssh') === undefined || findSystemTool('ssh-keygen') === undefined) return 'ssh/ssh-keygen are not installed (apt-get install openssh-client)';
  return undefined;
}

/** Every descendant of `pid` (from /proc), deepest last. */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    const p = Number(name);
    if (!Number.isSafeInteger(p)) continue;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), p]);
    } catch {
      /* gone */
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}


/** How long the processes of killed sessions get to end on SIGTERM before SIGKILL. */
const TERM_GRACE_MS = 5_000;

export interface StartSshdOptions {
  /** sshd's MaxStartups (unauthenticated connections taken at once; sshd's default is
   * 10:30:100, which drops most of a start of many nodes that all share this one server). */
  maxStartups?: number;
}

export async function startSshd(options: StartSshdOptions = {}): Promise<TestSshd> {
  const sshd = findSystemTool('sshd') as string;
  // Tagged with the test file's marker: sshd's process title overwrites its environment,
  // so the leak guard knows a listener left running by the config path in its title.
  const dir = mkdtempSync(join(tmpdir(), `tmcp-sshd${fileTagged()}`));
  const keygen = (file: string) => execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'tmcp-test', '-f', file], { stdio: 'ignore' });
  keygen(join(dir, 'host_key'));
  keygen(join(dir, 'client_key'));
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'client_key.pub')), { mode: 0o600 });
  // sshd's privilege separation directory (Debian's service creates it at boot).
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const port = await freePort();
  const home = join(dir, 'home');
  mkdirSync(home, { mode: 0o700 });
  const tmuxTmpdir = process.env.TMUX_TMPDIR ? realpathSync(process.env.TMUX_TMPDIR) : undefined;
  const config = [
    `Port ${port}`,
    'ListenAddress 127.0.0.1',
    `HostKey ${join(dir, 'host_key')}`,
    `PidFile ${join(dir, 'sshd.pid')}`,
    `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'UsePAM no',
    'StrictModes no',
    'PermitRootLogin prohibit-password',
    'AllowTcpForwarding no',
    'X11Forwarding no',
    'PrintMotd no',
    'LogLevel ERROR',
    ...(options.maxStartups !== undefined ? [`MaxStartups ${options.maxStartups}`] : []),
    // An empty home for the sessions (SetEnv overrides sshd's own HOME): bash reads
    // ~/.bashrc for every command that comes over ssh, and the test account's rc files
    // (pyenv's rehash on this machine) would run, and could hang, on every channel.
    `SetEnv HOME=${home}${tmuxTmpdir !== undefined ? ` TMUX_TMPDIR=${tmuxTmpdir}` : ''}`,
  ];
  writeFileSync(join(dir, 'sshd_config'), `${config.join('\n')}\n`);
  const hostKey = readFileSync(join(dir, 'host_key.pub'), 'utf8').split(' ').slice(0, 2).join(' ');
  writeFileSync(join(dir, 'known_hosts'), `[127.0.0.1]:${port} ${hostKey}\n`);
  writeFileSync(join(dir, 'empty_known_hosts'), '');

  let child: ChildProcess | undefined;
  const start = async () => {
    const c = spawn(sshd, ['-D', '-e', '-f', join(dir, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    c.stderr?.on('data', (d: Buffer) => {
      if (stderr.length < 4_000) stderr += d.toString();
    });
    child = c;
    await waitFor(`sshd listening on ${port}`, async () => {
      if (c.exitCode !== null) throw new Error(`sshd exited: ${stderr}`);
      return portAnswers(port);
    });
  };
  const kill = async () => {
    const c = child;
    if (c?.pid === undefined) return;
    const tree = [c.pid, ...descendants(c.pid)];
    const signal = (pids: readonly number[], sig: NodeJS.Signals) => {
      for (const p of pids) {
        try {
          process.kill(p, sig);
        } catch {
          /* already gone */
        }
      }
    };
    // The daemon and its connection processes die at once (the network is cut, as on a
    // crash). What ran in the sessions is asked to end first: a login shell still reading
    // the account's rc files may be holding a lock there (pyenv's rehash lock in ~/.bashrc
    // was left behind by a SIGKILL, and every later login then waited 60 s for it); SIGTERM
    // lets it run its exit trap. What is still there after TERM_GRACE_MS is killed.
    const isSshd = (p: number) => {
      try {
        return readFileSync(`/proc/${p}/comm`, 'utf8').trim() === 'sshd';
      } catch {
        return false;
      }
    };
    const daemons = tree.filter(isSshd);
    const sessions = tree.filter((p) => !daemons.includes(p));
    signal(daemons, 'SIGKILL');
    signal(sessions, 'SIGTERM');
    await waitFor('the sessions to end', () => sessions.every((p) => !pidAlive(p)) || undefined, TERM_GRACE_MS).catch(() => signal(sessions, 'SIGKILL'));
    await waitFor('sshd and its sessions to exit', () => tree.every((p) => !pidAlive(p)) || undefined);
    child = undefined;
  };
  await start();
  return {
    port,
    dir,
    clientKey: join(dir, 'client_key'),
    knownHosts: join(dir, 'known_hosts'),
    emptyKnownHosts: join(dir, 'empty_known_hosts'),
    destination: `${userInfo().username}@127.0.0.1:${port}`,
    get pid() {
      return child?.pid;
    },
    kill,
    start,
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
