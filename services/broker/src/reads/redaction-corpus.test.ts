// Guards issue 9's "redact before you slice" over EVERY read path, with real tmux and a real git repository: the redaction corpus (policy/redaction-corpus.ts) is shown in panes (wide, narrow so tokens and key lines wrap, scrolled into the middle of a key, a wrapped token cut by the screen's top edge) and committed to a repository, then read through the broker's procedures with windows the attacker chooses (every single row, rows strictly inside key blocks, every line range) — tail, capture, batch inspect, status, wait, live frames, source read/blame/diff/show/search — and no 8-character fragment of any secret may appear in any answer.
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PaneScreenFrame } from '@terminal-mcp/contract';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { git } from '../../../../test/src/helpers/source-repo.js';
import { startTmuxServer, type TmuxTestServer, type TmuxTestSession } from '../../../../test/src/helpers/tmux-server.js';
import { configSchema } from '../config/schema.js';
import type { BrokerDeps } from '../rpc/deps.js';
import type { StoreSet } from '../effects/store/store-set.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from '../effects/tmux/adapter.js';
import { createPaneWatcher, type PaneWatcher } from '../effects/tmux/pane-watch.js';
import { corpusText, fakeText, leakedFragments, REDACTION_CORPUS } from '../policy/redaction-corpus.js';
import { createContextInner } from '../rpc/context.js';
import { gatewayRouter } from '../rpc/roles/gateway.js';
import { observerRouter } from '../rpc/roles/observer.js';
import { webRouter } from '../rpc/roles/web.js';
import { createCallerFactory } from '../rpc/trpc.js';
import { testDeps } from '../testing/deps.testkit.js';
import { operatorToken } from '../webauth/operator-token.testkit.js';

const END_MARK = '## end-of-corpus';
const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
/** A long key shown in `less` style: the screen ends inside it, no END line. */
const MID_KEY_BODY = Array.from({ length: 40 }, (_, i) => fakeText(BASE64, 64, 5000 + i));
/** A token whose logical line straddles the top edge of a short, narrow screen: at 40
 * columns its 121 characters take 4 rows; five rows below it, the screen (8 rows) shows its last 3. */
const TOP_TOKEN = fakeText('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 100, 6000);
const EXTRA_SECRETS = [...MID_KEY_BODY, TOP_TOKEN];

let base: string;
let server: TmuxTestServer;
let adapter: ControlModeTmuxAdapter;
let paneWatch: PaneWatcher;
let stores: StoreSet;
let deps: BrokerDeps;
const sessions: Record<string, TmuxTestSession> = {};
/** Every answer of every read, as JSON: what a client would receive. */
const answers: { what: string; json: string }[] = [];

const gateway = () => createCallerFactory(gatewayRouter)(createContextInner({ role: 'gateway', deps }));
const observer = () => createCallerFactory(observerRouter)(createContextInner({ role: 'observer', deps }));
const web = () => createCallerFactory(webRouter)(createContextInner({ role: 'web', deps }));

function record(what: string, answer: unknown): void {
  answers.push({ what, json: JSON.stringify(answer) });
}

function leaksIn(list: readonly { what: string; json: string }[]): { what: string; fragments: string[] }[] {
  const secrets = [...REDACTION_CORPUS.flatMap((e) => e.secrets), ...EXTRA_SECRETS];
  return list.map((a) => ({ what: a.what, fragments: leakedFragments(a.json, secrets) })).filter((l) => l.fragments.length > 0);
}

async function paneSession(name: string, file: string, width: number, height: number, lastLine: string): Promise<void> {
  const s = await server.newSession(name, `bash --norc --noprofile -c 'cat ${file}; exec sleep 3600'`, { width, height });
  sessions[name] = s;
  await vi.waitFor(
    async () => expect(await server.tmux(['capture-pane', '-p', '-J', '-S', '-', '-t', s.paneId])).toContain(lastLine),
    { timeout: 60_000, interval: 100 },
  );
}

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'tmcp-corpus-'));
  const corpus = `${corpusText()}${END_MARK}\n`;
  writeFileSync(join(base, 'corpus.txt'), corpus);
  writeFileSync(join(base, 'midkey.txt'), ['$ less deploy-key', '-----BEGIN RSA PRIVATE KEY-----', ...MID_KEY_BODY, ''].join('\n'));
  writeFileSync(join(base, 'wraptop.txt'), ['start', `export SERVICE_TOKEN=${TOP_TOKEN}`, 'one', 'two', 'three', 'six-last', ''].join('\n'));

  server = await startTmuxServer();
  await paneSession('agent-corpus-wide', join(base, 'corpus.txt'), 100, 30, END_MARK);
  await paneSession('agent-corpus-narrow', join(base, 'corpus.txt'), 40, 20, END_MARK);
  await paneSession('agent-corpus-midkey', join(base, 'midkey.txt'), 80, 10, MID_KEY_BODY.at(-1) as string);
  await paneSession('agent-corpus-wraptop', join(base, 'wraptop.txt'), 40, 8, 'six-last');

  // A repository holding the corpus in an ordinary (not secret-named) file, committed twice
  // so blame, show and diff have history, and changed in the working tree.
  const root = join(base, 'repo');
  const home = join(base, 'home');
  mkdirSync(root);
  mkdirSync(home);
  git(root, home, ['init', '-q', '-b', 'main']);
  writeFileSync(join(root, 'notes.md'), corpus);
  git(root, home, ['add', '.']);
  git(root, home, ['commit', '-q', '-m', 'corpus']);
  // Change one line inside each key block: the hunks show body lines without markers.
  const changed = corpus
    .split('\n')
    .map((line, i, all) => (all[i - 3]?.startsWith('-----BEGIN') ? `${line.slice(0, 40)}${fakeText(BASE64, 24, 7000 + i)}` : line))
    .join('\n');
  writeFileSync(join(root, 'notes.md'), changed);
  git(root, home, ['commit', '-q', '-am', 'rotate'], '2024-02-01T00:00:00Z');
  appendFileSync(join(root, 'notes.md'), `${MID_KEY_BODY.slice(0, 3).join('\n')}\n`);

  adapter = createTmuxAdapter({ socketName: server.socketName, configFile: '/dev/null' });
  expect(await adapter.waitUntilConnected(10_000)).toBe(true);
  paneWatch = createPaneWatcher({ socketName: server.socketName, graceMs: 100 });
  deps = testDeps({
    config: configSchema.parse({ log_level: 'silent', observer: { source_roots: [{ name: 'corpus', path: root }], search_timeout_ms: 10_000 } }),
    tmux: adapter,
    stateDir: join(base, 'state'),
    log: pino({ level: 'silent' }),
    info: { version: 'test', startedAt: new Date(), tmuxSocket: server.socketName },
    paneWatch,
  });
  stores = deps.stores;
}, 120_000);

