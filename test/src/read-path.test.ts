// Guards the read path end to end over gateway.sock: hostile names resolve exactly and run nothing, real programs get the right status, and secrets (wrapped or coloured) never leave the broker.
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createBrokerClient, type BrokerClient } from '@terminal-mcp/broker-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { failureOf } from './helpers/broker-failure.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';

let tmux: TmuxTestServer;
let broker: BrokerProcess;
let client: BrokerClient<'gateway'>;
const pwnFile = join(tmpdir(), `tmcp-pwn-${randomBytes(4).toString('hex')}`);
const FAKE_KEY = `sk-ant-api03-${'Q7x'.repeat(30)}AA`;

const HOSTILE = ['test--t', 'test-foo;', `test-x#(touch ${pwnFile})y`, 'test-foo', 'test-foobar', 'test-with space', 'test-phiên ✓', '-t', 'foo;'];

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await fn();
    if (ok(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
}


beforeAll(async () => {
  tmux = await startTmuxServer();
  for (const name of HOSTILE) await tmux.newSession(name, `bash --norc --noprofile`, { width: 80, height: 24 });
  await tmux.newSession('test-python', 'python3 -q', { width: 80, height: 24 });
  await tmux.newSession('test-confirm', `bash --norc --noprofile -c 'read -p "Continue? [y/N] " x; sleep 3600'`, { width: 80, height: 24 });
  await tmux.newSession('test-trace', `bash --norc --noprofile -c 'python3 -c "raise ValueError(42)"; exec bash --norc --noprofile'`, { width: 80, height: 24 });
  // A secret longer than the pane is wide wraps on screen; -J must join it before redaction.
  await tmux.newSession('test-keys', `bash --norc --noprofile -c 'echo "key=${FAKE_KEY}"; printf "colour: sk-ant-api03-\\033[31m${'Z9q'.repeat(20)}\\033[0mEND\\n"; exec sleep 3600'`, { width: 40, height: 24 });
  broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: { allowed_session_patterns: ['test-*', '-t', 'foo;'], log_level: 'warn' } });
  client = createBrokerClient({ role: 'gateway', socketPath: join(broker.socketDir, 'gateway.sock') });
});

afterAll(async () => {
  await broker?.stop();
  await tmux?.kill();
});

describe('hostile session names', () => {
  it('are all listed back exactly, and nothing was executed', async () => {
    const { sessions } = await client.sessions.list.query({});
    const names = sessions.map((s) => s.name);
    for (const n of HOSTILE) expect(names).toContain(n);
    expect(existsSync(pwnFile)).toBe(false);
  });

  it('resolve exactly: a prefix never reaches the longer name, and each reads its own pane', async () => {
    for (const name of HOSTILE) {
      await tmux.tmux(['send-keys', '-t', (await client.sessions.status.query({ session: name })).session_id + ':', '-l', `echo mark-${Buffer.from(name).toString('hex')}`]);
      const id = (await client.sessions.status.query({ session: name })).session_id;
      await tmux.tmux(['send-keys', '-t', `${id}:`, 'Enter']);
    }
    for (const name of HOSTILE) {
      const mark = `mark-${Buffer.from(name).toString('hex')}`;
      const tail = await until(() => client.sessions.tail.query({ session: name, lines: 20 }), (t) => t.text.includes(`\n${mark}`) || t.text.startsWith(mark), `${name} output`);
      for (const other of HOSTILE.filter((o) => o !== name)) {
        expect(tail.text).not.toContain(`mark-${Buffer.from(other).toString('hex')}\n`);
      }
    }
    expect(existsSync(pwnFile)).toBe(false);
    const err = await failureOf(client.sessions.tail.query({ session: 'test-fo' }));
    expect(err.code).toBe('SESSION_NOT_FOUND');
    const glob = await failureOf(client.sessions.tail.query({ session: 'test-foo*' }));
    expect(glob.code).toBe('SESSION_NOT_FOUND');
  });
});

