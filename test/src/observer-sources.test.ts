// Guards that the observer's source tools cannot leave a project root or leak secrets, end to end (real broker, real git repo, MCP SDK client with an OAuth token): traversal, symlink escapes, secret and .git files, huge files and catastrophic regexes all fail safely, and every call is attributed to observer:<user>.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { parseRows } from '@terminal-mcp/gateway';
import { createObserverLogger, ERROR_META_KEY, startObserverHttp, type RunningObserverHttp } from '@terminal-mcp/observer';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { issueAccessToken } from './helpers/oauth-token.js';
import { createOperatorAccount } from './helpers/operator-account.js';
import { ENV_SECRET, FAKE_API_KEY, makeSourceRepo, OUTSIDE_MARKER, type SourceRepo } from './helpers/source-repo.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';

const USER = 'sourcereader';
const PASSWORD = 'source reader passphrase 7';

let tmux: TmuxTestServer;
let base: string;
let repo: SourceRepo;
let broker: BrokerProcess;
let obs: RunningObserverHttp;
let mcp: Client;

/** An access token for this observer (helpers/oauth-token.ts; the HTTP flow itself is
 * covered by observer-oauth.test.ts). */
const accessToken = () => issueAccessToken({ env: broker.env, role: 'observer', resource: obs.mcpUrl, username: USER, password: PASSWORD, clientName: 'sources e2e' });

const call = (name: string, args: Record<string, unknown>) => mcp.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
const errorCodeOf = (r: CallToolResult) => (r._meta?.[ERROR_META_KEY] as { error_code?: string } | undefined)?.error_code;
const everything = (r: CallToolResult) => JSON.stringify(r);

