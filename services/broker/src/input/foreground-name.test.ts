// The identity re-read under the lock (input/attempt.ts recheckUnderLock) reads tmux's foreground name again when it is not a name of the foreground group's leader in the settled process tree: tmux names the pane's start command while a job that just ended still holds the terminal's group.
import { describe, expect, it } from 'vitest';
import type { PaneProcess } from '../policy/foreground.js';
import { namesForegroundLeader } from './attempt.js';

const proc = (pid: number, p: Partial<PaneProcess>): PaneProcess => ({ pid, ppid: 1, foreground: true, exe: null, comm: '', argv0: null, ...p });
const tree = (foregroundGroup: number, processes: PaneProcess[]) => ({ source: 'proc' as const, panePid: 10, foregroundGroup, processes, inputWait: 'reading' as const });

describe('namesForegroundLeader', () => {
  const bash = proc(10, { exe: 'bash', comm: 'bash', argv0: '-bash' });
  it('is true for the leader\'s argv[0] (a login shell\'s - dropped, as tmux drops it), comm or exe', () => {
    expect(namesForegroundLeader(tree(10, [bash]), 'bash')).toBe(true);
    expect(namesForegroundLeader(tree(20, [bash, proc(20, { exe: 'python3.11', comm: 'python3', argv0: 'python3' })]), 'python3')).toBe(true);
    expect(namesForegroundLeader(tree(20, [bash, proc(20, { exe: 'python3.11', comm: 'python3', argv0: 'python3' })]), 'python3.11')).toBe(true);
  });
  it('is false for the pane\'s start command while a job still holds the group, and when the leader is not in the tree', () => {
    expect(namesForegroundLeader(tree(10, [bash]), 'env')).toBe(false);
    expect(namesForegroundLeader(tree(30, [bash]), 'bash')).toBe(false);
  });
});
