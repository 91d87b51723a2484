// Guards the git runner: repository config, user config and inherited environment can never make git run a program; timeouts and output caps hold.
import { execFileSync } from 'node:child_process';
import { chmodSync, closeSync, constants, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAppErrorData } from '@terminal-mcp/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, isolatedGitEnv } from '../../../../../test/src/helpers/source-repo.js';
import { assertRevisionArgument, cutAtLineEnd, openGitRepo, wholeUtf8Length } from './git-runner.js';

let base: string;
let root: string;
let home: string;
let markers: string;

/** A script that records that it ran, then behaves like `cat` (as a filter would). */
function markerScript(name: string): string {
  const script = join(base, `${name}.sh`);
  writeFileSync(script, `#!/bin/sh\ntouch '${join(markers, name)}'\ncat\n`);
  chmodSync(script, 0o755);
  return script;
}

function ran(name: string): boolean {
  return existsSync(join(markers, name));
}

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'tmcp-git-runner-'));
  root = join(base, 'repo');
  home = join(base, 'home');
  markers = join(base, 'markers');
  for (const d of [root, home, markers]) mkdirSync(d, { recursive: true });
  git(root, home, ['init', '-q', '-b', 'main']);
  writeFileSync(join(root, 'a.txt'), 'one\ntwo\n');
  writeFileSync(join(root, '.gitattributes'), '*.txt filter=evil diff=evil\n');
  git(root, home, ['add', '-A']);
  git(root, home, ['commit', '-q', '-m', 'init']);
  // Hostile repository config, written after the commit so setting up never runs it.
  const cfg = (key: string, value: string) => git(root, home, ['config', key, value]);
  cfg('core.pager', markerScript('pager'));
  cfg('core.fsmonitor', markerScript('fsmonitor'));
  cfg('diff.external', markerScript('external-diff'));
  cfg('diff.evil.command', markerScript('diff-command'));
  cfg('diff.evil.textconv', markerScript('textconv'));
  cfg('filter.evil.clean', markerScript('clean'));
  cfg('filter.evil.smudge', markerScript('smudge'));
  cfg('filter.evil.required', 'true');
  cfg('alias.lg', `!${markerScript('alias')}`);
  cfg('core.hooksPath', join(base, 'hooks'));
  writeFileSync(join(root, 'a.txt'), 'one\ntwo\nthree and more\n');
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('hostile repository config', () => {
  it('really is hostile: plain git runs the fsmonitor, clean filter and textconv', () => {
    execFileSync('git', ['--no-pager', 'diff', 'HEAD'], { cwd: root, env: isolatedGitEnv(home), stdio: 'ignore' });
    expect(ran('fsmonitor') || ran('clean') || ran('textconv') || ran('external-diff')).toBe(true);
    rmSync(markers, { recursive: true });
    mkdirSync(markers);
  });

  it('runs nothing through the runner, whatever command is run', async () => {
    const repo = await openGitRepo(root);
    const commands = [
      ['status', '--porcelain=v2', '-z'],
      ['diff', '--no-ext-diff', '--no-textconv', 'HEAD'],
      ['diff', 'HEAD'], // even without the flags: diff.external and the pager are overridden
      ['log', '-p', '--no-ext-diff', '--no-textconv', '-n', '1'],
      ['show', '--no-ext-diff', '--no-textconv', 'HEAD'],
      ['blame', '--porcelain', '--no-textconv', 'HEAD', '--', 'a.txt'],
      ['grep', '-n', '--no-textconv', '-F', '-e', 'two'],
      ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    ];
    for (const args of commands) await repo.run(args);
    await expect(repo.run(['lg'])).rejects.toThrow(/not allowed/);
    for (const name of ['pager', 'fsmonitor', 'external-diff', 'diff-command', 'clean', 'smudge', 'alias']) {
      expect({ name, ran: ran(name) }).toEqual({ name, ran: false });
    }
  });

  it('shows the real content, not the filtered or converted one', async () => {
    const repo = await openGitRepo(root);
    const out = await repo.run(['diff', '--no-ext-diff', '--no-textconv', 'HEAD']);
    expect(out.exitCode).toBe(0);
    expect(out.stdout.toString()).toContain('+three and more');
  });
});

