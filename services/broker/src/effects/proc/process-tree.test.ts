// Guards the /proc reader: a pane's descendants and foreground group are found with their real executable, kernel and argv[0] names (an argv[0] longer than one read of cmdline too); a comm with `)` parses; no /proc falls back to tmux's command; a missing pane is unreadable.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { holdAsTmuxFork, type HeldTmuxFork } from '../../../../../test/src/helpers/tmux-fork.js';
import { parseProcStat, readPaneProcessTree, readPaneProcessTrees } from './process-tree.js';

describe('parseProcStat', () => {
  it('finds the fields after the last parenthesis', () => {
    expect(parseProcStat('4242 (we) ird (x) S 10 4242 4242 34816 4300 4194304 0 0 0 0 0 0 0 0 20 0 1 0 123456 1000 200')).toEqual({
      pid: 4242,
      comm: 'we) ird (x',
      ppid: 10,
      pgrp: 4242,
      ttyNr: 34816,
      tpgid: 4300,
      startTime: 123456,
    });
  });
  it('refuses garbage', () => {
    expect(parseProcStat('')).toBeNull();
    expect(parseProcStat('12 (x) S a b c d e')).toBeNull();
  });
});

describe('readPaneProcessTree', () => {
  let dir: string;
  let child: ChildProcess;
  const ready = () => join(dir, 'ready');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tmcp-proc-'));
    symlinkSync('/bin/sleep', join(dir, 'ssh'));
    // A shell with a background and a foreground child, one renamed by exec -a, and one
    // whose argv[0] is longer than one read of /proc/<pid>/cmdline (4 KiB).
    const longArgv0 = `${'d/'.repeat(3_000)}longssh`;
    child = spawn('bash', ['-c', `${join(dir, 'ssh')} 300 & (exec -a notssh ${join(dir, 'ssh')} 301) & (exec -a ${longArgv0} ${join(dir, 'ssh')} 302) & : > ${ready()}; wait`], {
      stdio: 'ignore',
      detached: true,
    });
    await vi.waitFor(() => expect(existsSync(ready())).toBe(true), { timeout: 60_000, interval: 20 });
  });

  afterAll(() => {
    // The process group bash leads (detached), only while bash is ours and not yet reaped:
    // until then no other process can hold that group id. bash waits for its children.
    if (child.pid && child.exitCode === null && child.signalCode === null) process.kill(-child.pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists every descendant under its exe, comm and argv[0]', async () => {
    await vi.waitFor(async () => {
      const facts = await readPaneProcessTree(child.pid!, 'bash');
      if (facts.source !== 'proc') throw new Error(`expected /proc facts, got ${facts.source}`);
      const ssh = facts.processes.filter((p) => p.comm === 'ssh');
      expect(ssh).toHaveLength(3);
      for (const p of ssh) expect(p.exe).toBe('sleep');
      expect(ssh.map((p) => p.argv0).sort()).toEqual(['longssh', 'notssh', 'ssh']);
      expect(facts.processes.find((p) => p.pid === child.pid)).toMatchObject({ comm: 'bash', exe: 'bash' });
    }, { timeout: 60_000, interval: 50 });
  });

  it('is tmux-only without /proc and unreadable for a pid that is not there', async () => {
    expect(await readPaneProcessTree(child.pid!, '-zsh', join(dir, 'no-proc'))).toEqual({ source: 'tmux', command: '-zsh' });
    expect((await readPaneProcessTree(2 ** 30, 'bash')).source).toBe('unreadable');
  });
});

describe('a pane process that is still tmux\'s fork', () => {
  let dir: string;
  const held: HeldTmuxFork[] = [];

  afterAll(() => {
    for (const h of held) h.end();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('is read again until it has exec\'d its command, so it never reads as a guarded `tmux`', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tmcp-proc-fork-'));
    const fork = await holdAsTmuxFork(dir, 'go-one');
    held.push(fork);
    const reading = readPaneProcessTree(fork.pid, 'tmux');
    fork.go();
    const facts = await reading;
    if (facts.source !== 'proc') throw new Error(`expected /proc facts, got ${facts.source}`);
    expect(facts.processes.find((p) => p.pid === fork.pid)).toMatchObject({ comm: 'sleep', exe: 'sleep' });
  });

  it('the batch read (the session list) waits for it too, and answers the other panes as read', async () => {
    const fork = await holdAsTmuxFork(dir, 'go-batch');
    held.push(fork);
    const reading = readPaneProcessTrees([
      { panePid: process.pid, tmuxCommand: 'node' },
      { panePid: fork.pid, tmuxCommand: 'tmux' },
    ]);
    fork.go();
    const [self, pane] = await reading;
    if (pane?.source !== 'proc' || self?.source !== 'proc') throw new Error('expected /proc facts for both');
    expect(pane.processes.find((p) => p.pid === fork.pid)).toMatchObject({ comm: 'sleep', exe: 'sleep' });
    expect(self.processes.find((p) => p.pid === process.pid)).toBeDefined();
  });
});