beforeAll(async () => {
  tmux = await startTmuxServer();
  base = mkdtempSync(join(tmpdir(), 'tmcp-obs-src-'));
  repo = makeSourceRepo(base);
  broker = await startBrokerProcess({
    tmuxSocket: tmux.socketName,
    config: { log_level: 'warn', observer: { source_roots: [{ name: 'demo', path: repo.root }], search_timeout_ms: 1000 } },
  });
  await createOperatorAccount(broker.env, USER, PASSWORD);
  obs = await startObserverHttp({ port: 0, env: broker.env, log: createObserverLogger('silent') });
  mcp = new Client({ name: 'observer-sources-e2e', version: '0.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(obs.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${await accessToken()}` } } }));
});

afterAll(async () => {
  await mcp?.close();
  await obs?.close();
  await broker?.stop();
  await tmux?.kill();
  if (base) rmSync(base, { recursive: true, force: true });
});

describe('source tools through the observer', () => {
  it('read the project: status, log, a file (redacted), search', async () => {
    const status = await call('source_git_status', { project: 'demo' });
    expect(status.isError).toBeFalsy();
    // Source tools answer with text only (docs/tools.md); lists are tables (parseRows).
    expect(status.structuredContent).toBeUndefined();
    expect(textOf(status)).toMatch(/^demo: branch main at [0-9a-f]{12}/);
    const log = await call('source_git_log', { project: 'demo', limit: 1 });
    expect(textOf(log)).toContain('More: call again with skip=1.');
    expect(parseRows(textOf(log), 'commit')).toEqual([expect.objectContaining({ subject: 'Add config' })]);
    const file = await call('source_read_file', { project: 'demo', path: 'src/app.ts' });
    expect(textOf(file)).toContain('hello from app, version 2');
    expect(textOf(file)).toMatch(/untrusted/i);
    const config = await call('source_read_file', { project: 'demo', path: 'src/config.ts' });
    expect(config.isError).toBeFalsy();
    expect(everything(config)).not.toContain(FAKE_API_KEY);
    expect(textOf(config)).toContain('[REDACTED');
    const found = await call('source_search', { project: 'demo', query: 'hello from app' });
    expect(parseRows(textOf(found), 'path')).toEqual([expect.objectContaining({ path: 'src/app.ts', line: 2 })]);
  });

  it.each([
    ['../outside/secret.txt'],
    ['src/../../outside/secret.txt'],
    ['/etc/passwd'],
    [`${'../'.repeat(20)}etc/passwd`],
    ['link-out/secret.txt'],
    ['link-outside-file'],
  ])('refuses to read %s outside the root (traversal or symlink escape)', async (path) => {
    const r = await call('source_read_file', { project: 'demo', path });
    expect(r.isError).toBe(true);
    expect(['PATH_NOT_ALLOWED', 'NOT_FOUND']).toContain(errorCodeOf(r));
    expect(everything(r)).not.toContain(OUTSIDE_MARKER);
    expect(everything(r)).not.toContain('root:x:');
    expect(everything(r)).not.toContain(repo.base);
  });

  it.each([['.env'], ['.env.local'], ['id_rsa'], ['certs/server.pem'], ['link-env'], ['.git/config'], ['link-git-config']])('refuses the secret or git-internal file %s', async (path) => {
    const r = await call('source_read_file', { project: 'demo', path });
    expect(r.isError).toBe(true);
    expect(errorCodeOf(r)).toBe('PATH_NOT_ALLOWED');
    expect(everything(r)).not.toContain(ENV_SECRET);
    expect(everything(r)).not.toContain('PRIVATE KEY');
  });

  it('keeps secrets out of search, diff and listings', async () => {
    const search = await call('source_search', { project: 'demo', query: ENV_SECRET });
    expect(everything(search)).not.toContain(ENV_SECRET);
    const diff = await call('source_diff', { project: 'demo' });
    expect(diff.isError).toBeFalsy();
    expect(everything(diff)).not.toContain(ENV_SECRET);
    expect(textOf(diff)).toMatch(/protected file\(s\) left out: (.*, )?"\.env"/);
    const dotGit = await call('source_list_files', { project: 'demo', dir: '.git' });
    expect(dotGit.isError).toBe(true);
  });

  it('refuses a huge file whole, and serves only bounded line ranges of it', async () => {
    const whole = await call('source_read_file', { project: 'demo', path: 'big.txt', start_line: 1, end_line: 10_000_000 });
    expect(errorCodeOf(whole)).toBe('FILE_TOO_LARGE');
    expect(textOf(whole).length).toBeLessThan(1000);
    const part = await call('source_read_file', { project: 'demo', path: 'big.txt', start_line: 1, end_line: 3 });
    expect(part.isError).toBeFalsy();
    // Lines 1-3, the total unknown (beyond the first 1 MiB), continued at 4.
    expect(textOf(part).split('\n')[0]).toMatch(/: lines 1-3\. More: call again with start_line=4\. /);
    expect(textOf(part).length).toBeLessThan(1000);
    const binary = await call('source_read_file', { project: 'demo', path: 'bin/logo.png' });
    expect(errorCodeOf(binary)).toBe('BINARY_FILE');
  });

  // aaaa.txt holds one line of 100,000 'a's: a backtracking engine would not finish these
  // within the test's limit, a linear one (or the broker's search timeout) answers. No
  // wall-clock bound here: a busy machine once took 5.2 s for a correct answer.
  it.each([['a+$'], ['(a|aa)*$'], ['(a*)*b'], ['(x+x+)+y']])('answers the catastrophic regex %s instead of hanging', async (query) => {
    const r = await call('source_search', { project: 'demo', query, regex: true });
    if (r.isError) expect(['TIMEOUT', 'INVALID_ARGUMENT', 'RATE_LIMITED']).toContain(errorCodeOf(r));
  });

  it('attributes reads to observer:<user> in the broker (the actor the audit log records)', async () => {
    await call('source_read_file', { project: 'demo', path: '../outside/secret.txt' });
    // The broker logs refused source paths as security events, with the actor.
    const deadline = Date.now() + 5_000;
    while (!broker.stderr().includes(`"actor":"observer:${USER}"`) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(broker.stderr()).toContain(`"actor":"observer:${USER}"`);
    // And in audit.db's read audit, refused or not, with project, path and error code.
    const db = new Database(join(broker.stateDir, 'audit.db'), { readonly: true });
    try {
      const deadline2 = Date.now() + 5_000;
      let rows: { actor: string; project: string; path: string; error_code: string | null }[] = [];
      while (rows.length === 0 && Date.now() < deadline2) {
        rows = db.prepare("SELECT actor, project, path, error_code FROM read_audit WHERE tool = 'source.readFile' AND path = ?").all('../outside/secret.txt') as typeof rows;
        if (rows.length === 0) await new Promise((r) => setTimeout(r, 100));
      }
      expect(rows[0]).toMatchObject({ actor: `observer:${USER}`, project: 'demo', error_code: 'PATH_NOT_ALLOWED' });
    } finally {
      db.close();
    }
  });
});
