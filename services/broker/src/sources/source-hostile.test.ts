// Guards the source capability against hostile input: repository config that names programs never runs them, option-like revisions never reach git, and a catastrophic regex ends in bounded time.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAppErrorData } from '@terminal-mcp/contract';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, makeSourceRepo, type SourceRepo } from '../../../../test/src/helpers/source-repo.js';
import { configSchema, type BrokerConfig } from '../config/schema.js';
import type { BrokerDeps } from '../rpc/deps.js';
import { openGitRepo } from '../effects/git/git-runner.js';
import type { StoreSet } from '../effects/store/store-set.js';
import type { TmuxAdapter } from '../effects/tmux/types.js';
import { createContextInner } from '../rpc/context.js';
import { observerRouter } from '../rpc/roles/observer.js';
import { createCallerFactory } from '../rpc/trpc.js';
import { resolveCommit } from './project.js';
import { searchText } from './search.js';
import { createRunningWork } from '../projects/running-work.js';
import { testDeps } from '../testing/deps.testkit.js';

const noTmux = new Proxy({} as TmuxAdapter, {
  get: (_target, prop) =>
    prop === 'then'
      ? undefined
      : () => {
          throw new Error(`source procedures must not call tmux (${String(prop)})`);
        },
});

const SEARCH_TIMEOUT_MS = 1500;

let base: string;
let repo: SourceRepo;
let markers: string;
let stores: StoreSet;
let config: BrokerConfig;
const observerSource = (deps: BrokerDeps) => createCallerFactory(observerRouter)(createContextInner({ role: 'observer', deps })).source;
let source: ReturnType<typeof observerSource>;

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'OK';
  } catch (err) {
    const e = err as { cause?: unknown; code?: string };
    return readAppErrorData(e.cause)?.code ?? readAppErrorData(e)?.code ?? (e.code === 'BAD_REQUEST' ? 'INVALID_ARGUMENT' : `UNMAPPED:${e.code}`);
  }
}

/** A program that only records that it ran, then acts as `cat`. */
function markerScript(name: string): string {
  const script = join(base, 'scripts', `${name}.sh`);
  writeFileSync(script, `#!/bin/sh\ntouch '${join(markers, name)}'\ncat\n`);
  chmodSync(script, 0o755);
  return script;
}

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'tmcp-sources-hostile-'));
  repo = makeSourceRepo(base);
  markers = join(base, 'markers');
  mkdirSync(markers);
  mkdirSync(join(base, 'scripts'));
  const home = join(base, 'home');
  const cfg = (key: string, value: string) => git(repo.root, home, ['config', key, value]);
  // Every way a repository's config or attributes can name a program for a read command.
  writeFileSync(join(repo.root, '.gitattributes'), '* filter=evil diff=evil\n');
  cfg('core.pager', markerScript('pager'));
  cfg('pager.log', markerScript('pager-log'));
  cfg('core.fsmonitor', markerScript('fsmonitor'));
  cfg('core.hooksPath', join(base, 'scripts'));
  cfg('diff.external', markerScript('diff-external'));
  cfg('diff.evil.command', markerScript('diff-command'));
  cfg('diff.evil.textconv', markerScript('textconv'));
  cfg('filter.evil.clean', markerScript('filter-clean'));
  cfg('filter.evil.smudge', markerScript('filter-smudge'));
  cfg('filter.evil.process', markerScript('filter-process'));
  cfg('filter.evil.required', 'true');
  cfg('alias.log', `!${markerScript('alias-log')}`);
  cfg('alias.grep', `!${markerScript('alias-grep')}`);
  cfg('log.showSignature', 'true');
  cfg('gpg.program', markerScript('gpg'));
  cfg('grep.patternType', 'perl');
  cfg('grep.column', 'true');
  cfg('diff.noprefix', 'true');
  cfg('core.sshCommand', markerScript('ssh'));
  writeFileSync(join(repo.root, 'src', 'app.ts'), 'export function main(): void {}\n// touched so git must hash it again\n');

  mkdirSync(join(base, 'state'));
  config = configSchema.parse({
    log_level: 'silent',
    observer: { source_roots: [{ name: 'demo', path: repo.root }], search_timeout_ms: SEARCH_TIMEOUT_MS },
  });
  const deps: BrokerDeps = testDeps({ config, tmux: noTmux, stateDir: join(base, 'state'), log: pino({ level: 'silent' }), info: { version: 'test', startedAt: new Date(), tmuxSocket: null } });
  stores = deps.stores;
  source = observerSource(deps);
}, 60_000);

afterAll(() => {
  stores.close();
  rmSync(base, { recursive: true, force: true });
});

