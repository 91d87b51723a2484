// Guards the operator's grants on node sessions over a real sshd and a real remote tmux: a
// node session its patterns refuse is readable (and typed into, when granted) once the
// operator grants it as `node:session`, pinned to the node's server and session; this
// host's session of the same name stays refused; a node's session id the dashboard listed
// (`gpu:$N`) guards the grant against a replaced session, and a replaced session's grant is
// stale; the grant admits the node's transcript (read_since); a sensitive node session can never be granted; grants of an unknown node are
// refused; while the node is down its grant is listed as such (not as a gone session) and
// admits nothing, and it admits again once the node is back; revoking takes it away.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createBrokerClient, type BrokerClient } from '@terminal-mcp/broker-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrokerProcess } from './helpers/broker-process.js';
import { failureOf } from './helpers/broker-failure.js';
import { startNodeFixture, type NodeFixture } from './helpers/node-fixture.js';
import { createOperatorAccount } from './helpers/operator-account.js';
import { sshdUnavailable, type TestSshd } from './helpers/sshd.js';
import type { TmuxTestServer } from './helpers/tmux-server.js';
import { waitFor } from './helpers/wait-for.js';

const unavailable = sshdUnavailable();
if (unavailable !== undefined) console.log(`skipping the node grant tests: ${unavailable}`);

const PASSWORD = 'node grants passphrase 31';
/** The key passphrase the operator types on the node (21 characters). */
const KEY_SECRET = 'correct horse battery';
let keyDir: string;

let remote: TmuxTestServer;
let sshd: TestSshd;
let broker: BrokerProcess;
let fixture: NodeFixture | undefined;
let gateway: BrokerClient<'gateway'>;
let web: BrokerClient<'web'>;

const shell = (marker: string) => `bash --norc --noprofile -c 'echo ${marker}; exec bash --norc --noprofile'`;

function grantEvents(): { session_name: string; action: string; server_pid: number }[] {
  const db = new Database(join(broker.stateDir, 'grants.db'), { readonly: true });
  try {
    return db.prepare('SELECT session_name, action, server_pid FROM grant_events ORDER BY id').all() as { session_name: string; action: string; server_pid: number }[];
  } finally {
    db.close();
  }
}

