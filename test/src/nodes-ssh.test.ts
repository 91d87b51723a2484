// Guards many hosts over OpenSSH end to end: a real sshd and a real remote tmux; node:session reads beside local ones (and one pane of a split node session), one listing with a down node shown as down, unknown host keys refused with the command to accept them, input refused while input is off, NODE_UNAVAILABLE while sshd is gone and recovery after, and no client text on an ssh command line.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { createBrokerClient, type BrokerClient } from '@terminal-mcp/broker-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { failureOf } from './helpers/broker-failure.js';
import { sshdUnavailable, startSshd, type TestSshd } from './helpers/sshd.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';
import { waitFor } from './helpers/wait-for.js';
import { repoPath } from './helpers/repo.js';
import { runNode } from './helpers/run-node.js';

const unavailable = sshdUnavailable();
if (unavailable !== undefined) console.log(`skipping the remote-node tests: ${unavailable}`);

let local: TmuxTestServer;
let remote: TmuxTestServer;
let sshd: TestSshd;
let broker: BrokerProcess;
let client: BrokerClient<'gateway'>;
const pwnFile = join(tmpdir(), `tmcp-pwn-${randomBytes(4).toString('hex')}`);


/** argv of every live process, for "no client text on a command line". */
function commandLines(): string[] {
  const out: string[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      out.push(readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' '));
    } catch {
      /* gone */
    }
  }
  return out;
}

