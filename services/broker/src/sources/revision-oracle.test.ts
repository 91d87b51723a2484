// Guards issue 25's "no oracles": revision syntax that searches commit messages (`HEAD^{/text}`, `:/text`, `@{...}`) answered found / not found for a redacted `DB_PASSWORD=` in a message (10 characters recovered in 347 calls). Every prefix of the secret is guessed, right and wrong, through every revision-taking source tool and every search syntax: the answers must be identical, and the grammar must still take ref names, ids and ~N/^N.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git } from '../../../../test/src/helpers/source-repo.js';
import { configSchema } from '../config/schema.js';
import { assertRevisionArgument } from '../effects/git/git-runner.js';
import type { StoreSet } from '../effects/store/store-set.js';
import type { TmuxAdapter } from '../effects/tmux/types.js';
import type { BrokerDeps } from '../rpc/deps.js';
import { createContextInner } from '../rpc/context.js';
import { observerRouter } from '../rpc/roles/observer.js';
import { createCallerFactory } from '../rpc/trpc.js';
import { testDeps } from '../testing/deps.testkit.js';

const SECRET = 'hunter2hunter2';
let base: string;
let stores: StoreSet;
let deps: BrokerDeps;
const source = () => createCallerFactory(observerRouter)(createContextInner({ role: 'observer', deps })).source;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'tmcp-rev-oracle-'));
  const root = join(base, 'repo');
  const home = join(base, 'home');
  mkdirSync(root, { recursive: true });
  mkdirSync(home);
  git(root, home, ['init', '-q', '-b', 'main']);
  writeFileSync(join(root, 'app.py'), 'print("hi")\n');
  git(root, home, ['add', '.']);
  git(root, home, ['commit', '-q', '-m', 'first']);
  writeFileSync(join(root, 'app.py'), 'print("hello")\n');
  git(root, home, ['commit', '-q', '-am', `rotate: DB_PASSWORD=${SECRET}`]);
  writeFileSync(join(root, 'app.py'), 'print("bye")\n');
  git(root, home, ['commit', '-q', '-am', 'third']);
  deps = testDeps({
    config: configSchema.parse({ log_level: 'silent', observer: { source_roots: [{ name: 'app', path: root }] } }),
    tmux: {} as TmuxAdapter,
    stateDir: join(base, 'state'),
    log: pino({ level: 'silent' }),
    info: { version: 'test', startedAt: new Date(), tmuxSocket: null },
  });
  stores = deps.stores;
});

afterAll(() => {
  stores?.close();
  if (base) rmSync(base, { recursive: true, force: true });
});

/** What a client learns from a call: the answer, or the error's code and message. */
async function answer(call: () => Promise<unknown>): Promise<unknown> {
  try {
    return { ok: await call() };
  } catch (err) {
    const e = err as { code?: string; message: string; cause?: { code?: string } };
    return { error: e.code ?? null, message: e.message.replace(/"[^"]*"/g, '"…"').slice(0, 200) };
  }
}

const SYNTAXES = [(g: string) => `HEAD^{/DB_PASSWORD=${g}}`, (g: string) => `:/DB_PASSWORD=${g}`, (g: string) => `main^{/${g}}`, (g: string) => `HEAD@{/DB_PASSWORD=${g}}`, (g: string) => `:/^rotate: DB_PASSWORD=${g}`];

describe('source revisions are no oracle', () => {
  it('answers a right and a wrong guess of every prefix identically, through every revision-taking tool', async () => {
    const s = source();
    const tools = [
      (rev: string) => s.gitLog({ project: 'app', ref: rev, limit: 1 }),
      (rev: string) => s.showCommit({ project: 'app', rev }),
      (rev: string) => s.diff({ project: 'app', from: rev, to: 'HEAD' }),
      (rev: string) => s.diff({ project: 'app', from: 'HEAD~2', to: rev }),
      (rev: string) => s.blame({ project: 'app', path: 'app.py', start_line: 1, end_line: 1, rev }),
    ];
    let calls = 0;
    for (let k = 1; k <= SECRET.length; k += 1) {
      const right = SECRET.slice(0, k);
      const wrong = `${SECRET.slice(0, k - 1)}${SECRET[k - 1] === 'x' ? 'y' : 'x'}`;
      for (const [t, tool] of tools.entries()) {
        for (const [n, syntax] of SYNTAXES.entries()) {
          const a = await answer(() => tool(syntax(right)));
          const b = await answer(() => tool(syntax(wrong)));
          calls += 2;
          expect({ k, tool: t, syntax: n, answer: a }).toEqual({ k, tool: t, syntax: n, answer: b });
        }
      }
    }
    expect(calls).toBe(SECRET.length * 5 * SYNTAXES.length * 2);
  }, 120_000);

  it('still takes ref names, ids and ~N/^N', async () => {
    const s = source();
    const log = await s.gitLog({ project: 'app', ref: 'main', limit: 3 });
    expect(log.commits).toHaveLength(3);
    const id = log.commits[1]!.commit;
    for (const rev of ['HEAD', 'main', 'HEAD~1', 'HEAD^', 'main~2', id, id.slice(0, 7), `${id.slice(0, 10)}^`]) {
      expect((await s.showCommit({ project: 'app', rev })).commit.commit).toMatch(/^[0-9a-f]{40}$/);
    }
    // The message is shown, redacted.
    expect(JSON.stringify(await s.showCommit({ project: 'app', rev: id }))).not.toContain(SECRET);
  }, 120_000);

  it('refuses searching syntax in the broker too, whatever the schema let through', () => {
    for (const rev of ['HEAD^{/x}', ':/x', 'HEAD@{1}', '@{-1}', 'main:app.py', 'HEAD^{commit}', '-n', 'a..b']) {
      expect(() => assertRevisionArgument(rev)).toThrow(/invalid revision/);
    }
    for (const rev of ['HEAD', 'origin/main', 'v1.2.3', 'HEAD~2^2', 'abc1234']) expect(() => assertRevisionArgument(rev)).not.toThrow();
  });
});
