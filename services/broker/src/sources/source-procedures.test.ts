// Guards the read-only source capability end to end on a real repository: what each procedure shows, and that traversal, symlinks, .git, secret, ignored, binary and huge files are refused while secrets in text are redacted.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAppErrorData } from '@terminal-mcp/contract';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV_SECRET, FAKE_API_KEY, makeSourceRepo, OUTSIDE_MARKER, type SourceRepo } from '../../../../test/src/helpers/source-repo.js';
import { configSchema } from '../config/schema.js';
import type { BrokerDeps } from '../rpc/deps.js';
import type { StoreSet } from '../effects/store/store-set.js';
import type { TmuxAdapter } from '../effects/tmux/types.js';
import { createContextInner } from '../rpc/context.js';
import { gatewayRouter } from '../rpc/roles/gateway.js';
import { observerRouter } from '../rpc/roles/observer.js';
import { createCallerFactory } from '../rpc/trpc.js';
import { testDeps } from '../testing/deps.testkit.js';

/** Sources never touch tmux: a stand-in at that process boundary that fails loudly. */
const noTmux = new Proxy({} as TmuxAdapter, {
  get: (_target, prop) =>
    prop === 'then'
      ? undefined
      : () => {
          throw new Error(`source procedures must not call tmux (${String(prop)})`);
        },
});

let base: string;
let repo: SourceRepo;
let stores: StoreSet;
let deps: BrokerDeps;
const observerSource = (deps: BrokerDeps) => createCallerFactory(observerRouter)(createContextInner({ role: 'observer', deps })).source;
let source: ReturnType<typeof observerSource>;

/** The error code a caller would see (the formatter maps schema failures to INVALID_ARGUMENT). */
async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'OK';
  } catch (err) {
    const e = err as { cause?: unknown; code?: string; message?: string };
    // A refusal's message never carries file content.
    expect(e.message ?? '').not.toContain(OUTSIDE_MARKER);
    expect(e.message ?? '').not.toContain(ENV_SECRET);
    return readAppErrorData(e.cause)?.code ?? (e.code === 'BAD_REQUEST' ? 'INVALID_ARGUMENT' : `UNMAPPED:${e.code}`);
  }
}

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'tmcp-sources-'));
  repo = makeSourceRepo(base);
  mkdirSync(join(base, 'state'));
  const config = configSchema.parse({
    log_level: 'silent',
    observer: {
      source_roots: [
        { name: 'demo', path: repo.root },
        { name: 'gone', path: join(base, 'does-not-exist') },
        { name: 'plain', path: repo.outside },
      ],
      search_timeout_ms: 5000,
    },
  });
  deps = testDeps({ config, tmux: noTmux, stateDir: join(base, 'state'), log: pino({ level: 'silent' }), info: { version: 'test', startedAt: new Date(), tmuxSocket: null } });
  stores = deps.stores;
  source = observerSource(deps);
}, 60_000);

afterAll(() => {
  stores.close();
  rmSync(base, { recursive: true, force: true });
});

describe('listProjects', () => {
  it('names projects, their branch and state, and never the host path', async () => {
    const { projects } = await source.listProjects({});
    expect(projects).toEqual([
      { name: 'demo', directory: 'repo', available: true, branch: 'main', head: repo.commits.second, dirty: true, untracked: expect.any(Number) },
      { name: 'gone', directory: 'does-not-exist', available: false, branch: null, head: null, dirty: null, untracked: null },
      { name: 'plain', directory: 'outside', available: false, branch: null, head: null, dirty: null, untracked: null },
    ]);
    expect(projects[0]!.untracked).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(projects)).not.toContain(base);
  });

  it('answers NOT_FOUND for an unknown or unusable project', async () => {
    expect(await codeOf(source.gitStatus({ project: 'nope' }))).toBe('NOT_FOUND');
    expect(await codeOf(source.gitStatus({ project: 'gone' }))).toBe('NOT_FOUND');
    expect(await codeOf(source.gitStatus({ project: 'plain' }))).toBe('NOT_FOUND');
    expect(await codeOf(source.gitStatus({ project: 'Bad Name' }))).toBe('INVALID_ARGUMENT');
  });
});