describe('hostile repository config', () => {
  it('is live: plain git would run the configured programs', () => {
    const probe = mkdtempSync(join(tmpdir(), 'tmcp-probe-'));
    try {
      execFileSync('git', ['diff', 'HEAD'], { cwd: repo.root, env: { PATH: process.env.PATH, HOME: probe, GIT_CONFIG_NOSYSTEM: '1' }, stdio: 'ignore' });
    } catch {
      // a hostile program may also make git fail; that it ran is what matters
    }
    expect(readdirSync(markers).length).toBeGreaterThan(0);
    rmSync(probe, { recursive: true, force: true });
    rmSync(markers, { recursive: true });
    mkdirSync(markers);
  });

  it('never runs a program through any source procedure', async () => {
    const project = 'demo';
    await source.listProjects({});
    await source.gitStatus({ project });
    await source.gitLog({ project, path: 'src/app.ts' });
    await source.showCommit({ project, rev: 'HEAD' });
    await source.diff({ project });
    await source.diff({ project, from: 'v1.0', to: 'HEAD' });
    await source.listRefs({ project });
    await source.blame({ project, path: 'src/app.ts', start_line: 1, end_line: 2 });
    await source.listFiles({ project, recursive: true });
    await source.readFile({ project, path: 'src/app.ts' });
    await source.searchText({ project, query: 'main' });
    await source.searchText({ project, query: 'ma[i]n', regex: true });
    expect(readdirSync(markers)).toEqual([]);
  });

  it('still answers correctly despite config that changes output formats', async () => {
    const d = await source.diff({ project: 'demo' });
    expect(d.files.map((f) => f.path)).toContain('src/app.ts');
    expect(d.patch).toContain('diff --git a/src/app.ts b/src/app.ts');
    const hits = await source.searchText({ project: 'demo', query: 'touched so git' });
    expect(hits.matches).toEqual([{ path: 'src/app.ts', line: 2, text: '// touched so git must hash it again' }]);
  });
});

describe('option-like revisions', () => {
  const target = () => join(base, 'pwned-output');

  it.each([
    ['gitLog ref', () => source.gitLog({ project: 'demo', ref: `--output=${target()}` })],
    ['showCommit rev', () => source.showCommit({ project: 'demo', rev: `--output=${target()}` })],
    ['diff from', () => source.diff({ project: 'demo', from: `--output=${target()}` })],
    ['diff to', () => source.diff({ project: 'demo', from: 'HEAD', to: `--output=${target()}` })],
    ['blame rev', () => source.blame({ project: 'demo', path: 'README.md', start_line: 1, end_line: 1, rev: `--output=${target()}` })],
    ['spaces', () => source.showCommit({ project: 'demo', rev: `HEAD --output=${target()}` })],
  ])('%s is refused and writes nothing', async (_name, call) => {
    expect(await codeOf(call())).toBe('INVALID_ARGUMENT');
    expect(existsSync(target())).toBe(false);
  });

  it('is refused below the schema too', async () => {
    const git = await openGitRepo(repo.root);
    expect(await codeOf(resolveCommit(git, `--output=${target()}`))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(resolveCommit(git, '-h'))).toBe('INVALID_ARGUMENT');
    expect(existsSync(target())).toBe(false);
  });
});

describe('catastrophic regular expressions', () => {
  function gitGrepsAlive(): string[] {
    const ps = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
    return ps.split('\n').filter((l) => l.includes('grep') && l.includes('(a+)+$'));
  }

  it('(a+)+$ on 100 000 a\'s then b returns TIMEOUT in bounded time and leaves no git behind', async () => {
    const started = Date.now();
    const code = await codeOf(source.searchText({ project: 'demo', query: '(a+)+$', regex: true, path_glob: 'aaaa.txt' }));
    const elapsed = Date.now() - started;
    expect(['OK', 'TIMEOUT']).toContain(code);
    // Bounded by the search timeout, with room for a busy machine to kill git and answer;
    // backtracking over 100,000 a's unbounded would take far longer.
    expect(elapsed).toBeLessThan(SEARCH_TIMEOUT_MS + 30_000);
    await new Promise((r) => setTimeout(r, 200));
    expect(gitGrepsAlive()).toEqual([]);
  });

  it('limits concurrent searches', async () => {
    const running = createRunningWork();
    const slow = () => searchText(config, { project: 'demo', query: 'a+$', regex: true, path_glob: 'aaaa.txt' }, running);
    const codes = await Promise.all([slow(), slow(), slow()].map(codeOf));
    expect(codes).toContain('RATE_LIMITED');
    expect(codes.filter((c) => c === 'TIMEOUT' || c === 'OK')).toHaveLength(2);
  });
});
