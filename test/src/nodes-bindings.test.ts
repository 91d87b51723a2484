// Guards bindings on node sessions over a real sshd and a real remote tmux: terminal_bind on node:session pins the node's named pane (not its active one) with the node's identity; bound tail, status and input reach exactly that pane on the node and are audited as node:session; a node session the node's patterns refuse cannot be bound; a pane respawned on the node is IDENTITY_CHANGED with nothing sent; a supervisor watch on the binding reads the node's pane; with sshd gone the binding answers NODE_UNAVAILABLE (never "not found") and works again once the node is back; this host's session of the same name is never touched.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
if (unavailable !== undefined) console.log(`skipping the node binding tests: ${unavailable}`);

let local: TmuxTestServer;
let remote: TmuxTestServer;
let sshd: TestSshd;
let broker: BrokerProcess;
let fixture: NodeFixture | undefined;
let client: BrokerClient<'gateway'>;
let dir: string;
/** The node's split pane (not the active one) of gpu:agent-split. */
let splitPane: string;

/** What `cat > file` in a pane has written so far. */
const written = (name: string) => {
  try {
    return readFileSync(join(dir, name), 'utf8');
  } catch {
    return '';
  }
};

type AuditRow = { decision: string; error_code: string | null; session_name: string | null; session_id: string | null; server_pid: number | null; pane_id: string | null; binding: string | null };

function auditRow(id: number): AuditRow {
  const db = new Database(join(broker.stateDir, 'audit.db'), { readonly: true });
  try {
    return db.prepare('SELECT decision, error_code, session_name, session_id, server_pid, pane_id, binding FROM input_audit WHERE id = ?').get(id) as AuditRow;
  } finally {
    db.close();
  }
}

function lastAuditRow(binding: string): AuditRow | undefined {
  const db = new Database(join(broker.stateDir, 'audit.db'), { readonly: true });
  try {
    return db.prepare('SELECT decision, error_code, session_name, session_id, server_pid, pane_id, binding FROM input_audit WHERE binding = ? ORDER BY id DESC LIMIT 1').get(binding) as AuditRow | undefined;
  } finally {
    db.close();
  }
}

const catInto = (file: string, marker: string) => `bash --norc --noprofile -c 'echo ${marker}; exec cat > ${join(dir, file)}'`;

