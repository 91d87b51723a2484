// Guards launch-profile sessions on a node over a real sshd and a real "remote" tmux: a profile with `node: gpu` starts its program in the node's tmux (not this host's) in the directory resolved on the node (and types the first prompt there through the node's input path), refuses a cwd outside its roots or missing there and hostile names with nothing run, closes exactly the node's session (this host's session of the same name survives), restarts under a new identity, recovers a program that exited (recover: on_exit) on the node and decides nothing about a node's sessions while it is down (a session that ended meanwhile is recovered once it is back), answers NODE_UNAVAILABLE with nothing started while the node is down, and every lifecycle audit row names gpu:<name>.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createBrokerClient, type BrokerClient } from '@terminal-mcp/broker-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrokerProcess } from './helpers/broker-process.js';
import { failureOf } from './helpers/broker-failure.js';
import { startNodeFixture, type NodeFixture } from './helpers/node-fixture.js';
import { sshdUnavailable, type TestSshd } from './helpers/sshd.js';
import type { TmuxTestServer } from './helpers/tmux-server.js';
import { waitFor } from './helpers/wait-for.js';

const unavailable = sshdUnavailable();
if (unavailable !== undefined) console.log(`skipping the node lifecycle tests: ${unavailable}`);

let fixture: NodeFixture | undefined;
let local: TmuxTestServer;
let remote: TmuxTestServer;
let sshd: TestSshd;
let broker: BrokerProcess;
let client: BrokerClient<'gateway'>;
let root: string;
let work: string;

interface AuditRow {
  id: number;
  tool: string;
  decision: string;
  error_code: string | null;
  session_name: string | null;
  session_id: string | null;
  server_pid: number | null;
}

function auditRow(id: number): AuditRow {
  const db = new Database(join(broker.stateDir, 'audit.db'), { readonly: true });
  try {
    return db.prepare('SELECT id, tool, decision, error_code, session_name, session_id, server_pid FROM input_audit WHERE id = ?').get(id) as AuditRow;
  } finally {
    db.close();
  }
}

function lastAuditRow(tool: string): AuditRow | undefined {
  const db = new Database(join(broker.stateDir, 'audit.db'), { readonly: true });
  try {
    return db.prepare('SELECT id, tool, decision, error_code, session_name, session_id, server_pid FROM input_audit WHERE tool = ? ORDER BY id DESC LIMIT 1').get(tool) as AuditRow | undefined;
  } finally {
    db.close();
  }
}

function managedRows(name: string): { node: string | null; name: string; session_id: string; state: string; cwd: string }[] {
  const db = new Database(join(broker.stateDir, 'registry.db'), { readonly: true });
  try {
    return db.prepare('SELECT node, name, session_id, state, cwd FROM managed_sessions WHERE name = ? ORDER BY id').all(name) as ReturnType<typeof managedRows>;
  } finally {
    db.close();
  }
}

/** Session names and ids of a tmux server (the broker's hidden session left out). */
async function sessionsOf(server: TmuxTestServer): Promise<Map<string, string>> {
  const out = await server.tmux(['list-sessions', '-F', '#{session_name} #{session_id}']).catch(() => '');
  return new Map(
    out
      .trim()
      .split('\n')
      .filter((l) => l !== '' && !l.startsWith('__'))
      .map((l) => l.split(' ') as [string, string]),
  );
}

const remoteId = async (name: string) => (await sessionsOf(remote)).get(name);