afterAll(async () => {
  await paneWatch?.close();
  await adapter?.close();
  stores?.close();
  await server?.kill();
  if (base) rmSync(base, { recursive: true, force: true });
});

describe('panes', () => {
  it('tail, status and batch inspect leak nothing', async () => {
    const g = gateway();
    for (const name of Object.keys(sessions)) {
      for (const lines of [1, 2, 3, 5, 8, 10, 20, 50, 200, 2000]) {
        record(`tail ${name} ${lines}`, await g.sessions.tail({ session: name, lines }));
        record(`tail raw ${name} ${lines}`, await g.sessions.tail({ session: name, lines, strip_ansi: false }));
      }
      record(`status ${name}`, await g.sessions.status({ session: name }));
    }
    for (const lines of [1, 2, 3, 5, 10, 50]) record(`batch ${lines}`, await g.sessions.batchInspect({ sessions: Object.keys(sessions), lines }));
    record('batch default', await g.sessions.batchInspect({}));
    expect(leaksIn(answers.filter((a) => /^(tail|status|batch)/.test(a.what)))).toEqual([]);
    // The reads did show the corpus: redaction markers, not nothing.
    expect(answers.find((a) => a.what === 'tail agent-corpus-wide 2000')?.json).toContain('[REDACTED:private_key]');
  });

  it('capture of any single row, and of windows strictly inside key blocks, leaks nothing', async () => {
    const g = gateway();
    for (const [name, s] of Object.entries(sessions)) {
      const facts = await adapter.paneFacts(s.paneId);
      const top = -(facts?.historySize ?? 0);
      const bottom = (facts?.height ?? 1) - 1;
      const before = answers.length;
      for (let row = top; row <= bottom; row += 1) {
        record(`capture ${name} ${row}`, await g.sessions.capture({ session: name, start_line: row, end_line: row }));
        if (row % 3 === 0) {
          record(`capture ${name} ${row}..${row + 2}`, await g.sessions.capture({ session: name, start_line: row, end_line: Math.min(bottom, row + 2) }));
          record(`capture raw ${name} ${row}..${row + 4}`, await g.sessions.capture({ session: name, start_line: row, end_line: Math.min(bottom, row + 4), strip_ansi: false }));
        }
      }
      record(`capture ${name} all`, await g.sessions.capture({ session: name, start_line: top, end_line: bottom }));
      const mine = answers.slice(before);
      expect(leaksIn(mine)).toEqual([]);
    }
  }, 300_000);

  it('a wait returns nothing of the screen it judged', async () => {
    const g = gateway();
    for (const name of Object.keys(sessions)) {
      record(`wait ${name}`, await g.wait.forState({ session: name, states: ['RUNNING', 'IDLE', 'WAITING_INPUT', 'UNKNOWN'], timeout_s: 1 }));
    }
    expect(leaksIn(answers.filter((a) => a.what.startsWith('wait')))).toEqual([]);
  });

  it('live frames of every screen, including one inside a key and one under a wrapped token, leak nothing', async () => {
    for (const name of Object.keys(sessions)) {
      const iterable = (await web().live.paneOutput({ session: name, operatorSession: operatorToken(deps, 'admin') })) as AsyncIterable<PaneScreenFrame>;
      const it = iterable[Symbol.asyncIterator]();
      const first = await it.next();
      await it.return?.();
      expect(first.done).toBe(false);
      record(`live ${name}`, first.value);
    }
    expect(leaksIn(answers.filter((a) => a.what.startsWith('live')))).toEqual([]);
    // The screens were drawn, redacted: the one scrolled into the key shows markers only.
    expect(answers.find((a) => a.what === 'live agent-corpus-midkey')?.json).toContain('[REDACTED:private_key]');
    expect(answers.find((a) => a.what === 'live agent-corpus-wraptop')?.json).toContain('six-last');
  });
});