describe('gitStatus', () => {
  it('lists changes, marks secret files hidden, leaves ignored files out', async () => {
    const status = await source.gitStatus({ project: 'demo' });
    expect(status).toMatchObject({ project: 'demo', branch: 'main', head: repo.commits.second, upstream: null, truncated: false });
    const byPath = new Map(status.entries.map((e) => [e.path, e]));
    expect(byPath.get('README.md')).toMatchObject({ kind: 'changed', index: '.', worktree: 'M', hidden: false });
    expect(byPath.get('.env')).toMatchObject({ kind: 'changed', worktree: 'M', hidden: true });
    expect(byPath.get('untracked.txt')).toMatchObject({ kind: 'untracked', hidden: false });
    expect(byPath.has('dist/out.js')).toBe(false);
    expect(byPath.has('dist/')).toBe(false);
  });
});

describe('gitLog', () => {
  it('pages through history with limit and next_skip', async () => {
    const all = await source.gitLog({ project: 'demo' });
    expect(all.commits.map((c) => c.subject)).toEqual(['Add config', 'Initial commit']);
    expect(all.commits[0]).toMatchObject({
      commit: repo.commits.second,
      parents: [repo.commits.initial],
      author_name: 'Ada Author',
      author_email: 'ada@example.test',
      committer_name: 'Cy Committer',
      body: 'The body mentions nothing secret.',
    });
    expect(all.commits[0]!.author_date).toMatch(/^2024-01-02T00:00:00/);
    const first = await source.gitLog({ project: 'demo', limit: 1 });
    expect(first.commits.map((c) => c.commit)).toEqual([repo.commits.second]);
    expect(first.next_skip).toBe(1);
    const second = await source.gitLog({ project: 'demo', limit: 1, skip: first.next_skip! });
    expect(second.commits.map((c) => c.commit)).toEqual([repo.commits.initial]);
    expect(second.next_skip).toBeNull();
  });

  it('starts at a ref and filters by path', async () => {
    expect((await source.gitLog({ project: 'demo', ref: 'feature' })).commits).toHaveLength(3);
    expect((await source.gitLog({ project: 'demo', path: 'src/config.ts' })).commits.map((c) => c.commit)).toEqual([repo.commits.second]);
    expect((await source.gitLog({ project: 'demo', path: 'src/*.ts' })).commits).toEqual([]); // paths are literal
  });

  it('refuses bad refs and paths', async () => {
    expect(await codeOf(source.gitLog({ project: 'demo', ref: 'no-such-branch' }))).toBe('NOT_FOUND');
    expect(await codeOf(source.gitLog({ project: 'demo', path: '.env' }))).toBe('PATH_NOT_ALLOWED');
    expect(await codeOf(source.gitLog({ project: 'demo', path: '../outside' }))).toBe('PATH_NOT_ALLOWED');
    expect(await codeOf(source.gitLog({ project: 'demo', limit: 101 }))).toBe('INVALID_ARGUMENT');
  });
});

