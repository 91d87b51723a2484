// A node's ssh client that is killed while its remote end still runs must not keep the
// node's identify turn for good. The ControlMaster keeps the stdio the client handed it
// while the remote end holds the channel, so the client's 'close' (which ends the turn)
// does not come: before this fix the node never reconnected (bench and CI at load 6-13:
// nodes "down: connection timed out" for good). The fix drops the node's master connection
// when a client's stdio outlives its exit (control-process.ts endStdioHolder), which ends
// the remote end's channel. Real sshd, real ControlMaster, a remote command that ignores
// the end of its input (as a remote tmux client that never left did).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sshdUnavailable, startSshd, type TestSshd } from '../../../../../test/src/helpers/sshd.js';
import { waitFor } from '../../../../../test/src/helpers/wait-for.js';
import type { NodeConfig } from '../../config/nodes-schema.js';
import { spawnControlProcess } from '../tmux/control-process.js';
import { acquireIdentifyTurn } from '../tmux/identify-gate.js';
import { sshCommandArgs, sshExitMasterArgs, sshOptions, type SshTarget } from './ssh-argv.js';
import { ensureSshControlDir, sshTransport } from './ssh-transport.js';

const unavailable = sshdUnavailable();
if (unavailable !== undefined) console.log(`skipping the ssh master stdio test: ${unavailable}`);

let sshd: TestSshd;
let target: SshTarget;
const stateDir = mkdtempSync(join(tmpdir(), 'tmcp-master-stdio-'));
/** A duration no other process of the machine sleeps for: how the remote commands are found. */
const MARK = `${3_000 + Math.floor(Math.random() * 900)}.${process.pid}`;

const remoteSleeps = () => {
  try {
    return execFileSync('pgrep', ['-f', `^sleep ${MARK}`], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
};

describe.skipIf(unavailable !== undefined)('an ssh client through a ControlMaster, killed while its remote command runs', () => {
  beforeAll(async () => {
    sshd = await startSshd();
    const node = { name: 'stdio', ssh: sshd.destination, identity_file: sshd.clientKey, known_hosts: sshd.knownHosts } as NodeConfig;
    target = { node, controlDir: ensureSshControlDir(stateDir) };
    // The master connection (ControlMaster=auto, ControlPersist): every later ssh is its channel.
    execFileSync('ssh', sshCommandArgs(target, ['true']), { stdio: 'ignore', timeout: 120_000 });
  }, 180_000);

  afterAll(async () => {
    for (const pid of remoteSleeps()) process.kill(pid, 'SIGKILL');
    if (target !== undefined) execFileSync('ssh', sshExitMasterArgs(target), { stdio: 'ignore', timeout: 30_000 });
    await sshd?.stop();
    rmSync(stateDir, { recursive: true, force: true });
  });

  /** Whether the node's master connection answers (`ssh -O check`). */
  const masterUp = () => {
    try {
      execFileSync('ssh', [...sshOptions(target), '-O', 'check', '127.0.0.1'], { stdio: 'ignore', timeout: 30_000 });
      return true;
    } catch {
      return false;
    }
  };

  it('a control process killed before any output ends its channel and gives its identify turn back', async () => {
    const key = `test-master-stdio-${process.pid}`;
    let ended = false;
    const child = spawnControlProcess({
      tmuxPath: 'ssh',
      args: sshCommandArgs(target, ['sleep', MARK]),
      env: process.env,
      onData: () => {},
      onEnd: () => {
        ended = true;
      },
      identifyTurn: key,
      endStdioHolder: sshTransport(target.node, target.controlDir).dropConnection,
    });
    await waitFor('the remote command to run', () => remoteSleeps().length === 1 || undefined);
    expect(masterUp()).toBe(true);
    // Never identified (no output): as an attach that timed out under load.
    child.kill();
    // Its remote end ignores the end of its input and keeps the channel: only dropping the
    // master connection ends it, and with it the turn and the client's end.
    const release = await acquireIdentifyTurn(key);
    release();
    await child.exited;
    expect(ended).toBe(true);
    expect(masterUp()).toBe(false);
    // The next ssh of the node makes a new master and works.
    expect(execFileSync('ssh', sshCommandArgs(target, ['echo', 'again']), { encoding: 'utf8', timeout: 120_000 }).trim()).toBe('again');
  }, 180_000);
});
