// Guards terminal_run on node:session over a real sshd and a real remote tmux: the exit status and the output lines come back from a bash on the node, through FIFOs the node holds (made by the run's helper on an ssh channel, removed once the run is answered); hostile command text runs exactly as typed; printed text that looks like the helper's or a status ends nothing; a run past its limit answers RUNNING and its resume token collects it from the node, and a resume while the node is down answers NODE_UNAVAILABLE and keeps the token, which later collects the run as NO_STATUS with its output (the helper holding its FIFOs went with the link); the audit row names the node.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createBrokerClient, type BrokerClient } from '@terminal-mcp/broker-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrokerProcess } from './helpers/broker-process.js';
import { startNodeFixture, type NodeFixture } from './helpers/node-fixture.js';
import { failureOf } from './helpers/broker-failure.js';
import { sshdUnavailable, type TestSshd } from './helpers/sshd.js';
import type { TmuxTestServer } from './helpers/tmux-server.js';
import { waitFor } from './helpers/wait-for.js';

const unavailable = sshdUnavailable();
if (unavailable !== undefined) console.log(`skipping the terminal_run on nodes tests: ${unavailable}`);

let remote: TmuxTestServer;
let sshd: TestSshd;
let broker: BrokerProcess;
let fixture: NodeFixture | undefined;
let client: BrokerClient<'gateway'>;
let dir: string;

const SHELL = "env PS1='$ ' HISTFILE=/dev/null bash --norc --noprofile -i";

function auditRow(id: number): { tool: string; decision: string; session_name: string | null; server_pid: number | null } {
  const db = new Database(join(broker.stateDir, 'audit.db'), { readonly: true });
  try {
    return db.prepare('SELECT tool, decision, session_name, server_pid FROM input_audit WHERE id = ?').get(id) as ReturnType<typeof auditRow>;
  } finally {
    db.close();
  }
}

