// Guards issue 32 in the product: `terminal-mcp stop` signals a pid from a record (supervisor.json, broker.lock, broker.json) only while it is provably the process the record was written about (pid plus start time); a recycled pid of an unrelated process, which may even run from this checkout, gets no signal at all.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { identityOf } from '@terminal-mcp/broker/process-identity';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { repoPath } from './helpers/repo.js';
import { cleanEnv, runNode, waitFor } from './helpers/run-node.js';

const CLI = repoPath('services/broker/dist/effects/launch/terminal-mcp.js');
const root = mkdtempSync(join(tmpdir(), 'tmcp-stop-id-'));
const decoys: ChildProcess[] = [];
let counter = 0;

/** An unrelated process that happens to have the pid a record names (as a recycled pid
 * would), and runs from this checkout with `start.mjs` in its command line, so a check of
 * the command line alone takes it for ours. It writes every signal it gets to its log. */
async function startDecoy(): Promise<{ child: ChildProcess; signals: () => string[] }> {
  const log = join(root, `decoy-${++counter}.log`);
  writeFileSync(log, '');
  const code = `const fs = require('node:fs');
for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2']) process.on(s, () => fs.appendFileSync(${JSON.stringify(log)}, s + '\\n'));
fs.appendFileSync(${JSON.stringify(log)}, 'ready\\n');
setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['-e', code, repoPath('scripts/start.mjs')], { cwd: repoPath(), stdio: 'ignore' });
  decoys.push(child);
  const lines = () => readFileSync(log, 'utf8').split('\n').filter(Boolean);
  await waitFor('the decoy to start', () => lines().includes('ready'));
  return { child, signals: () => lines().filter((l) => l !== 'ready') };
}

function stateEnv(): { env: NodeJS.ProcessEnv; socketDir: string } {
  const dir = join(root, `state-${++counter}`);
  const socketDir = join(dir, 'run');
  mkdirSync(socketDir, { recursive: true, mode: 0o700 });
  return { env: cleanEnv({ TERMINAL_MCP_STATE_DIR: join(dir, 'state'), TERMINAL_MCP_SOCKET_DIR: socketDir, TERMINAL_MCP_TMUX_SOCKET: 'tmcp-test-stop-never-started' }), socketDir };
}

const WRONG_START = '1'; // no process still running started one tick after boot

function supervisorRecord(pid: number, start: string | undefined, children: { name: string; pid: number; pid_start?: string }[]) {
  return { pid, ...(start === undefined ? {} : { pid_start: start }), started_at: new Date().toISOString(), checkout: repoPath(), owns_broker: true, children: children.map((c) => ({ url: null, log: null, ...c })) };
}

function brokerRecord(pid: number, start: string | undefined) {
  return {
    pid,
    ...(start === undefined ? {} : { pid_start: start }),
    version: 'test',
    started_at: new Date().toISOString(),
    config_path: null,
    config: { terminal_read: true, terminal_input: false, allowed_session_patterns: [], input_allowed_session_patterns: null, input_denied_session_patterns: [], log_level: 'info' },
    state_dir: '/nonexistent',
    socket_dir: '/nonexistent',
    tmux_socket: null,
    idle_exit_seconds: 0,
  };
}

afterEach(() => {
  for (const d of decoys.splice(0)) d.kill('SIGKILL');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('terminal-mcp stop never signals a process it cannot prove is its own', () => {
  it('a supervisor record whose pids now belong to other processes (start times differ)', async () => {
    const supervisor = await startDecoy();
    const service = await startDecoy();
    const { env, socketDir } = stateEnv();
    writeFileSync(join(socketDir, 'supervisor.json'), JSON.stringify(supervisorRecord(supervisor.child.pid!, WRONG_START, [{ name: 'gateway', pid: service.child.pid!, pid_start: WRONG_START }])));
    const r = await runNode([CLI, 'stop'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('nothing was running');
    expect(supervisor.signals()).toEqual([]);
    expect(service.signals()).toEqual([]);
  });

  it('a supervisor record of an older version (no start times): named, not signalled', async () => {
    const supervisor = await startDecoy();
    const service = await startDecoy();
    const { env, socketDir } = stateEnv();
    writeFileSync(join(socketDir, 'supervisor.json'), JSON.stringify(supervisorRecord(supervisor.child.pid!, undefined, [{ name: 'web', pid: service.child.pid! }])));
    const r = await runNode([CLI, 'stop'], env);
    expect(r.stdout).toContain(`npm start supervisor: pid ${supervisor.child.pid} is alive but cannot be proven`);
    expect(r.stdout).toContain(`web: pid ${service.child.pid} is alive but cannot be proven`);
    expect(supervisor.signals()).toEqual([]);
    expect(service.signals()).toEqual([]);
  });

  it('a broker.lock left by a crash whose pid now runs something else', async () => {
    const other = await startDecoy();
    const { env, socketDir } = stateEnv();
    writeFileSync(join(socketDir, 'broker.lock'), `${other.child.pid}\n`);
    const alone = await runNode([CLI, 'stop'], env);
    expect(alone.stdout).toContain(`pid ${other.child.pid} is alive but cannot be proven`);
    // With a broker.json naming that pid but another start time: still not the broker.
    writeFileSync(join(socketDir, 'broker.json'), JSON.stringify(brokerRecord(other.child.pid!, WRONG_START)));
    const recorded = await runNode([CLI, 'stop'], env);
    expect(recorded.stdout).toContain(`pid ${other.child.pid} is alive but cannot be proven`);
    expect(other.signals()).toEqual([]);
  });

  it('signals a recorded process while it is provably the one recorded (so the check is not "never")', async () => {
    const service = await startDecoy();
    const { env, socketDir } = stateEnv();
    const id = identityOf(service.child.pid!)!;
    writeFileSync(join(socketDir, 'supervisor.json'), JSON.stringify(supervisorRecord(999_999_999, WRONG_START, [{ name: 'observer', pid: id.pid, pid_start: id.start }])));
    const stopping = runNode([CLI, 'stop'], env);
    await waitFor('SIGTERM to reach the recorded process', () => service.signals().includes('SIGTERM'));
    service.child.kill('SIGKILL'); // it ignores SIGTERM; stop would wait 20 s, then SIGKILL it
    expect((await stopping).stdout).toMatch(/observer \(pid \d+\)/);
    expect(service.signals()).toEqual(['SIGTERM']);
  });
});
