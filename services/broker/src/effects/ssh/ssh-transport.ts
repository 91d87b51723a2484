/**
 * A node's tmux, reached over OpenSSH (transport.ts): `ssh … <host> -- tmux -L <socket> …`.
 * The control client's stdin/stdout are the ssh channel's, so control mode works exactly as
 * on this host. The first ssh becomes the node's master connection (ControlMaster=auto,
 * ControlPersist) and every later one (a reconnect, a one-shot command, a probe) is a
 * channel of it; `close()` asks the master to exit, so nothing outlives the broker's stop
 * (after a crash, the master exits ControlPersist seconds after its last channel), and so
 * does `dropConnection()` when a channel's remote end outlives its ssh client.
 */
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import type { NodeConfig } from '../../config/nodes-schema.js';
import type { TmuxTransport } from '../tmux/transport.js';
import { sshCommandArgs, sshExitMasterArgs, sshOptions, type SshTarget } from './ssh-argv.js';
import type { SshLane } from './ssh-lane.js';

/** Longest a connect holds its lane slot: past the control client's connect timeout (30 s)
 * the attempt has failed anyway. */
const CONNECT_SLOT_MS = 35_000;

/** `<stateDir>/ssh`, 0700: the broker's ControlMaster sockets (short, for the socket path limit). */
export function ensureSshControlDir(stateDir: string): string {
  const dir = join(stateDir, 'ssh');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  return dir;
}

/** `lane` (ssh-lane.ts), shared by a broker's nodes: a connect takes a slot from its
 * probe (the control client's first step) until its control process is launched (the
 * master connection is up by then: the hidden-session command before it opened it) or
 * the next probe; an exit takes one for its `ssh -O exit`. */
export function sshTransport(node: NodeConfig, controlDir: string, sshPath = 'ssh', lane?: SshLane): TmuxTransport {
  const target: SshTarget = { node, controlDir };
  // Checks the state dir path now (it throws NODE_UNAVAILABLE), not in the middle of a connect.
  sshOptions(target);
  let connectSlot: (() => void) | undefined;
  const endConnect = () => {
    connectSlot?.();
    connectSlot = undefined;
  };
  const exitMaster = async () => {
    endConnect();
    const release = await lane?.acquire();
    try {
      await execa(sshPath, sshExitMasterArgs(target), { reject: false, stdin: 'ignore', timeout: 5_000, killSignal: 'SIGKILL' });
    } finally {
      release?.();
    }
  };
  return {
    label: node.name,
    sameHost: false,
    identifyKey: `ssh:${node.name}`,
    launch: (tmuxArgs) => {
      endConnect();
      return { file: sshPath, args: sshCommandArgs(target, ['tmux', ...tmuxArgs]) };
    },
    // No socket to stat on another host: ask tmux (through ssh) every time.
    async probeServer() {
      endConnect();
      if (lane !== undefined) {
        const release = await lane.acquire();
        const timer = setTimeout(release, CONNECT_SLOT_MS);
        timer.unref();
        connectSlot = () => {
          clearTimeout(timer);
          release();
        };
      }
      return 'unknown';
    },
    close: exitMaster,
    // Every channel of the node goes with it (the command client and its one-shot commands
    // reconnect); rare: only a client whose remote end did not follow its exit.
    async dropConnection(tmuxArgs) {
      await exitMaster();
      await endOrphans(sshPath, target, tmuxArgs);
    },
  };
}

/** Tries to find orphans this often, a second apart: the node's sshd notices the dropped
 * connection, and its session processes exit, soon but not at once. */
const ORPHAN_TRIES = 5;

/** POSIX extended regular expression matching exactly `text`. */
function exactEre(text: string): string {
  return `^${text.replace(/[\\.[\]()*+?{}|^$]/g, '\\$&')}$`;
}

/**
 * Ends, on the node, every `tmux <tmuxArgs>` whose parent is init: a tmux client of ours
 * whose ssh session is gone (a live one's parent is its sshd session). Seen at load 10
 * (nodes-many.test): a remote control client with output pending to a reader that had
 * gone never left its server, whose `kill-server` then never finished. SIGTERM makes the
 * tmux client tell its server it is leaving. `pkill` missing or finding nothing is fine.
 */
async function endOrphans(sshPath: string, target: SshTarget, tmuxArgs: readonly string[]): Promise<void> {
  const pattern = exactEre(['tmux', ...tmuxArgs].join(' '));
  for (let i = 0; i < ORPHAN_TRIES; i++) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, 1_000));
    const found = await execa(sshPath, sshCommandArgs(target, ['pkill', '-TERM', '-P', '1', '-x', '-f', pattern]), {
      reject: false,
      stdin: 'ignore',
      timeout: 15_000,
      killSignal: 'SIGKILL',
    });
    if (found.exitCode === 0) return;
  }
}
