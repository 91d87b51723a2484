// A node's ssh client that is killed while its remote command still runs must count as
// ended at its exit. The ControlMaster keeps the stdio the client handed it while the remote
// end holds the channel, so before this fix the client's 'close' never came: the control
// client's identify turn stayed taken and the node never reconnected (bench and CI at load
// 6-13: two of twenty nodes "down: connection timed out" for good), and a timed-out
// one-shot command never returned. Real sshd, real ControlMaster, a remote command that
// ignores the end of its input and outlives the test unless killed.
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
import { createTmuxCommandRunner } from '../tmux/tmux-command.js';
import { sshCommandArgs, sshExitMasterArgs, type SshTarget } from './ssh-argv.js';
import { ensureSshControlDir } from './ssh-transport.js';

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

  it('a control process: ended, its exit awaited and its identify turn free once it has exited', async () => {
    const key = `test-master-stdio-${process.pid}`;
    let ended: string | undefined;
    const child = spawnControlProcess({
      tmuxPath: 'ssh',
      args: sshCommandArgs(target, ['sleep', MARK]),
      env: process.env,
      onData: () => {},
      onEnd: (why) => (ended = why),
      identifyTurn: key,
    });
    await waitFor('the remote command to run', () => remoteSleeps().length === 1 || undefined);
    // Never identified (no output): as an attach that timed out under load.
    child.kill();
    await child.exited;
    await waitFor('the end to be reported', () => ended !== undefined || undefined);
    const release = await acquireIdentifyTurn(key);
    release();
    // The remote command still runs: nothing here waited for it.
    expect(remoteSleeps()).toHaveLength(1);
  }, 120_000);

  it('a one-shot command past its time limit returns, timed out, while its remote command still runs', async () => {
    const runner = createTmuxCommandRunner({
      transport: {
        label: 'stdio',
        sameHost: false,
        identifyKey: 'ssh:stdio',
        launch: () => ({ file: 'ssh', args: sshCommandArgs(target, ['sleep', MARK]) }),
        probeServer: () => Promise.resolve('unknown'),
        close: async () => {},
      },
    });
    const result = await runner.run(['list-sessions'], { timeoutMs: 1_000 });
    expect(result.timedOut).toBe(true);
    expect(remoteSleeps()).toHaveLength(2);
  }, 120_000);
});