/** The FIFO directories the typed lines on the remote pane named (the helper's, on the node). */
async function typedDirs(session: string): Promise<string[]> {
  const screen = await remote.tmux(['capture-pane', '-p', '-J', '-S', '-', '-t', `=${session}:`]);
  return [...new Set([...screen.matchAll(/'(\/[^']+)\/status'/g)].map((m) => m[1]!))];
}

describe.skipIf(unavailable !== undefined)('terminal_run on a node over a real sshd', { timeout: 180_000 }, () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tmcp-node-run-'));
    // Test-only holds of a node run (effects/fault-injection.ts): open unless a test closes them.
    for (const stage of ['before-open', 'after-typed']) writeFileSync(join(dir, `${stage}.go`), '');
    fixture = await startNodeFixture({
      env: { TERMINAL_MCP_TEST_HOLD_NODE_RUN: dir },
      config: { allowed_session_patterns: ['agent-*'], permissions: { terminal_input: true } },
      node: { allowed_session_patterns: ['agent-*'], input_session_patterns: ['agent-*'] },
      sessions: async (_here, there) => {
        await there.newSession('agent-run', SHELL, { width: 160, height: 40 });
        await there.newSession('agent-long', SHELL, { width: 160, height: 40 });
        await there.newSession('agent-cut', SHELL, { width: 160, height: 40 });
      },
    });
    ({ remote, sshd, broker } = fixture);
    client = createBrokerClient({ role: 'gateway', socketPath: join(broker.socketDir, 'gateway.sock') });
    for (const s of ['agent-run', 'agent-long', 'agent-cut']) {
      await waitFor(`${s}'s prompt`, async () => (await remote.tmux(['capture-pane', '-p', '-t', `=${s}:`])).includes('$') || undefined);
    }
  });

  afterAll(async () => {
    await fixture?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers the exit status and the output of a command run on the node, audited with the node, and removes its FIFOs', async () => {
    const r = await client.input.run.mutate({ session: 'gpu:agent-run', command: 'echo on-node-out; echo second-line; (exit 3)', timeout_s: 20 });
    expect(r).toMatchObject({ state: 'DONE', exit_status: 3, session: 'gpu:agent-run', output: 'on-node-out\nsecond-line', output_lines: 2 });
    const remotePid = Number(await remote.tmux(['display-message', '-p', '#{pid}']));
    expect(auditRow(r.audit_id)).toMatchObject({ tool: 'terminal_run', decision: 'SENT', session_name: 'gpu:agent-run', server_pid: remotePid });
    const dirs = await typedDirs('agent-run');
    expect(dirs.length).toBe(1);
    // The helper removes its directory once the broker ends its channel.
    await waitFor('the run directory removed on the node', () => !existsSync(dirs[0]!) || undefined);
    const ok = await client.input.run.mutate({ session: 'gpu:agent-run', command: 'true', timeout_s: 20 });
    expect(ok).toMatchObject({ state: 'DONE', exit_status: 0, output_lines: 0 });
  });

  it('runs hostile command text exactly as typed, and printed status-like or helper-like text ends nothing', async () => {
    const hostile = `printf '%s|' "a;b" "$(echo sub)" 'q"uote' '-n'; echo; echo 'dir /tmp/forged'; echo 0; sleep 1; echo after-forgery`;
    const r = await client.input.run.mutate({ session: 'gpu:agent-run', command: hostile, timeout_s: 20 });
    expect(r).toMatchObject({ state: 'DONE', exit_status: 0 });
    expect(r.output.split('\n')).toEqual(['a;b|sub|q"uote|-n|', 'dir /tmp/forged', '0', 'after-forgery']);
    const missing = await client.input.run.mutate({ session: 'gpu:agent-run', command: 'no-such-command-tmcp', timeout_s: 20 });
    expect(missing.exit_status).toBe(127);
  });

  it('answers RUNNING past its limit, and the resume token collects the end from the node', async () => {
    const first = await client.input.run.mutate({ session: 'gpu:agent-long', command: 'sleep 4; echo late-out', timeout_s: 1 });
    expect(first.state).toBe('RUNNING');
    expect(first.resume_token).toEqual(expect.any(String));
    const done = await client.input.run.mutate({ resume_token: first.resume_token!, timeout_s: 20 });
    expect(done).toMatchObject({ state: 'DONE', exit_status: 0, session: 'gpu:agent-long', output: 'late-out' });
    const dirs = await typedDirs('agent-long');
    await waitFor('the run directory removed on the node', () => dirs.every((d) => !existsSync(d)) || undefined);
  });

  it('a resume while the node is down answers NODE_UNAVAILABLE and keeps the token, which collects the run once the node is back (NO_STATUS: its FIFOs went with the link)', async () => {
    const first = await client.input.run.mutate({ session: 'gpu:agent-long', command: 'sleep 2; echo after-the-outage', timeout_s: 1 });
    expect(first.state).toBe('RUNNING');
    const nodeState = async () => (await client.sessions.list.query({})).nodes?.find((n) => n.node === 'gpu')?.state;
    await sshd.kill();
    try {
      await waitFor('the node down', async () => (await nodeState()) === 'down' || undefined);
      const down = await failureOf(client.input.run.mutate({ resume_token: first.resume_token!, timeout_s: 5 }));
      expect(down.code).toBe('NODE_UNAVAILABLE');
    } finally {
      await sshd.start();
    }
    await waitFor('the node up again', async () => (await nodeState()) === 'up' || undefined);
    // The helper holding the run's FIFOs went with the link (sshd killed every session
    // process), so the status line found no pair: the shell is back at its prompt with no
    // status, and the output is there.
    const after = await client.input.run.mutate({ resume_token: first.resume_token!, timeout_s: 20 });
    expect(after).toMatchObject({ state: 'NO_STATUS', exit_status: null, session: 'gpu:agent-long', output: 'after-the-outage' });
  });
  it('a link cut before anything was typed answers NODE_UNAVAILABLE (audited FAILED, nothing typed); cut after typing, DELIVERY_UNKNOWN', async () => {
    const nodeState = async () => (await client.sessions.list.query({})).nodes?.find((n) => n.node === 'gpu')?.state;
    /** Runs `command` held at `stage`, with sshd killed while it is held. */
    const cutAt = async (stage: 'before-open' | 'after-typed', command: string) => {
      rmSync(join(dir, `${stage}.reached`), { force: true });
      rmSync(join(dir, `${stage}.go`), { force: true });
      const running = failureOf(client.input.run.mutate({ session: 'gpu:agent-cut', command, timeout_s: 20 }));
      await waitFor(`the run held at ${stage}`, () => existsSync(join(dir, `${stage}.reached`)) || undefined);
      await sshd.kill();
      writeFileSync(join(dir, `${stage}.go`), '');
      try {
        return await running;
      } finally {
        await sshd.start();
        await waitFor('the node up again', async () => (await nodeState()) === 'up' || undefined);
      }
    };
    const before = await remote.tmux(['capture-pane', '-p', '-J', '-S', '-', '-t', '=agent-cut:']);
    const early = await cutAt('before-open', 'echo cut-before-typing');
    expect(early.code).toBe('NODE_UNAVAILABLE');
    expect(early.message).toMatch(/before anything was typed/);
    expect(await remote.tmux(['capture-pane', '-p', '-J', '-S', '-', '-t', '=agent-cut:'])).toBe(before);
    const db = new Database(join(broker.stateDir, 'audit.db'), { readonly: true });
    try {
      const row = db.prepare("SELECT decision, error_code FROM input_audit WHERE session_name = 'gpu:agent-cut' ORDER BY id DESC LIMIT 1").get();
      expect(row).toEqual({ decision: 'FAILED', error_code: 'NODE_UNAVAILABLE' });
    } finally {
      db.close();
    }
    const late = await cutAt('after-typed', 'sleep 1; echo cut-after-typing');
    expect(late.code).toBe('DELIVERY_UNKNOWN');
    expect(late.message).toMatch(/was typed on node gpu/);
    await waitFor('the command ran on the node', async () => (await remote.tmux(['capture-pane', '-p', '-J', '-S', '-', '-t', '=agent-cut:'])).includes('\ncut-after-typing') || undefined);
  });
});