describe('status of real programs', () => {
  it.each([
    ['test-confirm', 'WAITING_INPUT'],
    ['test-python', 'IDLE'],
    ['test-trace', 'IDLE'],
  ])('%s is %s with a reason', async (session, status) => {
    const s = await until(() => client.sessions.status.query({ session }), (r) => r.status === status, `${session} ${status}`);
    expect(s.reason.length).toBeGreaterThan(0);
    expect(s.reason).not.toContain('\n');
  });

  it('shows the traceback in the tail', async () => {
    const t = await client.sessions.tail.query({ session: 'test-trace', lines: 10 });
    expect(t.text).toContain('ValueError: 42');
  });
});

describe('redaction of pane content', () => {
  it('redacts a secret that wrapped at the pane width and one with colour codes inside', async () => {
    const raw = await tmux.tmux(['capture-pane', '-p', '-t', 'test-keys:']);
    expect(raw).not.toContain(FAKE_KEY); // proof that it really wrapped on screen
    for (const strip_ansi of [true, false]) {
      const t = await until(() => client.sessions.tail.query({ session: 'test-keys', lines: 20, strip_ansi }), (r) => r.text.includes('colour:'), 'secret pane');
      expect(t.text).not.toContain('Q7xQ7xQ7x');
      expect(t.text).not.toContain('Z9qZ9q');
      expect(t.text).toContain('[REDACTED');
      expect(t.redactions).toBeGreaterThanOrEqual(2);
    }
    const cap = await client.sessions.capture.query({ session: 'test-keys' });
    expect(cap.text).not.toContain('Q7xQ7xQ7x');
  });
});

describe('denied and invalid requests', () => {
  it('a sensitive name is denied even though a glob matches it', async () => {
    await tmux.newSession('test-secret-db', 'bash --norc --noprofile');
    const { sessions } = await client.sessions.list.query({ name_filter: 'test-secret' });
    expect(sessions.map((s) => [s.name, s.read_allowed])).toEqual([['test-secret-db', false]]);
    expect((await failureOf(client.sessions.tail.query({ session: 'test-secret-db' }))).code).toBe('SESSION_NOT_ALLOWED');
  });

  it('a non-whitelisted existing name is denied; a name no session has is SESSION_NOT_FOUND (issue 16)', async () => {
    await tmux.newSession('not-whitelisted', 'bash --norc --noprofile');
    const a = await failureOf(client.sessions.tail.query({ session: 'not-whitelisted' }));
    const b = await failureOf(client.sessions.tail.query({ session: 'no-such-session-anywhere' }));
    expect(a.code).toBe('SESSION_NOT_ALLOWED');
    expect(b.code).toBe('SESSION_NOT_FOUND');
  });

  it('refuses schema-invalid input with field names only', async () => {
    const err = await failureOf(client.sessions.tail.query({ session: 'test-python', lines: -5 } as never));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.message).toContain('lines');
    const extra = await failureOf(client.sessions.tail.query({ session: 'test-python', evil: '$(id)' } as never));
    expect(extra.code).toBe('INVALID_ARGUMENT');
    expect(extra.message).not.toContain('$(id)');
  });

  it('answers over HTTP with the status of the error code, not 500', async () => {
    const status = (session: string) =>
      new Promise<number>((resolve, reject) => {
        const input = encodeURIComponent(JSON.stringify({ session }));
        const req = request({ socketPath: join(broker.socketDir, 'gateway.sock'), path: `/sessions.tail?input=${input}` }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
    expect(await status('test-no-such-session')).toBe(404);
    await tmux.newSession('unlisted-http', 'bash --norc --noprofile');
    expect(await status('unlisted-http')).toBe(403);
  });

  it('caps capture at max_capture_lines and says it truncated', async () => {
    const cap = await client.sessions.capture.query({ session: 'test-python', start_line: -100_000, end_line: 0 });
    expect(cap.truncated).toBe(true);
  });
});