describe('sources', () => {
  // Every line and every other pair of lines read, and every odd line blamed with the next,
  // in batches of READ_BATCH lines so no one test needs minutes on a slow machine. notes.md
  // is the corpus with three lines appended; the first test checks the batches cover it.
  const READ_BATCH = 10;
  const notesLines = `${corpusText()}${END_MARK}\n`.split('\n').length + 3;
  const readBatches = Array.from({ length: Math.ceil(notesLines / READ_BATCH) }, (_, i) => [i * READ_BATCH + 1, (i + 1) * READ_BATCH] as const);

  it('read_file of the whole file leaks nothing', async () => {
    const whole = await observer().source.readFile({ project: 'corpus', path: 'notes.md' });
    record('read whole', whole);
    const total = whole.total_lines ?? 0;
    expect(total).toBeGreaterThan(50);
    expect(readBatches.at(-1)![1]).toBeGreaterThanOrEqual(total);
    expect(leaksIn(answers.slice(-1))).toEqual([]);
  });

  it.each(readBatches)('read_file and blame of any line range leak nothing (lines %i to %i)', async (first, last) => {
    const o = observer();
    const total = (await o.source.readFile({ project: 'corpus', path: 'notes.md' })).total_lines ?? 0;
    const before = answers.length;
    for (let line = first; line <= Math.min(last, total); line += 1) {
      record(`read ${line}`, await o.source.readFile({ project: 'corpus', path: 'notes.md', start_line: line, end_line: line }));
      if (line % 2 === 0) record(`read ${line}..${line + 2}`, await o.source.readFile({ project: 'corpus', path: 'notes.md', start_line: line, end_line: line + 2 }));
    }
    for (let line = first; line <= last && line + 1 <= total - 3; line += 2) {
      record(`blame ${line}..${line + 1}`, await o.source.blame({ project: 'corpus', path: 'notes.md', start_line: line, end_line: line + 1 }));
    }
    expect(leaksIn(answers.slice(before))).toEqual([]);
  });

  it('diff and show leak nothing', async () => {
    const o = observer();
    record('diff worktree', await o.source.diff({ project: 'corpus' }));
    record('diff commits', await o.source.diff({ project: 'corpus', from: 'HEAD~1', to: 'HEAD' }));
    record('show HEAD', await o.source.showCommit({ project: 'corpus', rev: 'HEAD' }));
    record('show root', await o.source.showCommit({ project: 'corpus', rev: 'HEAD~1' }));
    expect(leaksIn(answers.filter((a) => /^(diff|show)/.test(a.what)))).toEqual([]);
  });

  // Every query, each also case-insensitive, then the regular expressions; split into
  // batches of SEARCH_BATCH queries so no one test needs minutes on a slow machine (the
  // corpus grows; the batches follow).
  const queries = ['PRIVATE', 'password', 'KEY', 'TOKEN', '=', 'ghp_', 'Cookie', 'auth', 'sk-', 'A', 'e'];
  for (const secret of [...REDACTION_CORPUS.flatMap((e) => e.secrets), ...EXTRA_SECRETS]) queries.push(secret.slice(0, 8), secret.slice(-8));
  const SEARCH_BATCH = 5;
  const batches = Array.from({ length: Math.ceil(queries.length / SEARCH_BATCH) }, (_, i) => [i * SEARCH_BATCH, Math.min(queries.length, (i + 1) * SEARCH_BATCH)] as const);

  it.each(batches)('search for the secrets themselves, or for what surrounds them, leaks nothing (queries %i to %i)', async (from, to) => {
    const o = observer();
    const before = answers.length;
    for (const query of queries.slice(from, to)) {
      record(`search ${query}`, await o.source.searchText({ project: 'corpus', query, max_results: 200 }));
      record(`search -i ${query}`, await o.source.searchText({ project: 'corpus', query, ignore_case: true, max_results: 200 }));
    }
    expect(leaksIn(answers.slice(before))).toEqual([]);
  });

  it('search with regular expressions for what surrounds the secrets leaks nothing', async () => {
    const o = observer();
    for (const query of ['[A-Za-z0-9+/]{20,}', 'KEY.*', '^[A-Z]', '.*']) {
      record(`search -E ${query}`, await o.source.searchText({ project: 'corpus', query, regex: true, max_results: 200 }));
    }
    expect(leaksIn(answers.filter((a) => a.what.startsWith('search -E')))).toEqual([]);
  });
});