describe.skipIf(unavailable !== undefined)('grants on node sessions over a real sshd', () => {
  beforeAll(async () => {
    fixture = await startNodeFixture({
      config: {
        // Nothing is readable by pattern on either host: only grants admit.
        allowed_session_patterns: ['agent-*'],
        permissions: { terminal_input: true },
        input_policy: { allowed_session_patterns: ['agent-*'] },
      },
      sessions: async (here, there) => {
        await here.newSession('review-box', shell('local-review-marker'));
        await there.newSession('review-box', shell('node-review-marker'));
        await there.newSession('replaced-box', shell('first-incarnation'));
        await there.newSession('vault-password', shell('node-secret-box'));
        // A real credential program's prompt on the node (ssh-keygen asking for a key's
        // passphrase, typed at an interactive shell): a shell's `read -s` would be refused
        // (NOT_A_CREDENTIAL_PROMPT). The marker is printed only once the key unlocked.
        keyDir = mkdtempSync(join(tmpdir(), 'tmcp-node-key-'));
        execFileSync('ssh-keygen', ['-t', 'ed25519', '-N', KEY_SECRET, '-q', '-f', join(keyDir, 'id_test')]);
        await there.newSession('agent-login', "env PS1='node$ ' bash --norc --noprofile -i");
        await waitFor('the node shell', async () => (await there.tmux(['capture-pane', '-p', '-t', '=agent-login:'])).includes('node$'));
        await there.tmux(['send-keys', '-t', '=agent-login:', '-l', `ssh-keygen -y -f ${join(keyDir, 'id_test')} >/dev/null && echo got-$((20+1))-chars`]);
        await there.tmux(['send-keys', '-t', '=agent-login:', 'Enter']);
      },
    });
    ({ remote, sshd, broker } = fixture);
    gateway = createBrokerClient({ role: 'gateway', socketPath: join(broker.socketDir, 'gateway.sock') });
    await createOperatorAccount(broker.env, 'granter', PASSWORD);
    const signIn = createBrokerClient({ role: 'web', socketPath: join(broker.socketDir, 'web.sock') });
    const token = (await signIn.auth.login.mutate({ username: 'granter', password: PASSWORD, sourceIp: '127.0.0.1' })).token;
    web = createBrokerClient({ role: 'web', socketPath: join(broker.socketDir, 'web.sock'), operatorSession: () => token });
  });

  afterAll(async () => {
    if (keyDir) rmSync(keyDir, { recursive: true, force: true });
    await fixture?.stop();
  });

  it('lists node sessions in the grants list, as node:session with the node\'s ids, and every node\'s state', async () => {
    const list = await web.grants.list.query();
    const row = list.sessions.find((s) => s.name === 'gpu:review-box');
    expect(row).toMatchObject({ read_allowed: false, grantable: true, sensitive: false, grant: null });
    expect(row?.session_id).toMatch(/^gpu:\$\d+$/);
    expect(list.sessions.find((s) => s.name === 'gpu:vault-password')).toMatchObject({ sensitive: true, grantable: false });
    expect(list.sessions.find((s) => s.name === 'review-box')?.session_id).toMatch(/^\$\d+$/);
    expect(list.nodes).toEqual([{ node: 'gpu', state: 'up' }]);
  });

  it('a grant on gpu:review-box admits reading and typing into the node\'s session only, pinned to the node', async () => {
    expect((await failureOf(gateway.sessions.tail.query({ session: 'gpu:review-box' }))).code).toBe('SESSION_NOT_ALLOWED');
    const listed = (await web.grants.list.query()).sessions.find((s) => s.name === 'gpu:review-box')!;
    const set = await web.grants.set.mutate({ session: 'gpu:review-box', read: true, input: true, expires_in_s: 3600, expect: { session_id: listed.session_id, created: listed.created } });
    expect(set.grant).toMatchObject({ session: 'gpu:review-box', read: true, input: true, state: 'active' });
    const nodePid = Number(await remote.tmux(['display-message', '-p', '#{pid}']));
    expect(set.grant?.pinned.server_pid).toBe(nodePid);
    expect(grantEvents().at(-1)).toMatchObject({ session_name: 'gpu:review-box', action: 'grant', server_pid: nodePid });

    const tail = await gateway.sessions.tail.query({ session: 'gpu:review-box' });
    expect(tail.text).toContain('node-review-marker');
    expect(tail.text).not.toContain('local-review-marker');
    // This host's session of the same name has no grant.
    expect((await failureOf(gateway.sessions.tail.query({ session: 'review-box' }))).code).toBe('SESSION_NOT_ALLOWED');

    // The grant admits the node's transcript too: recorded from when it is first read.
    await waitFor('the node session recorded once granted', async () => (await gateway.sessions.tail.query({ session: 'gpu:review-box', lines: 5 })).cursor !== undefined);
    const cursor = (await gateway.sessions.tail.query({ session: 'gpu:review-box', lines: 5 })).cursor!;
    const sent = await gateway.input.sendText.mutate({ session: 'gpu:review-box', text: 'echo granted-$((6*7))', enter: true });
    expect(sent.session).toBe('gpu:review-box');
    await waitFor('the granted text run on the node', async () => /^granted-42$/m.test(await remote.tmux(['capture-pane', '-p', '-t', '=review-box:'])));
    await waitFor('the granted text in the node transcript', async () => /^granted-42$/m.test((await gateway.sessions.readSince.query({ session: 'gpu:review-box', cursor, max_lines: 100 })).text));
    const row = (await web.grants.list.query()).sessions.find((s) => s.name === 'gpu:review-box');
    expect(row).toMatchObject({ read_allowed: true, input_allowed: true, read_granted: true, input_granted: true });
  });

  it('refuses a grant whose listed node session id is another session\'s, or another host\'s', async () => {
    const listed = (await web.grants.list.query()).sessions.find((s) => s.name === 'gpu:replaced-box')!;
    const id = listed.session_id.slice('gpu:'.length);
    // The same number on this host is not the node's session.
    expect((await failureOf(web.grants.set.mutate({ session: 'gpu:replaced-box', read: true, input: false, expect: { session_id: id, created: listed.created } }))).code).toBe('IDENTITY_CHANGED');
    expect((await failureOf(web.grants.set.mutate({ session: 'gpu:replaced-box', read: true, input: false, expect: { session_id: `cpu:${id}`, created: listed.created } }))).code).toBe('IDENTITY_CHANGED');
    expect((await web.grants.list.query()).sessions.find((s) => s.name === 'gpu:replaced-box')?.grant).toBeNull();
  });

  it('a grant on a node session that is then replaced is stale and admits nothing', async () => {
    await web.grants.set.mutate({ session: 'gpu:replaced-box', read: true, input: false });
    expect((await gateway.sessions.tail.query({ session: 'gpu:replaced-box' })).text).toContain('first-incarnation');
    await remote.tmux(['kill-session', '-t', '=replaced-box']);
    await remote.newSession('replaced-box', shell('second-incarnation'));
    await waitFor('the replaced session listed', async () => (await web.grants.list.query()).sessions.find((s) => s.name === 'gpu:replaced-box')?.grant?.state === 'stale');
    const failure = await failureOf(gateway.sessions.tail.query({ session: 'gpu:replaced-box' }));
    expect(failure.code).toBe('SESSION_NOT_ALLOWED');
    expect(JSON.stringify(failure)).not.toContain('second-incarnation');
  });

  it('never grants a sensitive node session, nor a session of a node that is not configured', async () => {
    expect((await failureOf(web.grants.set.mutate({ session: 'gpu:vault-password', read: true, input: false }))).code).toBe('FORBIDDEN');
    expect((await failureOf(web.grants.set.mutate({ session: 'cpu:review-box', read: true, input: false }))).code).toBe('SESSION_NOT_FOUND');
    const bulk = await web.grants.bulkSet.mutate({ sessions: ['gpu:vault-password', 'cpu:review-box', '-oProxyCommand=x:review-box'], read: true, input: false });
    expect(bulk.results.map((r) => [r.session, r.ok ? 'ok' : r.error_code])).toEqual([
      ['gpu:vault-password', 'FORBIDDEN'],
      ['cpu:review-box', 'SESSION_NOT_FOUND'],
      ['-oProxyCommand=x:review-box', 'SESSION_NOT_FOUND'],
    ]);
    expect((await failureOf(gateway.sessions.tail.query({ session: 'gpu:vault-password' }))).code).toBe('SESSION_NOT_ALLOWED');
  });

  it('while the node is down its grant is listed as on a down node and admits nothing; once it is back the grant admits again', async () => {
    await sshd.kill();
    try {
      await waitFor('the node down in the grants list', async () => (await web.grants.list.query()).nodes?.[0]?.state === 'down');
      const list = await web.grants.list.query();
      expect(list.sessions.some((s) => s.name.startsWith('gpu:'))).toBe(false);
      expect(list.orphaned_grants.find((g) => g.session === 'gpu:review-box')).toMatchObject({ node_down: true, state: 'active' });
      // A replaced session's grant: its node cannot say, so only the time box is judged.
      expect(list.orphaned_grants.find((g) => g.session === 'gpu:replaced-box')).toMatchObject({ node_down: true });
      expect((await failureOf(gateway.sessions.tail.query({ session: 'gpu:review-box' }))).code).toBe('NODE_UNAVAILABLE');
      // No grant can be made while the node cannot be asked which session has the name.
      expect((await failureOf(web.grants.set.mutate({ session: 'gpu:review-box', read: true, input: false }))).code).toBe('NODE_UNAVAILABLE');
    } finally {
      await sshd.start();
    }
    await waitFor('the node back', async () => (await web.grants.list.query()).nodes?.[0]?.state === 'up');
    expect((await gateway.sessions.tail.query({ session: 'gpu:review-box' })).text).toContain('node-review-marker');
  });

  it('revoking a node session\'s grant takes read and input away', async () => {
    expect((await web.grants.revoke.mutate({ session: 'gpu:review-box' })).revoked).toBe(true);
    expect((await failureOf(gateway.sessions.tail.query({ session: 'gpu:review-box' }))).code).toBe('SESSION_NOT_ALLOWED');
    expect((await failureOf(gateway.input.sendText.mutate({ session: 'gpu:review-box', text: 'must-not-arrive', enter: true }))).code).toBe('INPUT_NOT_ALLOWED');
    expect(grantEvents().filter((e) => e.session_name === 'gpu:review-box').map((e) => e.action)).toEqual(['grant', 'revoke']);
    expect(await remote.tmux(['capture-pane', '-p', '-t', '=review-box:'])).not.toContain('must-not-arrive');
  });

  it('a node session waiting for a password is handed to the person, and the dashboard\'s secret entry types it there, unaudited as text', async () => {
    await waitFor('the prompt on the node', async () => /passphrase/i.test(await remote.tmux(['capture-pane', '-p', '-t', '=agent-login:'])));
    const asked = await gateway.human.request.mutate({ session: 'gpu:agent-login', reason: 'sudo on the gpu box' });
    expect(asked).toMatchObject({ session: 'gpu:agent-login', status: 'WAITING_HUMAN', notified: true });
    const notice = (await web.human.notices.query({})).find((n) => n.kind === 'waiting_for_human' && n.session === 'gpu:agent-login');
    expect(notice?.message).toBe('sudo on the gpu box');

    // The program that reads it, read on the node: ssh-keygen by its executable.
    const reader = await web.human.promptReader.query({ session: 'gpu:agent-login' });
    expect(reader).toMatchObject({ session: 'gpu:agent-login', admitted: true });
    expect(reader.readers.map((r) => r.exe_path)).toEqual(['/usr/bin/ssh-keygen']);
    await web.human.answerSecret.mutate({ session: 'gpu:agent-login', secret: KEY_SECRET, source_ip: '127.0.0.1' });
    await waitFor('the secret typed on the node', async () => /^got-21-chars$/m.test(await remote.tmux(['capture-pane', '-p', '-t', '=agent-login:'])));
    // This host has no such session: nothing was typed here.
    expect(await fixture!.local.tmux(['list-sessions', '-F', '#{session_name}'])).not.toContain('agent-login');
    const db = new Database(join(broker.stateDir, 'audit.db'), { readonly: true });
    try {
      const rows = db.prepare("SELECT session_name, decision FROM input_audit WHERE session_name = 'gpu:agent-login'").all() as { session_name: string; decision: string }[];
      expect(rows.map((r) => r.decision)).toContain('SENT');
      expect(JSON.stringify(db.prepare('SELECT * FROM input_audit').all())).not.toContain('horse');
    } finally {
      db.close();
    }
  });
});
