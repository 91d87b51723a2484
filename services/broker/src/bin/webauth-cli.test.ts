// Guards the terminal-mcp-webauth CLI as a real process: creating users and setting passwords from piped stdin or a no-echo terminal, listing users, and set-password ending that user's sessions.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { webauthEnv } from '../webauth/env.js';
import { login } from '../webauth/login.js';
import { validateSessionToken } from '../webauth/sessions.js';
import { openStore } from '../effects/store/database.js';
import { webauthStore, webauthStoreDefinition } from '../effects/store/webauth-store.js';

const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const CLI = fileURLToPath(new URL('./webauth-cli.ts', import.meta.url));

let stateDir: string;
/** The CLI's TMPDIR: tsx keeps its compile cache there (tsx-<uid>), shared by this file's
 * runs and removed with it instead of staying in the system's temporary directory. */
let cliTmp: string;
beforeAll(() => {
  cliTmp = mkdtempSync(join(tmpdir(), 'tmcp-webauth-tsx-'));
});
afterAll(() => rmSync(cliTmp, { recursive: true, force: true }));
beforeEach(() => {
  stateDir = join(mkdtempSync(join(tmpdir(), 'tmcp-webauth-cli-')), 'state');
});
afterEach(() => rmSync(join(stateDir, '..'), { recursive: true, force: true }));

function cliEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TERMINAL_MCP_STATE_DIR: stateDir, TMPDIR: cliTmp };
  delete env.TMUX;
  delete env.TMUX_PANE;
  return env;
}

interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI from source (tsx) with `stdin` piped in, as a script would. */
function cli(args: string[], stdin = ''): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], { cwd: REPO_ROOT, env: cliEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

function openEnv() {
  const db = openStore(stateDir, webauthStoreDefinition);
  return { db, env: webauthEnv({ store: webauthStore(db), stateDir, log: pino({ level: 'silent' }) }) };
}

describe('terminal-mcp-webauth with piped stdin', { timeout: 180_000 }, () => {
  it('creates a user, lists it, and set-password ends its sessions while another process has the store open', async () => {
    const created = await cli(['create-user', 'alice'], 'first long passphrase\n');
    expect(created).toMatchObject({ status: 0, stdout: 'created user alice\n' });
    expect(created.stdout + created.stderr).not.toContain('first long passphrase');

    // Like a running broker: this process holds webauth.db open throughout.
    const { db, env } = openEnv();
    try {
      const session = await login(env, { username: 'alice', password: 'first long passphrase', sourceIp: '127.0.0.1' });
      if (!session.ok) throw new Error(session.message);

      const listed = await cli(['list-users']);
      expect(listed.status).toBe(0);
      const lines = listed.stdout.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^USERNAME\s+MUST_CHANGE_PASSWORD\s+ACTIVE_SESSIONS\s+CREATED\s+PASSWORD_CHANGED$/);
      expect(lines.slice(1)).toHaveLength(1);
      expect(lines[1]).toMatch(/^alice\s+no\s+1\s+\d{4}-\d\d-\d\dT\S+Z\s+\d{4}-\d\d-\d\dT\S+Z$/);

      const set = await cli(['set-password', 'alice'], 'second long passphrase\r\nignored second line\n');
      expect(set).toMatchObject({ status: 0, stdout: 'password of alice set; ended 1 session(s)\n' });
      expect(validateSessionToken(env, session.token)).toBeNull();
      expect(await login(env, { username: 'alice', password: 'second long passphrase', sourceIp: '127.0.0.2' })).toMatchObject({ ok: true });
    } finally {
      db.close();
    }
  });

  it('refuses weak passwords, duplicate or unknown users and bad names without touching the store', async () => {
    // Independent refusals run side by side: each is a whole Node process.
    const [short, withName, badName, unknown, empty, unknownCommand] = await Promise.all([
      cli(['create-user', 'bob'], 'short\n'),
      cli(['create-user', 'bob'], 'bob-and-friends-forever\n'),
      cli(['create-user', 'Bob'], 'a long enough secret\n'),
      cli(['set-password', 'nobody'], 'a long enough secret\n'),
      cli(['create-user', 'bob'], ''),
      cli(['frobnicate']),
    ]);
    expect(short).toMatchObject({ status: 1, stderr: 'terminal-mcp-webauth: the password must be at least 12 characters long\n' });
    expect(withName).toMatchObject({ status: 1, stderr: expect.stringContaining('must not contain the user name') });
    expect(badName).toMatchObject({ status: 2, stderr: expect.stringContaining('1-32 characters') });
    expect(unknown).toMatchObject({ status: 1, stderr: 'terminal-mcp-webauth: no user named nobody\n' });
    expect(empty).toMatchObject({ status: 1, stderr: 'terminal-mcp-webauth: no password on stdin\n' });
    expect(unknownCommand).toMatchObject({ status: 2 });
    expect((await cli(['list-users'])).stdout).toBe('no operator accounts\n');
    expect(await cli(['create-user', 'bob'], 'a long enough secret\n')).toMatchObject({ status: 0 });
    expect(await cli(['create-user', 'bob'], 'a long enough secret\n')).toMatchObject({ status: 1, stderr: 'terminal-mcp-webauth: a user named bob already exists\n' });
  });
});

const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

/** Runs the CLI on a pseudo-terminal (util-linux `script`), typing each chunk once the
 * output so far contains its prompt. */
function cliOnTerminal(args: string[], typed: { after: string; keys: string }[]): Promise<CliResult> {
  const command = [process.execPath, '--import', 'tsx', CLI, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], { cwd: REPO_ROOT, env: cliEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let next = 0;
    let searchFrom = 0;
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
      while (next < typed.length) {
        const at = stdout.indexOf(typed[next]!.after, searchFrom);
        if (at < 0) break;
        searchFrom = at + typed[next]!.after.length;
        child.stdin.write(typed[next]!.keys);
        next++;
      }
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

describe.skipIf(!hasScript)('terminal-mcp-webauth on a terminal', { timeout: 180_000 }, () => {
  it('asks twice without echo, honours backspace, and aborts on Ctrl-C', async () => {
    const created = await cliOnTerminal(['create-user', 'carol'], [
      { after: 'New password: ', keys: 'terminal secrex\x7ft 42\r' },
      { after: 'Repeat the new password: ', keys: 'terminal secret 42\r' },
    ]);
    expect(created.status).toBe(0);
    expect(created.stdout).toContain('created user carol');
    expect(created.stdout).not.toMatch(/secre|\*/);
    const { db, env } = openEnv();
    try {
      expect(await login(env, { username: 'carol', password: 'terminal secret 42', sourceIp: '127.0.0.1' })).toMatchObject({ ok: true });
    } finally {
      db.close();
    }

    const mismatch = await cliOnTerminal(['set-password', 'carol'], [
      { after: 'New password: ', keys: 'one long passphrase\r' },
      { after: 'Repeat the new password: ', keys: 'another long passphrase\r' },
    ]);
    expect(mismatch.status).toBe(1);
    expect(mismatch.stdout).toContain('the two passwords differ');

    const aborted = await cliOnTerminal(['set-password', 'carol'], [{ after: 'New password: ', keys: 'half typed\x03' }]);
    expect(aborted.status).toBe(130);
    expect(aborted.stdout).toContain('aborted');
  });
});