describe.skipIf(unavailable !== undefined)('nodes over a real sshd', () => {
  beforeAll(async () => {
    local = await startTmuxServer();
    remote = await startTmuxServer();
    await local.newSession('agent-here', `bash --norc --noprofile -c 'echo local-marker; exec sleep 3600'`);
    await remote.newSession('agent-there', `bash --norc --noprofile -c 'echo remote-marker; echo key=sk-ant-api03-${'Q7x'.repeat(30)}AA; exec sleep 3600'`);
    await remote.newSession('private-notes', `bash --norc --noprofile -c 'echo private; exec sleep 3600'`);
    sshd = await startSshd();
    const node = { ssh: sshd.destination, tmux_socket: remote.socketName, identity_file: sshd.clientKey };
    broker = await startBrokerProcess({
      tmuxSocket: local.socketName,
      config: {
        allowed_session_patterns: ['agent-*'],
        log_level: 'warn',
        nodes: [
          { name: 'gpu', ...node, known_hosts: sshd.knownHosts },
          // Same server, but its host key is not in this node's known_hosts.
          { name: 'stranger', ...node, known_hosts: sshd.emptyKnownHosts },
        ],
      },
    });
    client = createBrokerClient({ role: 'gateway', socketPath: join(broker.socketDir, 'gateway.sock') });
    await waitFor('node gpu up', async () => (await client.sessions.list.query({})).nodes?.find((n) => n.node === 'gpu')?.state === 'up');
  });

  afterAll(async () => {
    await broker?.stop();
    await sshd?.stop();
    await remote?.kill();
    await local?.kill();
  });

  it('lists this host and every node in one call, node sessions as node:session, a down node as down', async () => {
    const list = await client.sessions.list.query({});
    const names = list.sessions.map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(['agent-here', 'gpu:agent-there', 'gpu:private-notes']));
    expect(names.some((n) => n.startsWith('stranger:'))).toBe(false);
    const there = list.sessions.find((s) => s.name === 'gpu:agent-there');
    expect(there?.session_id).toMatch(/^gpu:\$\d+$/);
    expect(there?.read_allowed).toBe(true);
    expect(list.sessions.find((s) => s.name === 'gpu:private-notes')?.read_allowed).toBe(false);
    expect(list.nodes).toEqual([
      { node: 'local', state: 'up' },
      { node: 'gpu', state: 'up' },
      expect.objectContaining({ node: 'stranger', state: 'down', reason: expect.stringContaining('host key not known') }),
    ]);
  });

  it('reads tail, capture and status on a node and on this host alike, redacted, read-gated by the node', async () => {
    const tail = await waitFor('remote tail', async () => {
      const t = await client.sessions.tail.query({ session: 'gpu:agent-there', lines: 20 });
      return t.text.includes('remote-marker') ? t : undefined;
    });
    expect(tail.session).toBe('gpu:agent-there');
    expect(tail.session_id).toMatch(/^gpu:\$\d+$/);
    expect(tail.text).not.toContain('Q7xQ7x');
    expect(tail.redactions).toBeGreaterThan(0);
    const capture = await client.sessions.capture.query({ session: 'gpu:agent-there', start_line: 0 });
    expect(capture.text).toContain('remote-marker');
    const status = await client.sessions.status.query({ session: 'gpu:agent-there' });
    expect(status.session).toBe('gpu:agent-there');
    expect(status.current_command).toBe('sleep');
    const here = await waitFor('local tail', async () => {
      const t = await client.sessions.tail.query({ session: 'agent-here', lines: 20 });
      return t.text.includes('local-marker') ? t : undefined;
    });
    expect(here.text).not.toContain('remote-marker');
    expect((await client.sessions.tail.query({ session: 'local:agent-here' })).text).toContain('local-marker');
    expect((await failureOf(client.sessions.tail.query({ session: 'gpu:private-notes' }))).code).toBe('SESSION_NOT_ALLOWED');
    expect((await failureOf(client.sessions.tail.query({ session: 'gpu:agent-the' }))).code).toBe('SESSION_NOT_FOUND');
  });

  it('reads one pane of a split node session exactly: listed, and tail and status by pane id and by window.pane', async () => {
    // -d: the first pane stays active, so a read without pane is still of it.
    const split = await remote.tmux(['split-window', '-d', '-P', '-F', '#{pane_id} #{window_index}.#{pane_index}', '-t', '=agent-there:', `bash --norc --noprofile -c 'echo split-pane-marker; exec cat'`]);
    const [paneId, ref] = split.split(' ') as [string, string];
    // Until bash has exec'd cat, tmux names the new pane's command bash (g41c, at load 5).
    const panes = await waitFor('the node lists both panes, the new one running cat', async () => {
      const p = await client.sessions.panes.query({ session: 'gpu:agent-there' });
      return p.panes.length === 2 && p.panes.some((x) => x.pane_id === paneId && x.current_command === 'cat') ? p : undefined;
    });
    expect(panes.panes.map((p) => [p.pane_id, p.active, p.current_command])).toEqual([
      [expect.stringMatching(/^%\d+$/), true, 'sleep'],
      [paneId, false, 'cat'],
    ]);
    for (const pane of [paneId, ref]) {
      const t = await waitFor(`the split pane by ${pane}`, async () => {
        const r = await client.sessions.tail.query({ session: 'gpu:agent-there', pane });
        return r.text.includes('split-pane-marker') ? r : undefined;
      });
      expect(t).toMatchObject({ session: 'gpu:agent-there', pane_id: paneId });
      expect(t.text).not.toContain('remote-marker');
    }
    const active = await client.sessions.tail.query({ session: 'gpu:agent-there' });
    expect(active.text).toContain('remote-marker');
    expect(active.text).not.toContain('split-pane-marker');
    expect((await client.sessions.status.query({ session: 'gpu:agent-there', pane: paneId })).current_command).toBe('cat');
    expect((await client.sessions.capture.query({ session: 'gpu:agent-there', pane: ref, start_line: 0 })).text).toContain('split-pane-marker');
    // A pane of another session of the node, or one that does not exist, is no way in.
    const other = (await remote.tmux(['display-message', '-p', '-t', '=private-notes:', '#{pane_id}'])).trim();
    for (const pane of [other, '%99999']) {
      const refused = await failureOf(client.sessions.tail.query({ session: 'gpu:agent-there', pane }));
      expect(refused).toMatchObject({ code: 'SESSION_NOT_FOUND', message: 'the session has no pane that matches pane' });
    }
    // Hostile pane texts never reach the node: refused at the boundary.
    for (const pane of ['%1;kill-server', '-t', '#{pane_id}', '0.0 ']) {
      expect((await failureOf(client.sessions.tail.query({ session: 'gpu:agent-there', pane }))).code, pane).toBe('INVALID_ARGUMENT');
    }
  });

  it('answers terminal_input_context for a node session from the node: its pane, its process tree, its gates, audited under node:session', async () => {
    const context = await client.input.context.query({ session: 'gpu:agent-there' });
    expect(context).toMatchObject({ session: 'gpu:agent-there', session_id: expect.stringMatching(/^gpu:\$\d+$/), current_command: 'sleep', foreground_program: 'sleep', foreground_is_shell: false, input_enabled: false });
    expect(context.text).toContain('remote-marker');
    expect(context.text).not.toContain('Q7xQ7x');
    expect(context.gates.text).toMatchObject({ allowed: false, error_code: 'INPUT_DISABLED' });
    // The split pane (the test above) by id: its own foreground.
    const panes = await client.sessions.panes.query({ session: 'gpu:agent-there' });
    const split = panes.panes.find((p) => !p.active)!;
    const splitContext = await client.input.context.query({ session: 'gpu:agent-there', pane: split.pane_id });
    expect(splitContext).toMatchObject({ pane_id: split.pane_id, current_command: 'cat', foreground_program: 'cat' });
    expect((await failureOf(client.input.context.query({ session: 'gpu:private-notes' }))).code).toBe('SESSION_NOT_ALLOWED');
    const db = new Database(join(broker.stateDir, 'audit.db'), { readonly: true });
    try {
      const rows = await waitFor('the context reads in the read audit', () => {
        const r = db.prepare("SELECT session_name, error_code FROM read_audit WHERE tool = 'terminal_input_context'").all() as { session_name: string; error_code: string | null }[];
        return r.length >= 3 ? r : undefined;
      });
      expect(rows).toEqual([
        { session_name: 'gpu:agent-there', error_code: null },
        { session_name: 'gpu:agent-there', error_code: null },
        { session_name: 'gpu:private-notes', error_code: 'SESSION_NOT_ALLOWED' },
      ]);
    } finally {
      db.close();
    }
  });

  it('waits on a node session until it asks, resumes a pending wait there, and audits the wait under node:session', async () => {
    await remote.newSession('agent-ask', `sh -c 'read go; printf "Proceed? [y/N] "; read x; exec sleep 3600'`);
    // Nothing asked yet: the wait is PENDING, with a token that resumes it on the node.
    const pending = await client.wait.forState.query({ session: 'gpu:agent-ask', states: ['WAITING_INPUT'], timeout_s: 0 });
    expect(pending).toMatchObject({ state: 'PENDING', session: 'gpu:agent-ask', session_id: expect.stringMatching(/^gpu:\$\d+$/) });
    expect(pending.resume_token).toEqual(expect.any(String));
    const resumed = client.wait.resume.query({ resume_token: pending.resume_token!, timeout_s: 20 });
    await remote.tmux(['send-keys', '-t', '=agent-ask:', 'Enter']);
    expect(await resumed).toMatchObject({ state: 'WAITING_INPUT', session: 'gpu:agent-ask', session_id: pending.session_id, resume_token: null });
    // A fresh wait ends at once now; a session the node's patterns do not admit is refused.
    expect(await client.wait.forState.query({ session: 'gpu:agent-ask', states: ['WAITING_INPUT', 'WAITING_HUMAN'], timeout_s: 1 })).toMatchObject({ state: 'WAITING_INPUT' });
    expect((await failureOf(client.wait.forState.query({ session: 'gpu:private-notes', states: ['IDLE'], timeout_s: 1 }))).code).toBe('SESSION_NOT_ALLOWED');
    // A session of the same name on this host is not the node's.
    expect((await failureOf(client.wait.forState.query({ session: 'agent-ask', states: ['IDLE'], timeout_s: 0 }))).code).toBe('SESSION_NOT_FOUND');
    // Read records are written in batches (every 200 ms): wait for the refusal's, the last one.
    const db = new Database(join(broker.stateDir, 'audit.db'), { readonly: true });
    try {
      const rows = await waitFor('the waits in the read audit', () => {
        const r = db.prepare("SELECT session_name, session_id, error_code FROM read_audit WHERE tool = 'terminal_wait_for_state' AND session_name LIKE 'gpu:%'").all() as { session_name: string; session_id: string | null; error_code: string | null }[];
        return r.some((row) => row.error_code === 'SESSION_NOT_ALLOWED') ? r : undefined;
      });
      expect(rows.filter((r) => r.error_code === null).length).toBeGreaterThan(0);
      for (const row of rows.filter((r) => r.error_code === null)) expect(row).toEqual({ session_name: 'gpu:agent-ask', session_id: pending.session_id, error_code: null });
      expect(rows.filter((r) => r.error_code !== null)).toEqual([{ session_name: 'gpu:private-notes', session_id: null, error_code: 'SESSION_NOT_ALLOWED' }]);
    } finally {
      db.close();
    }
  });

  it('reports EXECUTION_OK only for a node whose tmux answered, with its server pid', async () => {
    const { nodes } = await client.nodes.health.query({});
    const remotePid = Number(await remote.tmux(['display-message', '-p', '#{pid}']));
    expect(nodes.find((n) => n.node === 'gpu')).toMatchObject({ transport: 'up', execution: 'EXECUTION_OK', server_pid: remotePid });
    expect(nodes.find((n) => n.node === 'local')).toMatchObject({ transport: 'up', execution: 'EXECUTION_OK' });
    expect(nodes.find((n) => n.node === 'stranger')).toMatchObject({ transport: 'failed', execution: 'NOT_PROBED', reason: 'host key not known' });
  });

  it('shows each node in `terminal-mcp status`', async () => {
    const r = await runNode([repoPath('services/broker/dist/effects/launch/terminal-mcp.js'), 'status'], broker.env);
    expect(r.stdout).toMatch(/^nodes: +gpu: up, EXECUTION_OK, \d+ ms$/m);
    expect(r.stdout).toMatch(/^ +stranger: failed, NOT_PROBED \(host key not known\)/m);
    expect(r.stdout).toContain(`ssh-keyscan -p ${sshd.port} 127.0.0.1 >> ${sshd.emptyKnownHosts}`);
  });

  it('refuses a host whose key is not known, with the exact command to accept it, and accepts nothing itself', async () => {
    const err = await failureOf(client.sessions.tail.query({ session: 'stranger:agent-there' }));
    expect(err.code).toBe('NODE_UNAVAILABLE');
    expect(err.hint).toContain(`ssh-keyscan -p ${sshd.port} 127.0.0.1 >> ${sshd.emptyKnownHosts}`);
    expect(readFileSync(sshd.emptyKnownHosts, 'utf8')).toBe('');
  });

  it('refuses input to a node session while input is not enabled, and audits the refusal', async () => {
    for (const send of [
      client.input.sendText.mutate({ session: 'gpu:agent-there', text: 'hello' }),
      client.input.sendKeys.mutate({ session: 'gpu:agent-there', keys: ['Enter'] }),
    ]) {
      expect((await failureOf(send)).code).toBe('INPUT_DISABLED');
    }
    // A task answers with a receipt, also when it is refused.
    expect(await client.input.sendTask.mutate({ session: 'gpu:agent-there', text: 'hello' })).toMatchObject({ receipt: 'BLOCKED', error_code: 'INPUT_DISABLED', session: 'gpu:agent-there' });
    const db = new Database(join(broker.stateDir, 'audit.db'), { readonly: true });
    try {
      const rows = db.prepare("SELECT decision, error_code FROM input_audit WHERE session_name = 'gpu:agent-there'").all();
      expect(rows).toHaveLength(3);
      for (const row of rows) expect(row).toEqual({ decision: 'BLOCKED', error_code: 'INPUT_DISABLED' });
    } finally {
      db.close();
    }
  });

  it('never puts client text on an ssh command line', async () => {
    for (const session of [`-oProxyCommand=touch ${pwnFile}:x`, `gpu:-oProxyCommand=touch ${pwnFile}`, `gpu:x';touch ${pwnFile};'`, `%h:x`, 'gpu box:x']) {
      const err = await failureOf(client.sessions.tail.query({ session }));
      expect(['SESSION_NOT_FOUND', 'INVALID_ARGUMENT']).toContain(err.code);
    }
    expect(existsSync(pwnFile)).toBe(false);
    // The broker's own ssh processes: their ControlPath is under its state dir.
    const ssh = commandLines().filter((c) => c.startsWith('ssh ') && c.includes(broker.stateDir));
    expect(ssh.length).toBeGreaterThan(0);
    for (const c of ssh) expect(c).not.toMatch(/ProxyCommand|pwn|x';/);
  });

  it('answers NODE_UNAVAILABLE while sshd is gone, keeps this host readable, and picks the node up again', async () => {
    await sshd.kill();
    const err = await waitFor('the node to be down', async () => {
      const e = await failureOf(client.sessions.tail.query({ session: 'gpu:agent-there' })).catch(() => undefined);
      return e?.code === 'NODE_UNAVAILABLE' ? e : undefined;
    });
    expect(err.hint.length).toBeGreaterThan(0);
    const list = await client.sessions.list.query({});
    expect(list.nodes?.find((n) => n.node === 'gpu')?.state).toBe('down');
    expect(list.sessions.map((s) => s.name)).toContain('agent-here');
    const down = (await client.nodes.health.query({ node: 'gpu' })).nodes[0];
    expect(down?.execution).toBe('NOT_PROBED');
    expect(['backing_off', 'connecting']).toContain(down?.transport);
    expect((await client.sessions.tail.query({ session: 'agent-here' })).text).toContain('local-marker');

    await sshd.start();
    const back = await waitFor('the node to come back', async () => {
      try {
        const t = await client.sessions.tail.query({ session: 'gpu:agent-there' });
        return t.text.includes('remote-marker') ? t : undefined;
      } catch {
        return undefined;
      }
    });
    expect(back.session).toBe('gpu:agent-there');
    expect((await client.nodes.health.query({ node: 'gpu' })).nodes[0]).toMatchObject({ transport: 'up', execution: 'EXECUTION_OK' });
  });
});