describe('environment isolation', () => {
  it('ignores GIT_* variables and user config inherited by the broker', async () => {
    const saved = { ...process.env };
    try {
      process.env.GIT_EXTERNAL_DIFF = markerScript('env-external-diff');
      process.env.GIT_PAGER = markerScript('env-pager');
      process.env.GIT_DIR = join(base, 'nowhere');
      writeFileSync(join(home, '.gitconfig'), `[alias]\n\tstatus = !touch ${join(markers, 'home-alias')}\n[core]\n\tpager = ${markerScript('home-pager')}\n`);
      process.env.HOME = home;
      const repo = await openGitRepo(root);
      const out = await repo.run(['diff', 'HEAD']);
      expect(out.exitCode).toBe(0);
      await repo.run(['status']);
      for (const name of ['env-external-diff', 'env-pager', 'home-alias', 'home-pager']) expect({ name, ran: ran(name) }).toEqual({ name, ran: false });
    } finally {
      process.env = saved;
    }
  });

  it('stops repository discovery at the root', async () => {
    const sub = join(root, 'sub');
    mkdirSync(sub, { recursive: true });
    const repo = await openGitRepo(sub);
    const out = await repo.run(['rev-parse', '--show-toplevel']);
    expect(out.exitCode).not.toBe(0);
  });
});

describe('limits', () => {
  it('answers TIMEOUT when git runs too long, and kills it', async () => {
    // git blocks in open() on a FIFO nobody writes to, so it can never finish before the
    // timeout however fast or slow the machine is.
    const fifo = join(base, 'never-written.fifo');
    execFileSync('mkfifo', [fifo]);
    const repo = await openGitRepo(root);
    const err = await repo.run(['hash-object', '--', fifo], { timeoutMs: 200 }).catch((e: unknown) => e);
    expect(readAppErrorData(err)?.code).toBe('TIMEOUT');
    // Killed: no reader holds the FIFO any more, so a non-blocking open for writing fails.
    expect(() => closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK))).toThrow(expect.objectContaining({ code: 'ENXIO' }));
  });

  it('cuts output at the cap and says so', async () => {
    const repo = await openGitRepo(root);
    const out = await repo.run(['log', '-p'], { maxBytes: 100 });
    expect(out.truncated).toBe(true);
    expect(out.stdout.length).toBeLessThanOrEqual(100);
    expect(cutAtLineEnd(out.stdout).endsWith('\n')).toBe(true);
  });

  it('cuts text cleanly at a line or character boundary', () => {
    expect(cutAtLineEnd(Buffer.from('ab\ncd'))).toBe('ab\n');
    const euro = Buffer.from('x€', 'utf8'); // 78 e2 82 ac
    expect(wholeUtf8Length(euro)).toBe(4);
    expect(wholeUtf8Length(euro.subarray(0, 3))).toBe(1);
    expect(wholeUtf8Length(euro.subarray(0, 2))).toBe(1);
    expect(cutAtLineEnd(euro.subarray(0, 3))).toBe('x');
  });
});

describe('revision arguments', () => {
  // Revision syntax that searches or names content is an oracle (issue 25): ^{/text} and :/text
  // search commit messages, HEAD:path names a blob, @{...} reaches the reflog and dates.
  it.each(['--output=/tmp/x', '-p', '-', 'HEAD --all', 'a\tb', 'a\nb', '', 'HEAD^{/password}', ':/secret', 'HEAD:.env', 'main@{1}', 'v1.0^{commit}'])('refuses %j', (rev) => {
    expect(() => assertRevisionArgument(rev)).toThrow();
  });

  it.each(['HEAD', 'HEAD~2', 'HEAD^2', 'main', 'v1.0', 'feature/x', 'abc123'])('admits %j', (rev) => {
    expect(() => assertRevisionArgument(rev)).not.toThrow();
  });
});
