// Guards the file opener: a resolved path never leaves the root or reaches a protected file, only regular files are opened, and nothing outside the root is disclosed.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAppErrorData } from '@terminal-mcp/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readResolvedFile, resolveInsideRoot, resolveRoot } from './source-file.js';

let base: string;
let root: string;

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  return p.then(
    () => undefined,
    (e: unknown) => readAppErrorData(e)?.code,
  );
}

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'tmcp-source-file-'));
  const outside = join(base, 'outside');
  mkdirSync(join(outside, 'deep'), { recursive: true });
  writeFileSync(join(outside, 'secret.txt'), 'outside\n');
  const real = join(base, 'real-root');
  mkdirSync(join(real, 'src'), { recursive: true });
  writeFileSync(join(real, 'src', 'a.ts'), 'export {};\n');
  writeFileSync(join(real, '.env'), 'X=1\n');
  writeFileSync(join(real, 'bin.dat'), Buffer.from([1, 2, 0, 3]));
  writeFileSync(join(real, 'ten.txt'), '0123456789');
  symlinkSync(outside, join(real, 'out'));
  symlinkSync(join(outside, 'secret.txt'), join(real, 'out-file'));
  symlinkSync('src/a.ts', join(real, 'in'));
  symlinkSync('.env', join(real, 'env-link'));
  symlinkSync('loop-b', join(real, 'loop-a'));
  symlinkSync('loop-a', join(real, 'loop-b'));
  mkdirSync(join(real, '.git'));
  writeFileSync(join(real, '.git', 'config'), '[core]\n');
  symlinkSync('.git/config', join(real, 'git-link'));
  execFileSync('mkfifo', [join(real, 'pipe')]);
  // The configured root is itself reached through a symlink.
  symlinkSync(real, join(base, 'root-link'));
  root = await resolveRoot(join(base, 'root-link'));
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('resolveInsideRoot', () => {
  it('resolves the root to its real path', () => {
    expect(root).toBe(join(base, 'real-root'));
  });

  it('follows symlinks that stay inside the root', async () => {
    expect(await resolveInsideRoot(root, 'in')).toEqual({ realPath: join(root, 'src', 'a.ts'), relPath: 'src/a.ts' });
  });

  it.each([
    ['out/secret.txt', 'PATH_NOT_ALLOWED'],
    ['out-file', 'PATH_NOT_ALLOWED'],
    ['out', 'PATH_NOT_ALLOWED'],
    // Missing files behind an escaping symlink must not answer NOT_FOUND (an existence oracle).
    ['out/no-such-file', 'PATH_NOT_ALLOWED'],
    ['out/deep/no/such', 'PATH_NOT_ALLOWED'],
    ['env-link', 'PATH_NOT_ALLOWED'],
    ['git-link', 'PATH_NOT_ALLOWED'],
    ['loop-a', 'PATH_NOT_ALLOWED'],
    ['no-such-file', 'NOT_FOUND'],
    ['src/no/such', 'NOT_FOUND'],
  ])('%s -> %s', async (path, code) => {
    expect(await codeOf(resolveInsideRoot(root, path))).toBe(code);
  });
});

describe('readResolvedFile', () => {
  it('reads a regular file and sniffs binary content', async () => {
    const text = await readResolvedFile(await resolveInsideRoot(root, 'src/a.ts'), { maxBytes: 1024 });
    expect(text).toMatchObject({ size: 11, complete: true, binary: false });
    expect(text.bytes.toString()).toBe('export {};\n');
    const bin = await readResolvedFile(await resolveInsideRoot(root, 'bin.dat'), { maxBytes: 1024 });
    expect(bin.binary).toBe(true);
  });

  it('reads no more than the cap', async () => {
    const head = await readResolvedFile(await resolveInsideRoot(root, 'ten.txt'), { maxBytes: 4 });
    expect(head).toMatchObject({ size: 10, complete: false });
    expect(head.bytes.toString()).toBe('0123');
  });

  it('refuses a FIFO without blocking on it, and a directory', async () => {
    expect(await codeOf(readResolvedFile(await resolveInsideRoot(root, 'pipe'), { maxBytes: 10 }))).toBe('PATH_NOT_ALLOWED');
    expect(await codeOf(readResolvedFile(await resolveInsideRoot(root, 'src'), { maxBytes: 10 }))).toBe('INVALID_ARGUMENT');
  });

  it('refuses when the resolved file was swapped for a symlink before opening', async () => {
    const resolved = await resolveInsideRoot(root, 'src/a.ts');
    const swapped = { ...resolved, realPath: join(root, 'in') }; // a symlink now stands where the file was
    expect(await codeOf(readResolvedFile(swapped, { maxBytes: 10 }))).toBe('PATH_NOT_ALLOWED');
  });
});

describe('resolveRoot', () => {
  it('answers NOT_FOUND for a missing root or a file', async () => {
    expect(await codeOf(resolveRoot(join(base, 'nope')))).toBe('NOT_FOUND');
    expect(await codeOf(resolveRoot(join(root, 'ten.txt')))).toBe('NOT_FOUND');
  });
});
