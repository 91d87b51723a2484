// Guards input to node:session end to end over a real sshd and a real remote tmux: hostile text arrives byte-exact through the node's paste buffer, a guarded command in the remote pane's process tree refuses input (read on the node over ssh), and with sshd killed mid-session the next send answers NODE_UNAVAILABLE within a bound, is audited as not sent (or unknown), and after sshd is back the text lands exactly once.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
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
if (unavailable !== undefined) console.log(`skipping the remote-node input tests: ${unavailable}`);

/** How long one send may take while the node is gone: ssh's connect timeout (15 s) plus
 * the node's command bounds, for a machine five times slower. A limit, not a measurement. */
const SEND_WHILE_DOWN_LIMIT_MS = 120_000;

let remote: TmuxTestServer;
let sshd: TestSshd;
let broker: BrokerProcess;
let fixture: NodeFixture | undefined;
let client: BrokerClient<'gateway'>;
let dir: string;

const HOSTILE = `-n ; echo pwned $(touch /tmp/tmcp-pwn-node) \`id\` 'single' "double" #{pane_id} %1 \\ end`;

/** What `cat > file` in the pane has written so far. */
const written = (name: string) => {
  try {
    return readFileSync(join(dir, name), 'utf8');
  } catch {
    return '';
  }
};

function auditRow(id: number): { decision: string; error_code: string | null; session_name: string | null; session_id: string | null; server_pid: number | null; pane_id: string | null } {
  const db = new Database(join(broker.stateDir, 'audit.db'), { readonly: true });
  try {
    return db.prepare('SELECT decision, error_code, session_name, session_id, server_pid, pane_id FROM input_audit WHERE id = ?').get(id) as ReturnType<typeof auditRow>;
  } finally {
    db.close();
  }
}

function lastAuditRow(tool: string): { id: number; decision: string; error_code: string | null; session_name: string | null } | undefined {
  const db = new Database(join(broker.stateDir, 'audit.db'), { readonly: true });
  try {
    return db.prepare('SELECT id, decision, error_code, session_name FROM input_audit WHERE tool = ? ORDER BY id DESC LIMIT 1').get(tool) as ReturnType<typeof lastAuditRow>;
  } finally {
    db.close();
  }
}

const occurrences = (text: string, needle: string) => text.split(needle).length - 1;

