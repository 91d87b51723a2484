// Guards issue 9's "no oracle in search": guessing a withheld secret one character at a
// time (the attack that recovered `DB_PASSWORD = hunter2hunter2` in 344 calls through
// git grep's per-file --max-count and `truncated`) must see identical answers, every
// field of them, for a right and a wrong guess.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git } from '../../../../test/src/helpers/source-repo.js';
import { configSchema } from '../config/schema.js';
import type { BrokerDeps } from '../rpc/deps.js';
import type { StoreSet } from '../effects/store/store-set.js';
import type { TmuxAdapter } from '../effects/tmux/types.js';
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
  base = mkdtempSync(join(tmpdir(), 'tmcp-oracle-'));
  const root = join(base, 'repo');
  const home = join(base, 'home');
  mkdirSync(join(root, 'config'), { recursive: true });
  mkdirSync(home);
  git(root, home, ['init', '-q', '-b', 'main']);
  writeFileSync(join(root, 'config/settings.py'), [`DB_PASSWORD = ${SECRET}`, 'DB_HOST = "db"', 'DB_NAME = "app"', 'DB_USER = "app"', ''].join('\n'));
  writeFileSync(join(root, 'config/other.py'), ['DB_HOST = "replica"', 'DB_NAME = "reports"', ''].join('\n'));
  git(root, home, ['add', '.']);
  git(root, home, ['commit', '-q', '-m', 'settings']);
  deps = testDeps({
    config: configSchema.parse({ log_level: 'silent', observer: { source_roots: [{ name: 'app', path: root }], search_timeout_ms: 10_000 } }),
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

const escapeEre = (s: string) => s.replace(/[.[\]()*+?{}|^$\\]/g, '\\$&');

describe('searchText is no oracle for withheld text', () => {
  // One test per prefix length and max_results (12 searches each), so no one test needs
  // minutes on a slow machine.
  const cases = Array.from({ length: SECRET.length }, (_, i) => [1, 2, 3].map((max) => [i + 1, max] as const)).flat();
  it.each(cases)('answers a right and a wrong guess of the %i-character prefix identically (max_results %i)', async (k, max_results) => {
    const s = source();
    const right = SECRET.slice(0, k);
    const wrong = `${SECRET.slice(0, k - 1)}${SECRET[k - 1] === 'x' ? 'y' : 'x'}`;
    const probes = (guess: string) => [
      { query: `DB_PASSWORD = ${guess}`, max_results },
      { query: `DB_PASSWORD = ${escapeEre(guess)}|DB_HOST|DB_NAME`, regex: true, max_results },
      { query: `db_password = ${escapeEre(guess)}|db_host`, regex: true, ignore_case: true, max_results },
      { query: guess, max_results },
      // Hits only in the secret's file: with a per-file --max-count of max_results + 1
      // the secret line's hit used up a slot, so `truncated` told right from wrong.
      { query: `DB_PASSWORD = ${escapeEre(guess)}|"app"`, regex: true, max_results },
      { query: `DB_PASSWORD = ${escapeEre(guess)}|DB_`, regex: true, max_results, path_glob: 'config/settings.py' },
    ];
    const [a, b] = [probes(right), probes(wrong)];
    for (let i = 0; i < a.length; i += 1) {
      const answerRight = await s.searchText({ project: 'app', ...a[i]! });
      const answerWrong = await s.searchText({ project: 'app', ...b[i]! });
      expect({ k, max_results, probe: i, answer: answerRight }).toEqual({ k, max_results, probe: i, answer: answerWrong });
    }
  });

  it('still finds and shows the line, redacted, for a query outside the secret', async () => {
    const hit = await source().searchText({ project: 'app', query: 'DB_PASSWORD' });
    expect(hit.matches).toEqual([{ path: 'config/settings.py', line: 1, text: 'DB_PASSWORD = [REDACTED:password]' }]);
    const capped = await source().searchText({ project: 'app', query: 'DB_', max_results: 2 });
    expect(capped.matches.map((m) => `${m.path}:${m.line}`)).toEqual(['config/other.py:1', 'config/other.py:2']);
    expect(capped.truncated).toBe(true);
  });
});
