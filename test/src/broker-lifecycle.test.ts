// Guards the broker process lifecycle: a bad config stops it with the key named, one broker per socket dir, clean shutdown, `terminal-mcp` starting a broker when none runs, and that broker exiting when idle (only that one).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { BROKER_NODE_FLAGS } from '@terminal-mcp/broker/node-flags';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess } from './helpers/broker-process.js';
import { ownedProcess, stopOwned } from './helpers/owned-process.js';
import { GENEROUS_WAIT_MS } from './helpers/wait-for.js';
import { repoPath } from './helpers/repo.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';

const BROKER = repoPath('services/broker/dist/bin/main.js');
const LAUNCHER = repoPath('services/broker/dist/effects/launch/terminal-mcp.js');
let tmux: TmuxTestServer;
let dirs: string[] = [];

function privateEnv(extra: Record<string, string> = {}): Record<string, string> {
  const root = mkdtempSync(join(tmpdir(), 'tmcp-life-'));
  dirs.push(root);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'TMUX' && k !== 'TMUX_PANE') env[k] = v;
  return { ...env, TERMINAL_MCP_STATE_DIR: join(root, 'state'), TERMINAL_MCP_SOCKET_DIR: join(root, 'run'), TERMINAL_MCP_TMUX_SOCKET: tmux.socketName, ...extra };
}

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // Only a hung broker meets this: one that starts and refuses took over 20 s on a busy machine.
    const timer = setTimeout(() => child.kill('SIGKILL'), GENEROUS_WAIT_MS);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

