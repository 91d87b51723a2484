// Guards issue 46 A.4/A.5 and the cursor-forward split on every read path, not only redactSecrets: with the host-secret index installed (a temp HOME and project holding the files A.4 names), its secrets printed as is, as 8-15-character tokens and in the accidental encodings real tools print (od -c, od -An -tx1, hexdump -C, %XX, \u, &#x;, case, groups), and tokens split by cursor-forward escapes (blank cells in a capture), are read back through tail, capture windows, batch, read_since, export, a live frame and a source read of a committed file; no 16-character window of an indexed secret (once the encoding is undone), no short secret and no 8-character piece of a split token may reach the reader.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PaneScreenFrame } from '@terminal-mcp/contract';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { git } from '../../../../test/src/helpers/source-repo.js';
import { startTmuxServer, type TmuxTestServer } from '../../../../test/src/helpers/tmux-server.js';
import { configSchema } from '../config/schema.js';
import { watchHostSecrets, type KnownSecretWatcher } from '../effects/known-secrets/host-secrets.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from '../effects/tmux/adapter.js';
import { createPaneWatcher, type PaneWatcher } from '../effects/tmux/pane-watch.js';
import { installKnownSecrets, normalizedText } from '../policy/known-secrets.js';
import { leakedFragments } from '../policy/redaction-corpus.js';
import type { BrokerDeps } from '../rpc/deps.js';
import { createContextInner } from '../rpc/context.js';
import { gatewayRouter } from '../rpc/roles/gateway.js';
import { observerRouter } from '../rpc/roles/observer.js';
import { webRouter } from '../rpc/roles/web.js';
import { createCallerFactory } from '../rpc/trpc.js';
import { testDeps } from '../testing/deps.testkit.js';
import { operatorToken } from '../webauth/operator-token.testkit.js';

/** Indexed secrets of 16+ characters (matched by window) and of 8-15 (whole tokens). */
const NETRC_PW = 'quietharbourlanternmeadowfox'; // one character class: never indexed before issue 46
const VAULT = 'hvs.CAESIJ4xq8p2Lk9Zr7TmWvN3bYcQ';
const DEEP_ENV = 'pepper-7-lattice-ember-22';
const RCLONE_PASS = 'zebra-Plum-5521-anchor';
const SHORT_PW = 'k3lp-Vox9';
const LONG = [NETRC_PW, VAULT, DEEP_ENV, RCLONE_PASS];
/** Self-identifying tokens no file holds, printed split by cursor-forward escapes. */
const SPLIT_GH = 'ghp_R7kQ2mZx9LwT4vNc8BfY1sHd6JpE3aUo5GtK';
const SPLIT_AWS = 'AKIAQ7ZK2M5RWX3TLNB4';
const END_MARK = '## end-of-index-cases';