describe.skipIf(unavailable !== undefined)('input to nodes over a real sshd', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tmcp-node-input-'));
    // A program named like a guarded command: `ssh` here is a symlink to sleep, so only
    // its name (the kernel's comm, argv[0]) says ssh.
    mkdirSync(join(dir, 'bin'));
    symlinkSync('/bin/sleep', join(dir, 'bin', 'ssh'));
    fixture = await startNodeFixture({
      config: { allowed_session_patterns: ['agent-*'], permissions: { terminal_input: true } },
      node: { allowed_session_patterns: ['agent-*', 'other-*'], input_session_patterns: ['agent-*'] },
      sessions: async (here, there) => {
        await here.newSession('agent-here', `bash --norc --noprofile -c 'exec sleep 3600'`);
        await there.newSession('agent-in', `bash --norc --noprofile -c 'exec cat > ${join(dir, 'in.txt')}'`);
        await there.newSession('agent-down', `bash --norc --noprofile -c 'exec cat > ${join(dir, 'down.txt')}'`);
        // The foreground is cat, waiting for input; a guarded command runs beside it.
        await there.newSession('agent-guarded', `bash --norc --noprofile -c '${join(dir, 'bin', 'ssh')} 3600 & exec cat > /dev/null'`);
        await there.newSession('other-box', `bash --norc --noprofile -c 'exec cat > /dev/null'`);
      },
    });
    ({ remote, sshd, broker } = fixture);
    client = createBrokerClient({ role: 'gateway', socketPath: join(broker.socketDir, 'gateway.sock') });
  });

  afterAll(async () => {
    await fixture?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('delivers hostile text to a node session exactly, audited with the node and its tmux server pid', async () => {
    const sent = await client.input.sendText.mutate({ session: 'gpu:agent-in', text: HOSTILE, enter: true });
    expect(sent.result).toBe('SENT');
    expect(sent.session).toBe('gpu:agent-in');
    expect(sent.session_id).toMatch(/^gpu:\$\d+$/);
    await waitFor('the text in the file', () => written('in.txt') === `${HOSTILE}\n` || undefined);
    expect(readFileSync(join(dir, 'in.txt'), 'utf8')).toBe(`${HOSTILE}\n`);
    expect(existsSync('/tmp/tmcp-pwn-node')).toBe(false);
    const remotePid = Number(await remote.tmux(['display-message', '-p', '#{pid}']));
    expect(auditRow(sent.audit_id)).toMatchObject({ decision: 'SENT', session_name: 'gpu:agent-in', session_id: sent.session_id, server_pid: remotePid });
    // Keys too, through the same attempt.
    const keys = await client.input.sendKeys.mutate({ session: 'gpu:agent-in', keys: ['Enter'] });
    expect(keys.result).toBe('SENT');
    await waitFor('the Enter in the file', () => written('in.txt') === `${HOSTILE}\n\n` || undefined);
  });

  it('types into the pane named inside a node session, never its active pane', async () => {
    await remote.newSession('agent-split', `bash --norc --noprofile -c 'exec cat > ${join(dir, 'active.txt')}'`);
    // -d: the first pane stays active.
    const paneId = (await remote.tmux(['split-window', '-d', '-P', '-F', '#{pane_id}', '-t', '=agent-split:', `bash --norc --noprofile -c 'exec cat > ${join(dir, 'split.txt')}'`])).trim();
    await waitFor('both cats reading', async () => (await remote.tmux(['list-panes', '-t', '=agent-split:', '-F', '#{pane_current_command}'])).split('\n').every((c) => c === 'cat') || undefined);
    const sent = await client.input.sendText.mutate({ session: 'gpu:agent-split', pane: paneId, text: 'to-the-split-pane', enter: true });
    expect(sent).toMatchObject({ result: 'SENT', session: 'gpu:agent-split' });
    await waitFor('the text in the split pane\'s file', () => written('split.txt') === 'to-the-split-pane\n' || undefined);
    expect(written('active.txt')).toBe('');
    expect(auditRow(sent.audit_id)).toMatchObject({ decision: 'SENT', session_name: 'gpu:agent-split', pane_id: paneId });
  });

  it('types a task into a node session and confirms it was taken', async () => {
    const task = await client.input.sendTask.mutate({ session: 'gpu:agent-in', text: 'task-on-node-1' });
    expect(task.session).toBe('gpu:agent-in');
    expect(['SUBMIT_CONFIRMED', 'DELIVERY_UNKNOWN']).toContain(task.receipt);
    await waitFor('the task in the file', () => written('in.txt').endsWith('task-on-node-1\n') || undefined);
    expect(occurrences(written('in.txt'), 'task-on-node-1')).toBe(1);
  });

  it("refuses input where the node's input patterns do not admit, a guarded command runs in the remote tree, or terminal_run's foreground is no shell", async () => {
    expect((await failureOf(client.input.sendText.mutate({ session: 'gpu:other-box', text: 'x' }))).code).toBe('INPUT_NOT_ALLOWED');
    const guarded = await failureOf(client.input.sendText.mutate({ session: 'gpu:agent-guarded', text: 'hello' }));
    expect(guarded.code).toBe('COMMAND_GUARDED');
    expect(lastAuditRow('terminal_send_text')).toMatchObject({ decision: 'BLOCKED', error_code: 'COMMAND_GUARDED', session_name: 'gpu:agent-guarded' });
    // agent-in's foreground is cat: terminal_run's shell gate, judged on the node's tree.
    const run = await failureOf(client.input.run.mutate({ session: 'gpu:agent-in', command: 'true' }));
    expect(run.code).toBe('FOREGROUND_NOT_ALLOWED');
    expect(run.message).toContain('terminal_send_task');
    expect((await failureOf(client.input.sendText.mutate({ session: 'nope:agent-in', text: 'x' }))).code).toBe('SESSION_NOT_FOUND');
  });

  it('answers NODE_UNAVAILABLE while sshd is gone, audits the attempt, and after sshd is back the text lands exactly once', async () => {
    const text = 'once-only-line-42';
    await sshd.kill();
    let sendError: Awaited<ReturnType<typeof failureOf>> | undefined;
    await Promise.race([
      failureOf(client.input.sendText.mutate({ session: 'gpu:agent-down', text, enter: true })).then((e) => (sendError = e)),
      new Promise((resolve) => setTimeout(resolve, SEND_WHILE_DOWN_LIMIT_MS).unref()),
    ]);
    expect(sendError?.code).toBe('NODE_UNAVAILABLE');
    expect(sendError?.hint.length).toBeGreaterThan(0);
    const row = lastAuditRow('terminal_send_text');
    expect(row?.session_name).toBe('gpu:agent-down');
    expect(['BLOCKED', 'FAILED', 'DELIVERY_UNKNOWN']).toContain(row?.decision);

    await sshd.start();
    await waitFor('the node to come back', async () => (await client.sessions.list.query({})).nodes?.find((n) => n.node === 'gpu')?.state === 'up');
    // Nothing is ever re-sent by the broker: the caller sends again only when the audit
    // says nothing was typed (or the pane shows nothing).
    if (row?.decision !== 'DELIVERY_UNKNOWN' || !written('down.txt').includes(text)) {
      const sent = await waitFor('a send after the node is back', async () => {
        try {
          return await client.input.sendText.mutate({ session: 'gpu:agent-down', text, enter: true });
        } catch (err) {
          if ((await failureOf(Promise.reject(err))).code === 'NODE_UNAVAILABLE') return undefined;
          throw err;
        }
      });
      expect(sent.result).toBe('SENT');
    }
    await waitFor('the line in the file', () => written('down.txt').includes(`${text}\n`) || undefined);
    const pane = await remote.tmux(['capture-pane', '-p', '-t', '=agent-down:']);
    expect(occurrences(written('down.txt'), text)).toBe(1);
    expect(occurrences(pane, text)).toBe(1);
  });
});
