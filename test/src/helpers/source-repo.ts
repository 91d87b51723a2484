/**
 * Real git repositories for the source-reader tests, built in a temp directory with
 * fixed authors and dates, and an isolated git (no system or user config).
 *
 * Layout of `makeSourceRepo(base)`:
 *   base/outside/            a directory outside the root (symlink targets)
 *   base/repo/               the project root, branch `main`, tags v1.0 (light) and
 *                            v1.1 (annotated), branch `feature` one commit ahead
 *     README.md              modified in the working tree
 *     src/app.ts, src/config.ts (holds an Anthropic-style API key), docs/guide.md
 *     .env, .env.local, id_rsa, certs/server.pem    secret files (committed; .env modified)
 *     bin/logo.png           binary (NUL bytes)
 *     .gitignore             ignores dist/
 *     untracked.txt, big.txt (5 MiB), aaaa.txt      untracked, not ignored
 *     dist/out.js            untracked, ignored
 *     link-out -> base/outside, link-outside-file -> base/outside/secret.txt,
 *     link-in -> src/app.ts, link-env -> .env, link-git-config -> .git/config
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const FAKE_API_KEY = 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
export const OUTSIDE_MARKER = 'OUTSIDE-ROOT-MARKER-7f3a';
export const ENV_SECRET = 'hunter2-env-secret';

export interface SourceRepo {
  base: string;
  root: string;
  outside: string;
  /** Commit ids by name. */
  commits: { initial: string; second: string; feature: string };
}

/** An environment for git that ignores the host's config entirely. */
export function isolatedGitEnv(home: string, date = '2024-01-02T03:04:05Z'): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: home,
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: 'Ada Author',
    GIT_AUTHOR_EMAIL: 'ada@example.test',
    GIT_COMMITTER_NAME: 'Cy Committer',
    GIT_COMMITTER_EMAIL: 'cy@example.test',
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_DATE: date,
  };
}

export function git(root: string, home: string, args: string[], date?: string): string {
  return execFileSync('git', args, { cwd: root, env: isolatedGitEnv(home, date), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function write(root: string, path: string, content: string | Buffer): void {
  const full = join(root, path);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, content);
}

const FAKE_PRIVATE_KEY = [
  '-----BEGIN OPENSSH PRIVATE KEY-----',
  'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW',
  'QyNTUxOQAAACBmYWtlZmFrZWZha2VmYWtlZmFrZWZha2VmYWtlZmFrZWZha2UAAAAA',
  '-----END OPENSSH PRIVATE KEY-----',
  '',
].join('\n');

export function makeSourceRepo(base: string): SourceRepo {
  const root = join(base, 'repo');
  const outside = join(base, 'outside');
  const home = join(base, 'home');
  mkdirSync(root, { recursive: true });
  mkdirSync(outside, { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(join(outside, 'secret.txt'), `${OUTSIDE_MARKER}\n`);

  git(root, home, ['init', '-q', '-b', 'main']);
  write(root, 'README.md', '# Demo\n\nA demo project.\n');
  write(root, 'src/app.ts', ['export function main(): void {', "  console.log('hello from app');", '}', ''].join('\n'));
  write(root, 'docs/guide.md', 'Read the guide.\n');
  write(root, '.env', `DB_PASSWORD=${ENV_SECRET}\n`);
  write(root, '.env.local', `LOCAL_TOKEN=${ENV_SECRET}\n`);
  write(root, 'id_rsa', FAKE_PRIVATE_KEY);
  write(root, 'certs/server.pem', FAKE_PRIVATE_KEY);
  write(root, 'bin/logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]));
  write(root, '.gitignore', 'dist/\n');
  git(root, home, ['add', '-A']);
  git(root, home, ['commit', '-q', '-m', 'Initial commit'], '2024-01-01T00:00:00Z');
  const initial = git(root, home, ['rev-parse', 'HEAD']).trim();
  git(root, home, ['tag', 'v1.0']);

  write(root, 'src/config.ts', `export const apiKey = '${FAKE_API_KEY}';\nexport const region = 'eu';\n`);
  write(root, 'src/app.ts', ['export function main(): void {', "  console.log('hello from app, version 2');", '}', ''].join('\n'));
  git(root, home, ['add', '-A']);
  git(root, home, ['commit', '-q', '-m', 'Add config\n\nThe body mentions nothing secret.'], '2024-01-02T00:00:00Z');
  const second = git(root, home, ['rev-parse', 'HEAD']).trim();
  git(root, home, ['tag', '-a', 'v1.1', '-m', 'release 1.1'], '2024-01-02T00:00:00Z');

  git(root, home, ['checkout', '-q', '-b', 'feature']);
  write(root, 'docs/feature.md', 'Feature notes.\n');
  git(root, home, ['add', '-A']);
  git(root, home, ['commit', '-q', '-m', 'Feature work'], '2024-01-03T00:00:00Z');
  const feature = git(root, home, ['rev-parse', 'HEAD']).trim();
  git(root, home, ['checkout', '-q', 'main']);

  // Working tree: a modified tracked file, a modified secret, untracked and ignored files.
  write(root, 'README.md', '# Demo\n\nA demo project, edited.\n');
  write(root, '.env', `DB_PASSWORD=${ENV_SECRET}-changed\n`);
  write(root, 'untracked.txt', 'not yet added\n');
  write(root, 'dist/out.js', 'ignored build output\n');
  const line = 'log line with some text to fill the file up to five mebibytes.....\n';
  write(root, 'big.txt', line.repeat(Math.ceil((5 * 1024 * 1024) / line.length)));
  write(root, 'aaaa.txt', `${'a'.repeat(100_000)}b\n`);

  symlinkSync(outside, join(root, 'link-out'));
  symlinkSync(join(outside, 'secret.txt'), join(root, 'link-outside-file'));
  symlinkSync('src/app.ts', join(root, 'link-in'));
  symlinkSync('.env', join(root, 'link-env'));
  symlinkSync('.git/config', join(root, 'link-git-config'));

  return { base, root, outside, commits: { initial, second, feature } };
}
