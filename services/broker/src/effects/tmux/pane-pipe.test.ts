// The pipe's shell command never blocks and never creates a file (run through sh as tmux's pipe-pane runs it), and a FIFO path tmux would expand (#, %, quotes, spaces) is refused before it reaches a command line.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { constants, existsSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../../../../test/src/helpers/wait-for.js';
import { openPanePipe, pipeCommand, SAFE_PIPE_PATH_RE } from './pane-pipe.js';

const dir = mkdtempSync(join(tmpdir(), 'tmcp-pipe-'));
const children: ChildProcess[] = [];
afterAll(() => {
  // A command that blocks (the bug this guards against) must not outlive the test.
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** The command as tmux's pipe-pane runs it: `sh -c`, the pane's output on stdin. */
function runPipe(fifo: string) {
  const child = spawn('/bin/sh', ['-c', pipeCommand(fifo)], { stdio: ['pipe', 'ignore', 'ignore'] });
  children.push(child);
  // The command may end before it reads (no reader, no FIFO: what two tests check), and a
  // write to its stdin then fails with EPIPE, as tmux's own write does. Without a listener
  // that error is thrown outside the test; how often depends on how fast the child ended
  // (seen under two CPU hogs).
  child.stdin.on('error', () => undefined);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let done = false;
  void exited.then(() => (done = true));
  return { child, exited, done: () => done };
}

describe('the pipe command', () => {
  it('does not wait for a reader: with none, it ends at its first write (no process left behind)', async () => {
    const fifo = join(dir, 'no-reader.fifo');
    execFileSync('mkfifo', ['-m', '600', fifo]);
    const pipe = runPipe(fifo);
    pipe.child.stdin.write('pane output\n');
    await waitFor('the pipe command to end without a reader', () => pipe.done(), 10_000);
  });

  it('carries the pane output to a reader opened before it, and ends when the pane side closes', async () => {
    const fifo = join(dir, 'reader.fifo');
    execFileSync('mkfifo', ['-m', '600', fifo]);
    const reader = new Socket({ fd: openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK), readable: true, writable: false });
    let got = '';
    let ended = false;
    reader.on('data', (d: Buffer) => (got += d.toString()));
    reader.on('end', () => (ended = true));
    const pipe = runPipe(fifo);
    pipe.child.stdin.write('first line\r\n');
    await waitFor('the output to arrive', () => got === 'first line\r\n');
    pipe.child.stdin.end();
    await waitFor('end of file for the reader', () => ended);
    expect(await pipe.exited).toBe(0);
  });

  it('creates nothing when its FIFO is gone', async () => {
    const fifo = join(dir, 'gone.fifo');
    const pipe = runPipe(fifo);
    pipe.child.stdin.end('raw output\n');
    expect(await pipe.exited).not.toBe(0);
    expect(existsSync(fifo)).toBe(false);
  });
});

describe('FIFO paths', () => {
  it('are refused when tmux or sh would read more into them than a path', async () => {
    for (const bad of ['/tmp/a b.fifo', '/tmp/#{pane_id}.fifo', '/tmp/#(touch x).fifo', '/tmp/%Y.fifo', "/tmp/x'y.fifo", '/tmp/x;y.fifo', 'relative.fifo', '/tmp/$HOME.fifo']) {
      expect(SAFE_PIPE_PATH_RE.test(bad), bad).toBe(false);
      await expect(openPanePipe(() => Promise.reject(new Error('must not run')), '%1', bad, 10)).rejects.toThrow(/expand/);
    }
    expect(SAFE_PIPE_PATH_RE.test('/home/me/.local/state/terminal-mcp/pipes/123-4-567.fifo')).toBe(true);
  });
});