beforeAll(async () => {
  tmux = await startTmuxServer();
  await tmux.newSession('test-life', 'bash --norc --noprofile');
});
afterAll(async () => {
  // A broker the launcher started runs detached and outlives a failed test until its idle
  // exit: stop any that still holds one of this file's private socket directories.
  for (const d of dirs) {
    const socketDir = join(d, 'run');
    const holder = readLockPid(socketDir);
    const id = holder === undefined ? undefined : ownedProcess(holder, `TERMINAL_MCP_SOCKET_DIR=${socketDir}`);
    if (id) await stopOwned(id);
  }
  await tmux?.kill();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

function readLockPid(socketDir: string): number | undefined {
  try {
    return Number.parseInt(readFileSync(join(socketDir, 'broker.lock'), 'utf8'), 10);
  } catch {
    return undefined;
  }
}

describe('config validation at start-up', () => {
  it.each([
    ['max_capture_lines: many\n', /key 'max_capture_lines' has value "many"/],
    ['permisions: {}\n', /unknown key 'permisions'/],
  ])('refuses %j, exit code 2, naming the key', async (text, message) => {
    const env = privateEnv();
    const configPath = join(env.TERMINAL_MCP_STATE_DIR!, '..', 'config.yaml');
    writeFileSync(configPath, text);
    const r = await run([BROKER], { ...env, TERMINAL_MCP_CONFIG: configPath });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it.each([
    ['TERMINAL_MCP_BROKER_IDLE_EXIT_SECONDS', '5m'],
    ['TERMINAL_MCP_LOG_LEVEL', 'loud'],
  ])('refuses %s=%j, exit code 2, naming the variable', async (name, value) => {
    const r = await run([BROKER], privateEnv({ [name]: value }));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(name);
  });

  it('refuses a configured file that does not exist instead of falling back to defaults', async () => {
    const r = await run([BROKER], privateEnv({ TERMINAL_MCP_CONFIG: '/nonexistent/terminal-mcp.yaml' }));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('cannot read the file');
  });
});

describe('one broker per socket directory', () => {
  it('a second broker refuses to start and leaves the first serving; SIGTERM removes the lock', async () => {
    const first = await startBrokerProcess({ tmuxSocket: tmux.socketName });
    try {
      const second = await run([BROKER], first.env as Record<string, string>);
      expect(second.code).toBe(2);
      expect(second.stderr).toMatch(/another broker \(pid \d+\) is already serving/);
      for (const role of ['gateway', 'observer', 'web', 'notifier']) {
        expect(statSync(join(first.socketDir, `${role}.sock`)).mode & 0o777).toBe(0o660);
      }
      expect(statSync(first.socketDir).mode & 0o777).toBe(0o700);
    } finally {
      await first.stop();
    }
  });
});

describe('terminal-mcp (stdio launcher)', () => {
  it('starts a broker in the background when none answers, says so on stderr, and serves MCP', async () => {
    const env = privateEnv();
    const transport = new StdioClientTransport({ command: process.execPath, args: [LAUNCHER], env, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const client = new Client({ name: 'launcher-test', version: '0' });
    await client.connect(transport);
    try {
      const r = await client.callTool({ name: 'terminal_list_sessions', arguments: {} });
      expect(r.isError).toBeFalsy();
      expect(JSON.stringify(r.content)).toContain('test-life');
      expect(stderr).toMatch(/no broker was running; started one in the background \(pid (\d+)\)/);
      expect(existsSync(join(env.TERMINAL_MCP_SOCKET_DIR!, 'gateway.sock'))).toBe(true);
      // The launched broker runs with the broker's node flags (effects/launch/node-flags.ts).
      const brokerPid = Number(/pid (\d+)\)/.exec(stderr)?.[1]);
      expect(readFileSync(`/proc/${brokerPid}/cmdline`, 'utf8').split('\0').slice(1, 1 + BROKER_NODE_FLAGS.length)).toEqual([...BROKER_NODE_FLAGS]);
    } finally {
      await client.close();
      // The launcher started it detached: signalled only once proven to be this test's.
      const pid = Number(/pid (\d+)\)/.exec(stderr)?.[1]);
      const launched = ownedProcess(pid, `TERMINAL_MCP_SOCKET_DIR=${env.TERMINAL_MCP_SOCKET_DIR}`);
      expect(launched, `the broker the launcher started (pid ${pid})`).toBeDefined();
      await stopOwned(launched!);
      expect(existsSync(join(env.TERMINAL_MCP_SOCKET_DIR!, 'broker.lock'))).toBe(false);
    }
  });
});

describe('idle exit of a broker the launcher started', () => {
  it('stays up while a client is connected, even when it is quiet, and exits after the idle period once the client is gone', async () => {
    const env = privateEnv({ TERMINAL_MCP_BROKER_IDLE_EXIT_SECONDS: '2' });
    const lock = join(env.TERMINAL_MCP_SOCKET_DIR!, 'broker.lock');
    const transport = new StdioClientTransport({ command: process.execPath, args: [LAUNCHER], env, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const client = new Client({ name: 'idle-test', version: '0' });
    await client.connect(transport);
    const first = await client.callTool({ name: 'terminal_list_sessions', arguments: {} });
    expect(first.isError).toBeFalsy();
    expect(stderr).toMatch(/logs in .*logs\/broker\.log; it exits after 2 s with no client/);
    const pid = Number(/pid (\d+)\)/.exec(stderr)?.[1]);
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    try {
      // Quiet for longer than any HTTP keep-alive (server 5 s, client 10 s) plus the idle
      // period: only the launcher's held connection keeps the broker now.
      await new Promise((r) => setTimeout(r, 14_000));
      expect(alive()).toBe(true);
      const again = await client.callTool({ name: 'terminal_list_sessions', arguments: {} });
      expect(again.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && (alive() || existsSync(lock))) await new Promise((r) => setTimeout(r, 200));
    expect(alive()).toBe(false);
    expect(existsSync(lock)).toBe(false);
    expect(existsSync(join(env.TERMINAL_MCP_STATE_DIR!, 'logs', 'broker.log'))).toBe(true);
  }, 120_000);

  it('a broker started directly (npm start, systemd) never exits when idle', async () => {
    const broker = await startBrokerProcess({ tmuxSocket: tmux.socketName });
    try {
      await new Promise((r) => setTimeout(r, 3_000));
      const state = JSON.parse(readFileSync(join(broker.socketDir, 'broker.json'), 'utf8'));
      expect(state.idle_exit_seconds).toBe(0);
      expect(state.pid).toBe(broker.pid);
      process.kill(broker.pid, 0);
    } finally {
      await broker.stop();
    }
  });
});
