// A node's ssh client that is killed while its remote end still runs must not keep the
// node's identify turn for good, nor leave its remote end behind. The ControlMaster keeps
// the stdio the client handed it while the remote end holds the channel, so the client's
// 'close' (which ends the turn) does not come: before this fix the node never reconnected
// (bench and CI at load 6-13: nodes "down: connection timed out" for good). The fix drops
// the node's master connection when a client's stdio outlives its exit and ends the tmux
// client that this orphans on the node (control-process.ts endStdioHolder,
// ssh-transport.ts dropConnection). Real sshd, real ControlMaster, and a remote tmux client
// that ignores the end of its input (`wait-for`, as a remote control client that never left).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sshdUnavailable, startSshd, type TestSshd } from '../../../../../test/src/helpers/sshd.js';
import { startTmuxServer, type TmuxTestServer } from '../../../../../test/src/helpers/tmux-server.js';
import { waitFor } from '../../../../../test/src/helpers/wait-for.js';
import type { NodeConfig } from '../../config/nodes-schema.js';
import { spawnControlProcess } from '../tmux/control-process.js';
import { acquireIdentifyTurn } from '../tmux/identify-gate.js';
import { sshCommandArgs, sshExitMasterArgs, type SshTarget } from './ssh-argv.js';
import { ensureSshControlDir, sshTransport } from './ssh-transport.js';

const unavailable = sshdUnavailable();
if (unavailable !== undefined) console.log(`skipping the ssh master stdio test: ${unavailable}`);

let sshd: TestSshd;
let server: TmuxTestServer;
let target: SshTarget;
const stateDir = mkdtempSync(join(tmpdir(), 'tmcp-master-stdio-'));

/** pid and parent pid of each process whose command line is exactly `argv`. */
const processesRunning = (argv: readonly string[]): { pid: number; ppid: number }[] => {
  const out = execFileSync('ps', ['-A', '-o', 'pid=,ppid=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null && m[3] === argv.join(' '))
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]) }));
};

describe.skipIf(unavailable !== undefined)('an ssh client through a ControlMaster, killed while its remote end runs', () => {
  beforeAll(async () => {
    server = await startTmuxServer();
    sshd = await startSshd();
    const node = { name: 'stdio', ssh: sshd.destination, identity_file: sshd.clientKey, known_hosts: sshd.knownHosts } as NodeConfig;
    target = { node, controlDir: ensureSshControlDir(stateDir) };
    // The master connection (ControlMaster=auto, ControlPersist): every later ssh is its channel.
    execFileSync('ssh', sshCommandArgs(target, ['true']), { stdio: 'ignore', timeout: 120_000 });
  }, 180_000);

  afterAll(async () => {
    if (target !== undefined) execFileSync('ssh', sshExitMasterArgs(target), { stdio: 'ignore', timeout: 30_000 });
    await sshd?.stop();
    await server?.kill();
    rmSync(stateDir, { recursive: true, force: true });
  });

  it('a control process killed before any output gives its identify turn back, and its orphaned remote end is ended', async () => {
    const key = `test-master-stdio-${process.pid}`;
    // A tmux client that waits for a signal nobody sends and ignores the end of its input.
    const tmuxArgs = ['-L', server.socketName, '-N', 'wait-for', `tmcp-never-${process.pid}`];
    let ended = false;
    const child = spawnControlProcess({
      tmuxPath: 'ssh',
      args: sshCommandArgs(target, ['tmux', ...tmuxArgs]),
      env: process.env,
      onData: () => {},
      onEnd: () => {
        ended = true;
      },
      identifyTurn: key,
      endStdioHolder: () => sshTransport(target.node, target.controlDir).dropConnection!(tmuxArgs),
    });
    const [remote] = await waitFor('the remote tmux client to run', () => {
      const found = processesRunning(['tmux', ...tmuxArgs]);
      return found.length === 1 ? found : undefined;
    });
    expect(remote!.ppid).not.toBe(1);
    // Never identified (no output): as an attach that timed out under load.
    child.kill();
    // Its remote end keeps the channel: only dropping the master connection ends it, and
    // with it the turn and the client's end.
    const release = await acquireIdentifyTurn(key);
    release();
    await child.exited;
    expect(ended).toBe(true);
    // The orphan it left on the node is ended too.
    await waitFor('the orphaned remote tmux client to be ended', () => processesRunning(['tmux', ...tmuxArgs]).length === 0 || undefined);
    // The node's next ssh makes a new master and works.
    expect(execFileSync('ssh', sshCommandArgs(target, ['echo', 'again']), { encoding: 'utf8', timeout: 120_000 }).trim()).toBe('again');
  }, 180_000);
});