describe.skipIf(unavailable !== undefined)('launch profiles on a node over a real sshd', () => {
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'tmcp-node-lifecycle-'));
    work = join(root, 'work');
    mkdirSync(join(work, 'sub'), { recursive: true });
    mkdirSync(join(root, 'outside'));
    symlinkSync(join(root, 'outside'), join(work, 'escape'));
    fixture = await startNodeFixture({
      config: {
        allowed_session_patterns: ['agent-*'],
        permissions: { terminal_read: true, terminal_input: true, session_lifecycle: true },
        launch_profiles: [
          { name: 'agent', command: ['sleep', '3600'], roots: [work], name_pattern: 'agent-*', node: 'gpu' },
          // Writes what is typed into it to a file: the first prompt's way into the node's pane.
          // Exits at once until its marker exists, then stays: recovery brings it back once, on the node.
          { name: 'flaky', command: ['sh', '-c', 'if [ -e "$1" ]; then exec sleep 3600; fi; touch "$1"; exit 3', 'sh', join(root, 'flaky-ok')], roots: [work], name_pattern: 'agent-*', node: 'gpu', recover: 'on_exit', max_restarts_per_hour: 3, backoff_seconds: 0 },
          { name: 'catter', command: ['sh', '-c', 'exec cat > "$1"', 'sh', join(root, 'typed.txt')], roots: [work], name_pattern: 'agent-*', ready_command: 'cat', node: 'gpu' },
        ],
      },
      sessions: async (here, there) => {
        // The same name on both hosts: only the node's may be closed by gpu:agent-twin.
        await here.newSession('agent-twin', 'sleep 3600');
        // On the node, but not started by a profile.
        await there.newSession('agent-manual', 'sleep 3600');
      },
    });
    ({ local, remote, sshd, broker } = fixture);
    client = createBrokerClient({ role: 'gateway', socketPath: join(broker.socketDir, 'gateway.sock') });
  });

  afterAll(async () => {
    await fixture?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("starts the profile's program in the node's tmux, not this host's, in the directory resolved on the node", async () => {
    const started = await client.lifecycle.start.mutate({ profile: 'agent', name: 'agent-1', cwd: join(work, 'sub') });
    expect(started).toMatchObject({ result: 'STARTED', profile: 'agent', session: 'gpu:agent-1', cwd: realpathSync(join(work, 'sub')) });
    expect(started.session_id).toMatch(/^gpu:\$\d+$/);
    expect(`gpu:${await remoteId('agent-1')}`).toBe(started.session_id);
    expect((await sessionsOf(local)).has('agent-1')).toBe(false);
    const [command, path] = (await remote.tmux(['display-message', '-p', '-t', '=agent-1:', '#{pane_start_command}\t#{pane_current_path}'])).trim().split('\t');
    expect(command).toContain('sleep');
    expect(path).toBe(realpathSync(join(work, 'sub')));
    expect(auditRow(started.audit_id)).toMatchObject({ tool: 'terminal_session_start', decision: 'SENT', session_name: 'gpu:agent-1', session_id: null });
    expect(managedRows('gpu:agent-1')).toEqual([{ node: 'gpu', name: 'gpu:agent-1', session_id: started.session_id, state: 'RUNNING', cwd: realpathSync(join(work, 'sub')) }]);
    // The node's session is listed and readable as any other node session.
    const listed = (await client.sessions.list.query({})).sessions.find((s) => s.name === 'gpu:agent-1');
    expect(listed?.session_id).toBe(started.session_id);
  });

  it("types the first prompt into the node's pane through the node's input path", async () => {
    const started = await client.lifecycle.start.mutate({ profile: 'catter', name: 'agent-cat', prompt: 'prompt-on-the-node' });
    expect(started).toMatchObject({ result: 'STARTED', session: 'gpu:agent-cat', foreground: 'cat', prompt: { result: 'SENT', error_code: null } });
    await waitFor('the prompt in the file', () => {
      try {
        return readFileSync(join(root, 'typed.txt'), 'utf8') === 'prompt-on-the-node\n' || undefined;
      } catch {
        return undefined;
      }
    });
    expect(auditRow(started.prompt!.audit_id!)).toMatchObject({ tool: 'terminal_session_start', decision: 'SENT', session_name: 'gpu:agent-cat', session_id: started.session_id });
    expect((await sessionsOf(local)).has('agent-cat')).toBe(false);
  });

  it('refuses a cwd outside the roots (after symlinks) or missing on the node, starting nothing', async () => {
    const before = await sessionsOf(remote);
    for (const cwd of [join(work, 'escape'), join(root, 'outside'), join(work, 'nope'), `${work}/../outside`]) {
      const refused = await failureOf(client.lifecycle.start.mutate({ profile: 'agent', name: 'agent-cwd', cwd }));
      expect(refused.code, cwd).toBe('LAUNCH_NOT_ALLOWED');
      expect(lastAuditRow('terminal_session_start')).toMatchObject({ decision: 'BLOCKED', error_code: 'LAUNCH_NOT_ALLOWED', session_name: 'gpu:agent-cwd' });
    }
    expect(await sessionsOf(remote)).toEqual(before);
  });

  it('refuses hostile names with nothing run on either host', async () => {
    const beforeRemote = await sessionsOf(remote);
    const beforeLocal = await sessionsOf(local);
    for (const name of ['-oProxyCommand=x', 'a;b', '%h', '-agent-1', 'agent-%h', 'agent-1;kill-server', 'gpu:agent-2', 'agent-#(id)']) {
      const refused = await failureOf(client.lifecycle.start.mutate({ profile: 'agent', name }));
      expect(refused.code, name).toBe('LAUNCH_NOT_ALLOWED');
      expect(lastAuditRow('terminal_session_start'), name).toMatchObject({ decision: 'BLOCKED', error_code: 'LAUNCH_NOT_ALLOWED' });
    }
    expect(await sessionsOf(remote)).toEqual(beforeRemote);
    expect(await sessionsOf(local)).toEqual(beforeLocal);
  });

  it("closes exactly the node's session, pinned to the id the caller saw; this host's session of the same name survives", async () => {
    const started = await client.lifecycle.start.mutate({ profile: 'agent', name: 'agent-twin' });
    expect(started.session).toBe('gpu:agent-twin');
    const localId = (await sessionsOf(local)).get('agent-twin');
    expect(localId).toBeDefined();

    const wrong = await failureOf(client.lifecycle.close.mutate({ session: 'gpu:agent-twin', expect_session_id: 'gpu:$99999', confirm: true }));
    expect(wrong.code).toBe('IDENTITY_CHANGED');
    const dry = await client.lifecycle.close.mutate({ session: 'gpu:agent-twin', expect_session_id: started.session_id! });
    expect(dry).toMatchObject({ result: 'DRY_RUN', session: 'gpu:agent-twin', session_id: started.session_id, profile: 'agent' });
    expect(await remoteId('agent-twin')).toBeDefined();

    const closed = await client.lifecycle.close.mutate({ session: 'gpu:agent-twin', expect_session_id: started.session_id!, confirm: true });
    expect(closed).toMatchObject({ result: 'CLOSED', session: 'gpu:agent-twin', session_id: started.session_id });
    await waitFor('the node session gone', async () => (await remoteId('agent-twin')) === undefined || undefined);
    expect((await sessionsOf(local)).get('agent-twin')).toBe(localId);
    const remotePid = Number(await remote.tmux(['display-message', '-p', '#{pid}']));
    expect(auditRow(closed.audit_id)).toMatchObject({ tool: 'terminal_session_close', decision: 'SENT', session_name: 'gpu:agent-twin', session_id: started.session_id, server_pid: remotePid });
    expect(managedRows('gpu:agent-twin').map((r) => r.state)).toEqual(['CLOSED']);

    // A node session no profile started is not closed (session_lifecycle.close_unmanaged is off).
    const manualId = (await sessionsOf(remote)).get('agent-manual')!;
    const manual = await failureOf(client.lifecycle.close.mutate({ session: 'gpu:agent-manual', expect_session_id: `gpu:${manualId}`, confirm: true }));
    expect(manual.code).toBe('LAUNCH_NOT_ALLOWED');
    expect(await remoteId('agent-manual')).toBe(manualId);
    expect(lastAuditRow('terminal_session_close')).toMatchObject({ decision: 'BLOCKED', error_code: 'LAUNCH_NOT_ALLOWED', session_name: 'gpu:agent-manual' });
  });

  it('restarts a node session under a new identity, on the node, linked in the registry', async () => {
    const before = `gpu:${await remoteId('agent-1')}`;
    const restarted = await client.lifecycle.restart.mutate({ session: 'gpu:agent-1', expect_session_id: before, confirm: true });
    expect(restarted).toMatchObject({ result: 'RESTARTED', session: 'gpu:agent-1', profile: 'agent', previous_session_id: before });
    expect(restarted.session_id).toMatch(/^gpu:\$\d+$/);
    expect(restarted.session_id).not.toBe(before);
    expect(`gpu:${await remoteId('agent-1')}`).toBe(restarted.session_id);
    expect((await sessionsOf(local)).has('agent-1')).toBe(false);
    // Resizing stays this host's: refused by name, audited.
    expect((await failureOf(client.lifecycle.resize.mutate({ session: 'gpu:agent-1', width: 100, height: 30 }))).code).toBe('LAUNCH_NOT_ALLOWED');
    expect(lastAuditRow('terminal_resize')).toMatchObject({ decision: 'BLOCKED', error_code: 'LAUNCH_NOT_ALLOWED', session_name: 'gpu:agent-1' });
    expect(auditRow(restarted.audit_id)).toMatchObject({ tool: 'terminal_session_restart', decision: 'SENT', session_name: 'gpu:agent-1', session_id: before });
    expect(managedRows('gpu:agent-1').map((r) => [r.session_id, r.state])).toEqual([
      [before, 'REPLACED'],
      [restarted.session_id, 'RUNNING'],
    ]);
  });

  it('restarts a node session whose program exited (recover: on_exit), on the node, audited under gpu:<name>', async () => {
    const started = await client.lifecycle.start.mutate({ profile: 'flaky', name: 'agent-flaky' });
    expect(started).toMatchObject({ result: 'STARTED', session: 'gpu:agent-flaky' });
    const rows = await waitFor('the session recovered on the node', () => {
      const r = managedRows('gpu:agent-flaky');
      return r.length === 2 && r[1]?.state === 'RUNNING' ? r : undefined;
    });
    expect(rows.map((r) => [r.node, r.session_id, r.state])).toEqual([
      ['gpu', started.session_id, 'REPLACED'],
      ['gpu', rows[1]!.session_id, 'RUNNING'],
    ]);
    expect(rows[1]!.session_id).not.toBe(started.session_id);
    await waitFor('the recovered session on the node', async () => `gpu:${await remoteId('agent-flaky')}` === rows[1]!.session_id || undefined);
    expect((await sessionsOf(local)).has('agent-flaky')).toBe(false);
    expect(lastAuditRow('session_recovery')).toMatchObject({ decision: 'SENT', session_name: 'gpu:agent-flaky' });
  });

  it('answers NODE_UNAVAILABLE with the hint while the node is down, starts and closes nothing, and audits it', async () => {
    const agentId = `gpu:${await remoteId('agent-1')}`;
    const flakyId = `gpu:${await remoteId('agent-flaky')}`;
    await sshd.kill();
    try {
      await waitFor('the node seen down', async () => (await client.sessions.list.query({})).nodes?.find((n) => n.node === 'gpu')?.state !== 'up' || undefined);
      const refused = await failureOf(client.lifecycle.start.mutate({ profile: 'agent', name: 'agent-down' }));
      expect(refused.code).toBe('NODE_UNAVAILABLE');
      expect(refused.hint.length).toBeGreaterThan(0);
      expect(lastAuditRow('terminal_session_start')).toMatchObject({ decision: 'BLOCKED', error_code: 'NODE_UNAVAILABLE', session_name: 'gpu:agent-down' });
      const close = await failureOf(client.lifecycle.close.mutate({ session: 'gpu:agent-1', expect_session_id: agentId, confirm: true }));
      expect(close.code).toBe('NODE_UNAVAILABLE');
      expect(lastAuditRow('terminal_session_close')).toMatchObject({ decision: 'BLOCKED', error_code: 'NODE_UNAVAILABLE', session_name: 'gpu:agent-1' });
      // A session ends on the node while the broker cannot see it: nothing is decided about
      // it until the node lists its sessions again.
      await remote.tmux(['kill-session', '-t', '=agent-flaky']);
      expect(managedRows('gpu:agent-flaky').at(-1)).toMatchObject({ session_id: flakyId, state: 'RUNNING' });
    } finally {
      await sshd.start();
    }
    await waitFor('the node to come back', async () => (await client.sessions.list.query({})).nodes?.find((n) => n.node === 'gpu')?.state === 'up' || undefined);
    expect(await remoteId('agent-down')).toBeUndefined();
    expect(`gpu:${await remoteId('agent-1')}`).toBe(agentId);
    expect(managedRows('gpu:agent-down')).toEqual([]);
    // The session that ended during the outage is found dead once the node lists again, and
    // recovered there; a live one is not taken for dead.
    const rows = await waitFor('the flaky session recovered after the outage', () => {
      const r = managedRows('gpu:agent-flaky');
      return r.length === 3 && r[2]?.state === 'RUNNING' ? r : undefined;
    });
    expect(rows.map((r) => r.state)).toEqual(['REPLACED', 'REPLACED', 'RUNNING']);
    expect(rows[1]?.session_id).toBe(flakyId);
    await waitFor('the recovered session on the node', async () => `gpu:${await remoteId('agent-flaky')}` === rows[2]!.session_id || undefined);
    expect(managedRows('gpu:agent-1').at(-1)).toMatchObject({ session_id: agentId, state: 'RUNNING' });
    // And once it is back, the node answers again.
    const closed = await client.lifecycle.close.mutate({ session: 'gpu:agent-1', expect_session_id: agentId, confirm: true });
    expect(closed.result).toBe('CLOSED');
    await waitFor('the node session gone', async () => (await remoteId('agent-1')) === undefined || undefined);
  });
});