describe.skipIf(unavailable !== undefined)('bindings on node sessions over a real sshd', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tmcp-node-bind-'));
    fixture = await startNodeFixture({
      config: {
        allowed_session_patterns: ['agent-*', 'private-*'],
        permissions: { terminal_input: true },
        input_policy: { allowed_session_patterns: ['agent-*'] },
        supervisor: { enabled: true, v2_enabled: true },
      },
      node: { allowed_session_patterns: ['agent-*'] },
      sessions: async (here, there) => {
        // The same name on this host: nothing through a node binding may reach it.
        await here.newSession('agent-split', catInto('local.txt', 'local-pane-marker'));
        await there.newSession('agent-split', catInto('active.txt', 'active-pane-marker'));
        await there.newSession('agent-respawn', catInto('respawn.txt', 'respawn-marker'));
        await there.newSession('private-box', `bash --norc --noprofile -c 'echo private; exec sleep 3600'`);
        await there.newSession('agent-watch', `bash --norc --noprofile -c 'echo watch-active-pane; exec sleep 3600'`);
      },
    });
    ({ local, remote, sshd, broker } = fixture);
    client = createBrokerClient({ role: 'gateway', socketPath: join(broker.socketDir, 'gateway.sock') });
    // -d: the first pane stays the active one.
    splitPane = (await remote.tmux(['split-window', '-d', '-P', '-F', '#{pane_id}', '-t', '=agent-split:', catInto('split.txt', 'split-pane-marker')])).trim();
    await waitFor('both cats reading', async () => (await remote.tmux(['list-panes', '-t', '=agent-split:', '-F', '#{pane_current_command}'])).split('\n').every((c) => c === 'cat') || undefined);
  });

  afterAll(async () => {
    await fixture?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("pins the node's named pane, not its active one, with the node's identity", async () => {
    const bound = await client.bindings.bind.mutate({ binding: 'split', session: 'gpu:agent-split', pane: splitPane, input_enabled: true });
    expect(bound).toMatchObject({ outcome: 'CREATED', session: 'gpu:agent-split', pane_id: splitPane, state: 'OK', input_enabled: true });
    expect(bound.session_id).toMatch(/^gpu:\$\d+$/);
    const remoteSessionId = (await remote.tmux(['display-message', '-p', '-t', '=agent-split:', '#{session_id}'])).trim();
    expect(bound.session_id).toBe(`gpu:${remoteSessionId}`);
    // Binding it again to the same pane changes nothing.
    expect((await client.bindings.bind.mutate({ binding: 'split', session: 'gpu:agent-split', pane: splitPane })).outcome).toBe('UNCHANGED');
    expect(await client.bindings.get.query({ binding: 'split' })).toMatchObject({ session: 'gpu:agent-split', state: 'OK' });

    const tail = await client.bindings.tail.query({ binding: 'split' });
    expect(tail).toMatchObject({ binding: 'split', session: 'gpu:agent-split', session_id: bound.session_id, pane_id: splitPane });
    expect(tail.text).toContain('split-pane-marker');
    expect(tail.text).not.toContain('active-pane-marker');
    expect(tail.text).not.toContain('local-pane-marker');
    expect(await client.bindings.status.query({ binding: 'split' })).toMatchObject({ binding: 'split', session: 'gpu:agent-split', session_id: bound.session_id });
  });

  it("types through the binding into exactly that pane on the node, audited as node:session", async () => {
    const sent = await client.input.sendBound.mutate({ binding: 'split', text: 'via-binding', enter: true });
    expect(sent).toMatchObject({ result: 'SENT', session: 'gpu:agent-split', binding: 'split' });
    await waitFor("the text in the split pane's file", () => written('split.txt') === 'via-binding\n' || undefined);
    const remotePid = Number(await remote.tmux(['display-message', '-p', '#{pid}']));
    expect(auditRow(sent.audit_id)).toMatchObject({ decision: 'SENT', session_name: 'gpu:agent-split', session_id: sent.session_id, server_pid: remotePid, pane_id: splitPane, binding: 'split' });
    const keys = await client.input.sendKeys.mutate({ binding: 'split', keys: ['Enter'] });
    expect(keys.result).toBe('SENT');
    await waitFor('the Enter in the file', () => written('split.txt') === 'via-binding\n\n' || undefined);
    const task = await client.input.sendTask.mutate({ binding: 'split', text: 'task-via-binding' });
    expect(task.session).toBe('gpu:agent-split');
    await waitFor('the task in the file', () => written('split.txt').endsWith('task-via-binding\n') || undefined);
    expect(written('active.txt')).toBe('');
    expect(written('local.txt')).toBe('');
  });

  it("refuses to bind a node session the node's read patterns refuse", async () => {
    // private-* is readable on this host, not on the node.
    expect((await failureOf(client.bindings.bind.mutate({ binding: 'priv', session: 'gpu:private-box' }))).code).toBe('SESSION_NOT_ALLOWED');
    expect((await failureOf(client.bindings.bind.mutate({ binding: 'priv', session: 'cpu:private-box' }))).code).toBe('SESSION_NOT_FOUND');
    expect((await client.bindings.list.query({})).bindings.map((b) => b.binding)).not.toContain('priv');
  });

  it("keeps this host's session of the same name apart", async () => {
    const here = await client.bindings.bind.mutate({ binding: 'here', session: 'agent-split', input_enabled: true });
    expect(here).toMatchObject({ session: 'agent-split', state: 'OK' });
    expect(here.session_id).toMatch(/^\$\d+$/);
    expect((await client.bindings.tail.query({ binding: 'here' })).text).toContain('local-pane-marker');
    // Taking the name over to the node's pane needs replace, like any other remap.
    expect((await failureOf(client.bindings.bind.mutate({ binding: 'here', session: 'gpu:agent-split', pane: splitPane }))).code).toBe('BINDING_EXISTS');
    expect((await client.bindings.tail.query({ binding: 'split' })).text).not.toContain('local-pane-marker');
    expect(written('local.txt')).toBe('');
  });

  it("answers IDENTITY_CHANGED, sending nothing, once the node's pane was replaced", async () => {
    await client.bindings.bind.mutate({ binding: 'resp', session: 'gpu:agent-respawn', input_enabled: true });
    await remote.tmux(['respawn-pane', '-k', '-t', '=agent-respawn:', catInto('respawned.txt', 'respawned-marker')]);
    await waitFor('the respawned cat reading', async () => (await remote.tmux(['display-message', '-p', '-t', '=agent-respawn:', '#{pane_current_command}'])).trim() === 'cat' || undefined);
    expect((await client.bindings.get.query({ binding: 'resp' })).state).toBe('IDENTITY_CHANGED');
    expect((await failureOf(client.bindings.tail.query({ binding: 'resp' }))).code).toBe('IDENTITY_CHANGED');
    expect((await failureOf(client.input.sendBound.mutate({ binding: 'resp', text: 'must-not-arrive', enter: true }))).code).toBe('IDENTITY_CHANGED');
    expect(lastAuditRow('resp')).toMatchObject({ error_code: 'IDENTITY_CHANGED', session_name: 'gpu:agent-respawn' });
    expect(lastAuditRow('resp')?.decision).not.toBe('SENT');
    expect(written('respawned.txt')).toBe('');
    expect(written('respawn.txt')).toBe('');
  });

  it("watches a binding on the node: the supervisor reads the node's pinned pane", async () => {
    const pane = (
      await remote.tmux(['split-window', '-d', '-P', '-F', '#{pane_id}', '-t', '=agent-watch:', `bash --norc --noprofile -c 'read x; echo node-split-output; printf "%s\\n" TERMINAL_MCP_DONE; exec sleep 3600'`])
    ).trim();
    await client.bindings.bind.mutate({ binding: 'watched', session: 'gpu:agent-watch', pane });
    expect(await client.supervisor.watch.mutate({ binding: 'watched' })).toMatchObject({ kind: 'binding', target: 'watched', enabled: true });
    await remote.tmux(['send-keys', '-t', pane, 'Enter']);
    const done = await waitFor('a DONE event for the binding', async () => {
      await client.supervisor.runOnce.mutate({});
      return (await client.supervisor.listEvents.query({ limit: 200 })).events.find((e) => e.target === 'watched' && e.state === 'DONE');
    });
    expect(done.output_preview).toContain('node-split-output');
    expect(done.output_preview).not.toContain('watch-active-pane');
    const db = new Database(join(broker.stateDir, 'audit.db'), { readonly: true });
    try {
      // The read audit is flushed in batches.
      await waitFor('the supervisor read of the node session in the read audit', () => {
        const rows = db.prepare("SELECT session_name FROM read_audit WHERE actor = 'broker:supervisor' AND error_code IS NULL").all() as { session_name: string }[];
        return rows.some((r) => r.session_name === 'gpu:agent-watch') || undefined;
      });
    } finally {
      db.close();
    }
  });

  it('answers NODE_UNAVAILABLE while sshd is gone, keeps the binding, and works again once the node is back', async () => {
    const before = written('split.txt');
    await sshd.kill();
    await waitFor('the node to be down', async () => (await failureOf(client.sessions.tail.query({ session: 'gpu:agent-split' })).catch(() => undefined))?.code === 'NODE_UNAVAILABLE');
    expect((await failureOf(client.bindings.tail.query({ binding: 'split' }))).code).toBe('NODE_UNAVAILABLE');
    expect((await failureOf(client.bindings.status.query({ binding: 'split' }))).code).toBe('NODE_UNAVAILABLE');
    expect((await failureOf(client.bindings.get.query({ binding: 'split' }))).code).toBe('NODE_UNAVAILABLE');
    expect((await failureOf(client.input.sendBound.mutate({ binding: 'split', text: 'while-down', enter: true }))).code).toBe('NODE_UNAVAILABLE');
    expect(lastAuditRow('split')).toMatchObject({ error_code: 'NODE_UNAVAILABLE', session_name: 'gpu:agent-split' });
    // One node down hides nothing else: this host's binding still answers.
    const listed = (await client.bindings.list.query({})).bindings;
    expect(listed.find((b) => b.binding === 'split')).toMatchObject({ state: 'NODE_UNAVAILABLE', session: 'gpu:agent-split' });
    expect(listed.find((b) => b.binding === 'here')).toMatchObject({ state: 'OK', session: 'agent-split' });
    expect((await client.bindings.tail.query({ binding: 'here' })).text).toContain('local-pane-marker');

    await sshd.start();
    await waitFor('the node to come back', async () => (await client.sessions.list.query({})).nodes?.find((n) => n.node === 'gpu')?.state === 'up');
    expect((await client.bindings.tail.query({ binding: 'split' })).text).toContain('split-pane-marker');
    const sent = await client.input.sendBound.mutate({ binding: 'split', text: 'after-return', enter: true });
    expect(sent.result).toBe('SENT');
    await waitFor('the text after the node is back', () => written('split.txt') === `${before}after-return\n` || undefined);
    expect(written('split.txt')).not.toContain('while-down');
    expect(written('local.txt')).toBe('');
    expect(await local.tmux(['list-sessions', '-F', '#{session_name}'])).not.toContain('agent-respawn');
    // Unbinding needs no node.
    expect(await client.bindings.unbind.mutate({ binding: 'split' })).toEqual({ binding: 'split', removed: true });
  });
});