const od = (s: string, ...flags: string[]) => execFileSync('od', flags, { input: s, encoding: 'utf8' }).trimEnd();
const hexdumpC = (s: string) => execFileSync('hexdump', ['-C'], { input: s, encoding: 'utf8' }).trimEnd();
const pct = (s: string) => [...Buffer.from(s)].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');
const uEsc = (s: string) => [...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
const html = (s: string) => [...s].map((c) => `&#x${c.charCodeAt(0).toString(16)};`).join('');
const groups = (s: string) => (s.match(/.{1,4}/g) ?? []).join(' ');

const CASES = [
  `as is: the value was ${NETRC_PW} yesterday`,
  `vault: ${VAULT}`,
  `deep .env: flag is ${DEEP_ENV}!`,
  `rclone: pass = ${RCLONE_PASS}`,
  `short token: login with ${SHORT_PW} now`,
  `od -c:\n${od(NETRC_PW, '-c')}`,
  `od -An -tx1:\n${od(RCLONE_PASS, '-An', '-tx1')}`,
  `hexdump -C:\n${hexdumpC(DEEP_ENV)}`,
  `url-encoded: ?next=${pct(NETRC_PW)}`,
  `json: {"v":"${uEsc(RCLONE_PASS)}"}`,
  `html: <td>${html(DEEP_ENV)}</td>`,
  `upper: ${NETRC_PW.toUpperCase()}`,
  `groups: ${groups(VAULT)}`,
  `split: ${SPLIT_GH.slice(0, 13)}\x1b[4C${SPLIT_GH.slice(13, 27)}\x1b[3C${SPLIT_GH.slice(27)} end`,
  `split: key ${SPLIT_AWS.slice(0, 10)}\x1b[2C${SPLIT_AWS.slice(10)}`,
];
const printed = `${CASES.join('\n')}\n${END_MARK}\n`;

let base: string;
let server: TmuxTestServer;
let adapter: ControlModeTmuxAdapter;
let paneWatch: PaneWatcher;
let watcher: KnownSecretWatcher;
let deps: BrokerDeps;
const SESSIONS = { 'agent-index-wide': [160, 50], 'agent-index-narrow': [60, 20] } as const;
const cursors = new Map<string, string>();
const leaks = new Map<string, string[]>();

const gateway = () => createCallerFactory(gatewayRouter)(createContextInner({ role: 'gateway', deps, actor: 'gateway:index-read-paths' }));
const observer = () => createCallerFactory(observerRouter)(createContextInner({ role: 'observer', deps }));
const web = () => createCallerFactory(webRouter)(createContextInner({ role: 'web', deps }));

/** What of the planted secrets an answer holds: 16-character windows of an indexed secret
 * (or of its hex) once escapes are decoded, blanks dropped and case folded; a short secret
 * as is; 8-character pieces of a split token. */
function leakedIn(answer: string): string[] {
  const norm = normalizedText(answer);
  const found: string[] = [];
  for (const secret of LONG) {
    for (const form of [normalizedText(secret), Buffer.from(secret).toString('hex')]) {
      for (let i = 0; i + 16 <= form.length; i += 1) if (norm.includes(form.slice(i, i + 16))) found.push(form.slice(i, i + 16));
    }
  }
  if (answer.includes(SHORT_PW)) found.push(SHORT_PW);
  found.push(...leakedFragments(answer, [SPLIT_GH.slice(4), SPLIT_AWS.slice(4)]));
  return [...new Set(found)];
}

function check(path: string, answer: unknown): void {
  const found = leakedIn(typeof answer === 'string' ? answer : JSON.stringify(answer));
  if (found.length > 0) leaks.set(path, [...(leaks.get(path) ?? []), ...found]);
}

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'tmcp-index-paths-'));
  const home = join(base, 'home');
  const project = join(home, 'work', 'mono');
  for (const d of ['.config/rclone', 'work/mono/packages/api']) mkdirSync(join(home, d), { recursive: true });
  writeFileSync(join(home, '.netrc'), `machine git.example.test login deploy password ${NETRC_PW}\n`);
  writeFileSync(join(home, '.vault-token'), `${VAULT}\n`);
  writeFileSync(join(home, '.config/rclone/rclone.conf'), `[s3]\ntype = s3\npass = ${RCLONE_PASS}\n`);
  writeFileSync(join(project, '.env.production.local'), `DB_PASSWORD=${SHORT_PW}\n`);
  writeFileSync(join(project, 'packages/api/.env'), `API_SECRET=${DEEP_ENV}\n`);
  watcher = watchHostSecrets({ home, projectRoots: [project], files: [] }, 3600);

  writeFileSync(join(base, 'cases.txt'), printed);
  // The same text committed in a repository the observer may read.
  const root = join(base, 'repo');
  mkdirSync(root);
  git(root, home, ['init', '-q', '-b', 'main']);
  writeFileSync(join(root, 'cases.txt'), printed);
  git(root, home, ['add', '.']);
  git(root, home, ['commit', '-q', '-m', 'cases']);

  server = await startTmuxServer();
  adapter = createTmuxAdapter({ socketName: server.socketName, configFile: '/dev/null' });
  expect(await adapter.waitUntilConnected(10_000)).toBe(true);
  paneWatch = createPaneWatcher({ socketName: server.socketName, graceMs: 100 });
  deps = testDeps({
    config: configSchema.parse({
      log_level: 'silent',
      transcripts: { enabled: true },
      known_secrets: { enabled: false }, // installed above from the temp HOME, as the broker's start does
      observer: { source_roots: [{ name: 'cases', path: root }] },
    }),
    tmux: adapter,
    stateDir: join(base, 'state'),
    log: pino({ level: 'silent' }),
    info: { version: 'test', startedAt: new Date(), tmuxSocket: server.socketName },
    paneWatch,
  });
  for (const [name, [width, height]] of Object.entries(SESSIONS)) {
    await server.newSession(name, `bash --norc --noprofile -c 'read go; cat ${join(base, 'cases.txt')}; exec sleep 3600'`, { width, height });
  }
  deps.transcripts.sync(await adapter.listSessions(), deps.access);
  await vi.waitFor(() => expect(deps.transcripts.recording().length).toBe(Object.keys(SESSIONS).length), { timeout: 60_000, interval: 100 });
  for (const name of Object.keys(SESSIONS)) cursors.set(name, (await gateway().sessions.tail({ session: name, lines: 1 })).cursor!);
  for (const name of Object.keys(SESSIONS)) await server.tmux(['send-keys', '-t', name, 'Enter']);
  for (const name of Object.keys(SESSIONS)) {
    await vi.waitFor(async () => expect(await server.tmux(['capture-pane', '-p', '-J', '-S', '-', '-t', name])).toContain(END_MARK), { timeout: 60_000, interval: 200 });
  }
}, 120_000);