describe('showCommit', () => {
  it('shows metadata, diffstat and a redacted patch', async () => {
    const shown = await source.showCommit({ project: 'demo', rev: 'v1.1' }); // an annotated tag peels to its commit
    expect(shown.commit.commit).toBe(repo.commits.second);
    expect(shown.files.map((f) => f.path).sort()).toEqual(['src/app.ts', 'src/config.ts']);
    expect(shown.patch).toContain("+  console.log('hello from app, version 2');");
    expect(shown.patch).toContain('[REDACTED:');
    expect(shown.patch).not.toContain(FAKE_API_KEY);
    expect(shown.redactions).toBeGreaterThanOrEqual(1);
    expect(shown.truncated).toBe(false);
  });

  it('leaves secret files out of a root commit, and lists them as hidden', async () => {
    const shown = await source.showCommit({ project: 'demo', rev: repo.commits.initial });
    expect(shown.hidden_paths.sort()).toEqual(['.env', '.env.local', 'certs/server.pem', 'id_rsa']);
    expect(shown.files.map((f) => f.path)).toContain('README.md');
    expect(shown.files.find((f) => f.path === 'bin/logo.png')).toEqual({ path: 'bin/logo.png', added: null, deleted: null });
    for (const leaked of [ENV_SECRET, 'PRIVATE KEY', 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE', '.env.local', 'id_rsa']) {
      expect(shown.patch).not.toContain(leaked);
    }
  });

  it('resolves only commits: blob syntax and options are refused', async () => {
    // Not revision grammar at all (issue 25: only names, ids and ~N/^N).
    expect(await codeOf(source.showCommit({ project: 'demo', rev: 'HEAD:.env' }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(source.showCommit({ project: 'demo', rev: 'HEAD^{tree}' }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(source.showCommit({ project: 'demo', rev: '-p' }))).toBe('INVALID_ARGUMENT');
  });
});

describe('diff', () => {
  it('compares the working tree with HEAD by default, secret files left out', async () => {
    const d = await source.diff({ project: 'demo' });
    expect(d).toMatchObject({ from: repo.commits.second, to: null, hidden_paths: ['.env'] });
    expect(d.files).toEqual([{ path: 'README.md', added: 1, deleted: 1 }]);
    expect(d.patch).toContain('+A demo project, edited.');
    expect(d.patch).not.toContain(ENV_SECRET);
  });

  it('compares two revisions, optionally under a path', async () => {
    const d = await source.diff({ project: 'demo', from: 'v1.0', to: 'feature' });
    expect(d.files.map((f) => f.path).sort()).toEqual(['docs/feature.md', 'src/app.ts', 'src/config.ts']);
    expect(d.patch).not.toContain(FAKE_API_KEY);
    const docs = await source.diff({ project: 'demo', from: 'v1.0', to: 'feature', path: 'docs' });
    expect(docs.files.map((f) => f.path)).toEqual(['docs/feature.md']);
  });

  it('refuses secret paths, blob revisions and a lone `to`', async () => {
    expect(await codeOf(source.diff({ project: 'demo', path: '.env' }))).toBe('PATH_NOT_ALLOWED');
    expect(await codeOf(source.diff({ project: 'demo', from: 'HEAD:.env' }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(source.diff({ project: 'demo', to: 'HEAD' }))).toBe('INVALID_ARGUMENT');
  });
});

describe('listRefs', () => {
  it('lists branches and tags with the commits they name', async () => {
    const refs = await source.listRefs({ project: 'demo' });
    expect(refs.branches).toEqual([
      { name: 'feature', commit: repo.commits.feature, is_head: false, upstream: null },
      { name: 'main', commit: repo.commits.second, is_head: true, upstream: null },
    ]);
    expect(refs.tags).toEqual([
      { name: 'v1.0', commit: repo.commits.initial, annotated: false },
      { name: 'v1.1', commit: repo.commits.second, annotated: true },
    ]);
    expect(refs.truncated).toBe(false);
  });
});

describe('blame', () => {
  it('attributes each line of a committed file', async () => {
    const b = await source.blame({ project: 'demo', path: 'src/app.ts', start_line: 1, end_line: 3 });
    expect(b.commit).toBe(repo.commits.second);
    expect(b.lines.map((l) => [l.line, l.commit])).toEqual([
      [1, repo.commits.initial],
      [2, repo.commits.second],
      [3, repo.commits.initial],
    ]);
    expect(b.lines[1]).toMatchObject({ author_name: 'Ada Author', summary: 'Add config', text: "  console.log('hello from app, version 2');" });
  });

  it('redacts secrets in blamed lines and keeps line numbers', async () => {
    const b = await source.blame({ project: 'demo', path: 'src/config.ts', start_line: 1, end_line: 2 });
    expect(b.lines).toHaveLength(2);
    expect(b.lines[0]!.text).toContain('[REDACTED:');
    expect(JSON.stringify(b)).not.toContain(FAKE_API_KEY);
    expect(b.lines[1]!.text).toBe("export const region = 'eu';");
  });

  it('clamps the end, refuses a start past the end and oversized ranges', async () => {
    expect((await source.blame({ project: 'demo', path: 'src/app.ts', start_line: 2, end_line: 400 })).lines).toHaveLength(2);
    expect(await codeOf(source.blame({ project: 'demo', path: 'src/app.ts', start_line: 50, end_line: 60 }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(source.blame({ project: 'demo', path: 'src/app.ts', start_line: 1, end_line: 501 }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(source.blame({ project: 'demo', path: 'src/config.ts', start_line: 1, end_line: 1, rev: 'v1.0' }))).toBe('NOT_FOUND');
    expect(await codeOf(source.blame({ project: 'demo', path: 'no/such.ts', start_line: 1, end_line: 1 }))).toBe('NOT_FOUND');
  });

  it.each(['.env', 'id_rsa', 'certs/server.pem', '.git/config', '../../etc/passwd', '/etc/passwd'])('refuses %s', async (path) => {
    expect(await codeOf(source.blame({ project: 'demo', path, start_line: 1, end_line: 1 }))).toBe('PATH_NOT_ALLOWED');
  });
});

describe('listFiles', () => {
  it('lists the root: tracked and untracked files, secrets hidden, nothing ignored, never .git', async () => {
    const list = await source.listFiles({ project: 'demo' });
    const byPath = new Map(list.entries.map((e) => [e.path, e]));
    expect(byPath.get('README.md')).toEqual({ path: 'README.md', type: 'file', tracked: true, hidden: false });
    expect(byPath.get('src')).toEqual({ path: 'src', type: 'dir', tracked: true, hidden: false });
    expect(byPath.get('untracked.txt')).toEqual({ path: 'untracked.txt', type: 'file', tracked: false, hidden: false });
    for (const secret of ['.env', '.env.local', 'id_rsa']) expect(byPath.get(secret)).toMatchObject({ hidden: true });
    expect(byPath.has('dist')).toBe(false);
    expect([...byPath.keys()].some((p) => p === '.git' || p.startsWith('.git/'))).toBe(false);
    expect(byPath.get('link-out')).toMatchObject({ type: 'file', tracked: false });
  });

  it('lists a subtree recursively, within a limit', async () => {
    const list = await source.listFiles({ project: 'demo', recursive: true });
    const paths = list.entries.map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['src/app.ts', 'src/config.ts', 'docs/guide.md', 'certs/server.pem', 'bin/logo.png']));
    expect(paths.some((p) => p.startsWith('dist/') || p.startsWith('.git/'))).toBe(false);
    expect(list.entries.find((e) => e.path === 'certs/server.pem')?.hidden).toBe(true);
    expect((await source.listFiles({ project: 'demo', dir: 'src' })).entries.map((e) => e.path)).toEqual(['src/app.ts', 'src/config.ts']);
    const limited = await source.listFiles({ project: 'demo', recursive: true, limit: 2 });
    expect(limited).toMatchObject({ truncated: true });
    expect(limited.entries).toHaveLength(2);
  });

  it.each(['..', '../outside', '/etc', '.git', '.git/refs'])('refuses dir %s', async (dir) => {
    expect(await codeOf(source.listFiles({ project: 'demo', dir }))).toBe('PATH_NOT_ALLOWED');
  });
});

describe('readFile', () => {
  it('reads a working-tree file, whole or by line range', async () => {
    const whole = await source.readFile({ project: 'demo', path: 'README.md' });
    expect(whole).toMatchObject({ text: '# Demo\n\nA demo project, edited.', start_line: 1, end_line: 3, total_lines: 3, truncated: false, next_start_line: null });
    const one = await source.readFile({ project: 'demo', path: 'src/app.ts', start_line: 2, end_line: 2 });
    expect(one).toMatchObject({ text: "  console.log('hello from app, version 2');", start_line: 2, end_line: 2, next_start_line: 3, truncated: false });
    expect((await source.readFile({ project: 'demo', path: 'untracked.txt' })).text).toBe('not yet added');
  });

  it('follows a symlink that stays inside the root', async () => {
    expect((await source.readFile({ project: 'demo', path: 'link-in' })).text).toContain('hello from app');
  });

  it('redacts secrets in file text', async () => {
    const r = await source.readFile({ project: 'demo', path: 'src/config.ts' });
    expect(r.text).toMatch(/\[REDACTED:[a-z_]+\]/);
    expect(r.text).not.toContain(FAKE_API_KEY);
    expect(r.text).toContain("export const region = 'eu';");
    expect(r.redactions).toBe(1);
  });

  it.each([
    ['../../etc/passwd', 'PATH_NOT_ALLOWED'],
    ['a/../../x', 'PATH_NOT_ALLOWED'],
    ['src/../README.md', 'PATH_NOT_ALLOWED'],
    ['/etc/passwd', 'PATH_NOT_ALLOWED'],
    ['%2e%2e/%2e%2e/etc/passwd', 'NOT_FOUND'], // URL encoding is a literal name
    ['..%2f..%2fetc%2fpasswd', 'NOT_FOUND'],
    ['link-out/secret.txt', 'PATH_NOT_ALLOWED'],
    ['link-out/missing.txt', 'PATH_NOT_ALLOWED'],
    ['link-outside-file', 'PATH_NOT_ALLOWED'],
    ['link-env', 'PATH_NOT_ALLOWED'],
    ['link-git-config', 'PATH_NOT_ALLOWED'],
    ['.git/config', 'PATH_NOT_ALLOWED'],
    ['.git/HEAD', 'PATH_NOT_ALLOWED'],
    ['.env', 'PATH_NOT_ALLOWED'],
    ['.env.local', 'PATH_NOT_ALLOWED'],
    ['id_rsa', 'PATH_NOT_ALLOWED'],
    ['certs/server.pem', 'PATH_NOT_ALLOWED'],
    ['dist/out.js', 'PATH_NOT_ALLOWED'], // ignored by git
    ['bin/logo.png', 'BINARY_FILE'],
    ['big.txt', 'FILE_TOO_LARGE'],
    ['src', 'INVALID_ARGUMENT'],
    ['no-such-file.txt', 'NOT_FOUND'],
  ])('%s -> %s', async (path, code) => {
    expect(await codeOf(source.readFile({ project: 'demo', path }))).toBe(code);
  });

  it('reads a line range of a huge file within the scanned part only', async () => {
    const r = await source.readFile({ project: 'demo', path: 'big.txt', start_line: 1, end_line: 10 });
    expect(r).toMatchObject({ start_line: 1, end_line: 10, total_lines: null, truncated: false, next_start_line: 11 });
    expect(r.size_bytes).toBeGreaterThanOrEqual(5 * 1024 * 1024);
    expect(r.text.split('\n')).toHaveLength(10);
    expect(await codeOf(source.readFile({ project: 'demo', path: 'big.txt', start_line: 70_000, end_line: 70_010 }))).toBe('FILE_TOO_LARGE');
    const tail = await source.readFile({ project: 'demo', path: 'big.txt', start_line: 15_000 });
    expect(tail.end_line).toBeLessThan(15_000 + 2000);
    expect(tail.truncated).toBe(true);
  });

  it('refuses a start past the end of a file', async () => {
    expect(await codeOf(source.readFile({ project: 'demo', path: 'README.md', start_line: 10 }))).toBe('INVALID_ARGUMENT');
  });
});

describe('searchText', () => {
  it('finds fixed strings in tracked and untracked files', async () => {
    const r = await source.searchText({ project: 'demo', query: 'hello from app' });
    expect(r.matches).toEqual([{ path: 'src/app.ts', line: 2, text: "  console.log('hello from app, version 2');" }]);
    expect((await source.searchText({ project: 'demo', query: 'not yet added' })).matches.map((m) => m.path)).toEqual(['untracked.txt']);
    expect((await source.searchText({ project: 'demo', query: '(a+)+$' })).matches).toEqual([]); // fixed string by default
  });

  it('searches with a POSIX regex, a path glob and a result cap', async () => {
    expect((await source.searchText({ project: 'demo', query: 'hello.*version [0-9]', regex: true })).matches.map((m) => m.path)).toEqual(['src/app.ts']);
    expect((await source.searchText({ project: 'demo', query: 'HELLO FROM', ignore_case: true })).matches).toHaveLength(1);
    expect((await source.searchText({ project: 'demo', query: 'e', path_glob: 'docs/*' })).matches.map((m) => m.path).sort()).toEqual(['docs/guide.md']);
    const capped = await source.searchText({ project: 'demo', query: 'e', max_results: 1 });
    expect(capped.matches).toHaveLength(1);
    expect(capped.truncated).toBe(true);
  });

  it('never searches outside the root, secret files or ignored files', async () => {
    for (const query of [OUTSIDE_MARKER, ENV_SECRET, 'PRIVATE KEY', 'ignored build output', '[core]']) {
      expect({ query, matches: (await source.searchText({ project: 'demo', query })).matches }).toEqual({ query, matches: [] });
    }
  });

  it('shows a line holding a secret only redacted, and is no oracle for the secret', async () => {
    const hit = await source.searchText({ project: 'demo', query: 'apiKey' });
    expect(hit.matches).toHaveLength(1);
    expect(hit.matches[0]!.text).toContain('[REDACTED:');
    expect(hit.matches[0]!.text).not.toContain(FAKE_API_KEY);
    // Probing the secret itself finds nothing, whether the guess is right or wrong.
    expect((await source.searchText({ project: 'demo', query: FAKE_API_KEY.slice(0, 20) })).matches).toEqual([]);
    expect((await source.searchText({ project: 'demo', query: 'sk-ant-api03-Ab', regex: true })).matches).toEqual([]);
  });

  it('refuses unsupported and invalid regular expressions and bad globs', async () => {
    expect(await codeOf(source.searchText({ project: 'demo', query: '(a)\\1', regex: true }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(source.searchText({ project: 'demo', query: 'a{1,1000}', regex: true }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(source.searchText({ project: 'demo', query: '(', regex: true }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(source.searchText({ project: 'demo', query: 'x', path_glob: '../*' }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(source.searchText({ project: 'demo', query: 'x', max_results: 201 }))).toBe('INVALID_ARGUMENT');
  });
});

describe('roles', () => {
  it('does not serve source reads to the gateway (no gateway tool reads project sources)', () => {
    expect(Object.keys(gatewayRouter._def.record)).not.toContain('source');
  });

  it('raises tRPC errors whose code matches the contract code, and logs refused paths without the path', async () => {
    const lines: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    const logged = observerSource({ ...deps, log });
    const err = (await logged.readFile({ project: 'demo', path: '.env' }).catch((e: unknown) => e)) as { code?: string; cause?: unknown };
    expect(err.code).toBe('FORBIDDEN');
    expect(readAppErrorData(err.cause)?.code).toBe('PATH_NOT_ALLOWED');
    const missing = (await logged.readFile({ project: 'demo', path: 'nope.txt' }).catch((e: unknown) => e)) as { code?: string };
    expect(missing.code).toBe('NOT_FOUND');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ event: 'security.source_path_refused', procedure: 'readFile', project: 'demo' });
    expect(lines[0]).not.toContain('.env');
  });

  it('left the repository as it was (no index rewrite, no new files in .git)', () => {
    expect(existsSync(join(repo.root, '.git', 'index.lock'))).toBe(false);
  });
});
