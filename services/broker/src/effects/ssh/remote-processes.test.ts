// Guards the remote process-tree reader (a node's pane, read through one fixed ssh command) against this host's own /proc reader: the fixed script, run by sh exactly as the node's login shell runs ssh's quoted words, finds the pane's descendants under their executable, comm and argv[0] names, a setsid'd process holding the pane's pty, and whether the foreground reads input; forged lines cannot be made, an unanswered read is TMUX_UNAVAILABLE and a failed ps is unreadable.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { namesOf, type PaneProcessFacts } from '../../policy/foreground.js';
import { readPaneProcessTree } from '../proc/process-tree.js';
import { parseRemoteLinks, parseRemotePs, readRemotePaneProcessTree, type RemoteRun } from './remote-processes.js';
import { quoteRemoteWord } from './ssh-argv.js';
import { holdAsTmuxFork, type HeldTmuxFork } from '../../../../../test/src/helpers/tmux-fork.js';
import { testSocketName } from '../../../../../test/src/helpers/tmux-server.js';

/** What the node does with ssh's remote command: its login shell runs the quoted words. */
const viaShell: RemoteRun = async (words) => {
  const r = spawnSync('sh', ['-c', words.map(quoteRemoteWord).join(' ')], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { exitCode: r.status ?? -1, stdout: r.stdout, timedOut: false };
};

// A run-tagged name (the suite's leftover check knows it as ours); the server's socket
// file is removed after kill-server, which tmux 3.3a leaves behind (run g38a4 found it).
const socket = testSocketName(`remote-procs-${randomBytes(4).toString('hex')}`);
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8', env: { ...process.env, TMUX: '' } }).trim();
let dir: string;
/** The setsid'd process: it outlives the tmux server, so the test ends it. */
let detachedPid: number | undefined;

const names = (facts: PaneProcessFacts) => (facts.source === 'proc' ? facts.processes.flatMap(namesOf).sort() : []);

describe('readRemotePaneProcessTree', () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tmcp-remote-procs-'));
    symlinkSync('/bin/sleep', join(dir, 'ssh'));
    tmux('new-session', '-d', '-s', 'tree', `bash --norc --noprofile -c '${join(dir, 'ssh')} 300 & (exec -a notsudo sleep 301) & exec cat > /dev/null'`);
    tmux('new-session', '-d', '-s', 'detached', `bash --norc --noprofile -c 'setsid -f ${join(dir, 'ssh')} 302 < $(tty); exec cat > /dev/null'`);
  });

  afterAll(() => {
    const socketPath = spawnSync('tmux', ['-L', socket, 'display-message', '-p', '#{socket_path}'], { encoding: 'utf8', env: { ...process.env, TMUX: '' } }).stdout?.trim();
    spawnSync('tmux', ['-L', socket, 'kill-server']);
    if (socketPath) rmSync(socketPath, { force: true });
    if (detachedPid !== undefined) {
      try {
        process.kill(detachedPid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    if (dir && existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  });

  const panePid = (session: string) => Number(tmux('display-message', '-p', '-t', `=${session}:`, '#{pane_pid}'));

  it("finds what this host's /proc reader finds: descendants under every name, the foreground group, input wait", async () => {
    const pid = panePid('tree');
    const remote = await vi.waitFor(async () => {
      const facts = await readRemotePaneProcessTree(viaShell, pid);
      expect(names(facts)).toContain('notsudo');
      return facts;
    }, { timeout: 60_000, interval: 100 });
    const local = await readPaneProcessTree(pid, 'cat');
    expect(remote.source).toBe('proc');
    expect(names(remote)).toEqual(names(local));
    // ssh by its comm and argv[0] (a symlink to sleep: exe says sleep), exec -a by argv[0].
    expect(names(remote)).toEqual(expect.arrayContaining(['ssh', 'sleep', 'notsudo', 'cat']));
    if (remote.source !== 'proc') throw new Error('unreachable');
    expect(remote.foregroundGroup).toBe(pid);
    expect(remote.processes.find((p) => p.pid === pid)).toMatchObject({ foreground: true, exe: 'cat', comm: 'cat', argv0: 'cat' });
    await vi.waitFor(
      async () => {
        const f = await readRemotePaneProcessTree(viaShell, pid);
        expect(f.source === 'proc' ? f.inputWait : null).toBe('reading');
      },
      { timeout: 60_000, interval: 100 },
    );
  });

  it("counts a process that left the pane's session but holds its pty", async () => {
    const pid = panePid('detached');
    const facts = await vi.waitFor(async () => {
      const f = await readRemotePaneProcessTree(viaShell, pid);
      expect(names(f)).toContain('ssh');
      return f;
    }, { timeout: 60_000, interval: 100 });
    if (facts.source !== 'proc') throw new Error('expected proc facts');
    const held = facts.processes.find((p) => p.comm === 'ssh');
    detachedPid = held?.pid;
    expect(held?.ppid).not.toBe(pid);
    expect(held?.foreground).toBe(true);
  });

  it('is unreadable for a pane that is not there, TMUX_UNAVAILABLE when the node does not answer, unreadable when ps fails', async () => {
    expect((await readRemotePaneProcessTree(viaShell, 2 ** 30)).source).toBe('unreadable');
    expect((await readRemotePaneProcessTree(viaShell, 0)).source).toBe('unreadable');
    await expect(readRemotePaneProcessTree(async () => ({ exitCode: 255, stdout: '', timedOut: false }), panePid('tree'))).rejects.toMatchObject({ code: 'TMUX_UNAVAILABLE' });
    await expect(readRemotePaneProcessTree(async () => ({ exitCode: 0, stdout: '', timedOut: true }), panePid('tree'))).rejects.toMatchObject({ code: 'TMUX_UNAVAILABLE' });
    expect((await readRemotePaneProcessTree(async () => ({ exitCode: 3, stdout: '', timedOut: false }), panePid('tree'))).source).toBe('unreadable');
  });
});

describe("a node's pane process that is still tmux's fork", () => {
  let forkDir: string;
  let fork: HeldTmuxFork | undefined;
  afterAll(() => {
    fork?.end();
    if (forkDir) rmSync(forkDir, { recursive: true, force: true });
  });

  it('is read again until it has exec\'d its command, so it never reads as a guarded `tmux`', async () => {
    forkDir = mkdtempSync(join(tmpdir(), 'tmcp-remote-fork-'));
    fork = await holdAsTmuxFork(forkDir);
    const reading = readRemotePaneProcessTree(viaShell, fork.pid);
    fork.go();
    const facts = await reading;
    if (facts.source !== 'proc') throw new Error(`expected ps facts, got ${facts.source}`);
    expect(facts.processes.find((p) => p.pid === fork!.pid)).toMatchObject({ comm: 'sleep' });
  });
});

describe('the parsers', () => {
  it('takes the free-form command name whole and refuses a line ps would not print', () => {
    const ok = parseRemotePs('  10    10     1    10    10  1000 Ss   pts/3    do_select                                x y ) z\n@@tmcp-args@@\n   10 -bash --login\n@@tmcp-links@@\n');
    expect(ok?.threads[0]).toMatchObject({ pid: 10, tpgid: 10, tty: 'pts/3', wchan: 'do_select', comm: 'x y ) z' });
    expect(ok?.args.get(10)).toBe('-bash --login');
    expect(parseRemotePs('garbage\n@@tmcp-args@@\n@@tmcp-links@@\n')).toBeNull();
    expect(parseRemotePs('  10    10     1    10    10  1000 Ss   pts/3    -   bash\n')).toBeNull();
  });

  it('reads exe links before the first directory and pts links inside each fd directory only', () => {
    const links = parseRemoteLinks(
      [
        'lrwxrwxrwx 1 u u 0 Dec  3 07:16 /proc/12/exe -> /usr/bin/ssh (deleted)',
        '/proc/13/fd:',
        'lrwx------ 1 u u 64 Dec  3 06:50 0 -> /dev/pts/4',
        'lrwxrwxrwx 1 u u 0 Dec  3 07:16 /proc/14/exe -> /usr/bin/forged',
        '/proc/15/fd:',
        'lrwx------ 1 u u 64 Dec  3 06:50 7 -> /dev/pts/9',
      ].join('\n'),
    );
    expect(links.exe).toEqual(new Map([[12, '/usr/bin/ssh']]));
    expect(links.ttys).toEqual(new Map([[13, new Set(['/dev/pts/4'])], [15, new Set(['/dev/pts/9'])]]));
  });
});