afterAll(async () => {
  watcher?.stop();
  installKnownSecrets(null);
  await deps?.transcripts.close();
  await paneWatch?.close();
  await adapter?.close();
  deps?.stores.close();
  await server?.kill();
  if (base) rmSync(base, { recursive: true, force: true });
});

describe('the host-secret index and split tokens on every read path (issue 46)', () => {
  it('the pane really shows the cases: the split token as pieces with blank cells between', async () => {
    const raw = await server.tmux(['capture-pane', '-p', '-J', '-S', '-', '-t', 'agent-index-wide']);
    expect(raw).toContain(`${SPLIT_GH.slice(0, 13)}    ${SPLIT_GH.slice(13, 27)}   ${SPLIT_GH.slice(27)} end`);
    expect(raw).toContain(NETRC_PW);
  });

  it('pane reads: tail, capture windows, batch, live frame', async () => {
    const g = gateway();
    for (const name of Object.keys(SESSIONS)) {
      for (const lines of [5, 50, 500]) check('tail', await g.sessions.tail({ session: name, lines }));
      const facts = (await adapter.listSessions()).find((s) => s.name === name)!.activePane!;
      for (let row = -facts.historySize; row < facts.height; row += 3) check('capture', await g.sessions.capture({ session: name, start_line: row, end_line: Math.min(facts.height - 1, row + 2) }));
      const frames = (await web().live.paneOutput({ session: name, operatorSession: operatorToken(deps, 'admin') })) as AsyncIterable<PaneScreenFrame>;
      const iterator = frames[Symbol.asyncIterator]();
      const first = await iterator.next();
      await iterator.return?.();
      check('live frame', first.value);
    }
    check('batch', await g.sessions.batchInspect({ sessions: Object.keys(SESSIONS), lines: 50 }));
    // The readers still get the lines around the secrets.
    expect(JSON.stringify(await g.sessions.tail({ session: 'agent-index-wide', lines: 50 }))).toContain('short token: login with [REDACTED:known_secret] now');
    expect(Object.fromEntries(leaks)).toEqual({});
  }, 120_000);

  it('transcripts: read_since and export', async () => {
    const g = gateway();
    for (const name of Object.keys(SESSIONS)) {
      await vi.waitFor(async () => expect((await g.sessions.readSince({ session: name, cursor: cursors.get(name)!, max_lines: 500 })).text).toContain(END_MARK), { timeout: 90_000, interval: 500 });
      check('read_since', await g.sessions.readSince({ session: name, cursor: cursors.get(name)!, max_lines: 500 }));
      await vi.waitFor(async () => expect((await g.sessions.exportTranscript({ session: name })).cast).toContain(END_MARK), { timeout: 60_000, interval: 500 });
      check('export', await g.sessions.exportTranscript({ session: name }));
    }
    expect(Object.fromEntries(leaks)).toEqual({});
  }, 200_000);

  it('source read of a committed file holding the cases', async () => {
    const whole = await observer().source.readFile({ project: 'cases', path: 'cases.txt' });
    expect(JSON.stringify(whole)).toContain(END_MARK);
    check('source read', whole);
    expect(Object.fromEntries(leaks)).toEqual({});
  });
});
