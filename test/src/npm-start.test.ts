// Guards `npm start` (scripts/start.mjs): the banner comes once every service is ready and shows the broker's config (transcripts on by default: a readable session is recorded); a second start says "already running" and exits 0; a reused broker with another config is reported; SIGKILL of the supervisor leaves no orphan holding a port or the broker lock; `terminal-mcp stop` stops it all; the service log files hold JSON lines only.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BROKER_NODE_FLAGS } from '@terminal-mcp/broker/node-flags';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess } from './helpers/broker-process.js';
import { freePort, portAnswers } from './helpers/ports.js';
import { pidAlive } from './helpers/owned-process.js';
import { repoPath } from './helpers/repo.js';
import { cleanEnv, runNode, waitFor } from './helpers/run-node.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';

const START = repoPath('scripts/start.mjs');
const CLI = repoPath('services/broker/dist/effects/launch/terminal-mcp.js');
let tmux: TmuxTestServer;
const roots: string[] = [];
const started: ChildProcess[] = [];

const alive = pidAlive;

async function privateEnv(extra: Record<string, string> = {}): Promise<NodeJS.ProcessEnv> {
  const root = mkdtempSync(join(tmpdir(), 'tmcp-start-'));
  roots.push(root);
  return cleanEnv({
    TERMINAL_MCP_STATE_DIR: join(root, 'state'),
    TERMINAL_MCP_SOCKET_DIR: join(root, 'run'),
    TERMINAL_MCP_TMUX_SOCKET: tmux.socketName,
    TERMINAL_MCP_GATEWAY_PORT: String(await freePort()),
    TERMINAL_MCP_OBSERVER_PORT: String(await freePort()),
    TERMINAL_MCP_WEB_PORT: String(await freePort()),
    // The suite runs on a built tree; a test must never rebuild it under other tests.
    TERMINAL_MCP_START_SKIP_BUILD: '1',
    ...extra,
  });
}

async function startUntilBanner(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; out: () => string }> {
  const child = spawn(process.execPath, [START], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  await waitFor('the npm start banner', () => {
    if (child.exitCode !== null) throw new Error(`npm start exited (${child.exitCode}):\n${out}`);
    return out.includes('Ctrl-C stops everything');
  }, 120_000);
  return { child, out: () => out };
}

beforeAll(async () => {
  tmux = await startTmuxServer();
  await tmux.newSession('test-start', 'bash --norc --noprofile');
});
afterAll(async () => {
  for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
  for (const c of started) if (c.exitCode === null && c.signalCode === null) await new Promise((r) => c.once('exit', r));
  await tmux?.kill();
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

describe('npm start', () => {
  it('prints the banner once everything answers, refuses a second start politely, and leaves no orphan when SIGKILLed', async () => {
    const env = await privateEnv();
    const { child, out } = await startUntilBanner(env);
    const banner = out();
    expect(banner).toContain(`http://127.0.0.1:${env.TERMINAL_MCP_GATEWAY_PORT}/mcp`);
    // Never open to every local user: a token made at first start, said in the banner.
    expect(banner).toContain(`protected by a bearer token (made at first start, ${join(env.TERMINAL_MCP_STATE_DIR!, 'gateway-token.key')}`);
    const token = /Authorization: Bearer (tmcp_gw_[\w-]+)/.exec((await runNode([CLI, 'client-config', 'http'], env)).stdout)?.[1];
    expect(token).toMatch(/^tmcp_gw_[\w-]{43}$/);
    const mcp = (authorization?: string) =>
      fetch(`http://127.0.0.1:${env.TERMINAL_MCP_GATEWAY_PORT}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(authorization ? { authorization } : {}) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'other-user', version: '0' } } }),
      });
    expect((await mcp()).status).toBe(401);
    expect((await mcp(`Bearer ${token}`)).status).toBe(200);
    expect(banner).toContain('read on, input off');
    expect(banner).toContain('readable sessions: claude-*, codex-*, agent-*, test-*');
    expect(banner).not.toMatch(/"level":/); // no log line in the banner
    for (const port of [env.TERMINAL_MCP_GATEWAY_PORT, env.TERMINAL_MCP_OBSERVER_PORT, env.TERMINAL_MCP_WEB_PORT]) expect(await portAnswers(Number(port))).toBe(true);

    const second = await runNode([START], env);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(new RegExp(`already running: npm start pid ${child.pid}`));
    expect(second.stdout).toContain(`http://127.0.0.1:${env.TERMINAL_MCP_WEB_PORT}/`);

    const status = JSON.parse((await runNode([CLI, 'status', '--json'], env)).stdout);
    expect(status.supervisor.pid).toBe(child.pid);
    expect(status.broker.running).toBe(true);
    expect(status.broker.config.terminal_input).toBe(false);
    expect(status.services.every((s: { answers: boolean }) => s.answers)).toBe(true);
    // The notifier runs beside them (no listener): the broker says it is connected.
    expect(status.broker.notifier).toEqual({ connected: true, waiting: 0 });
    expect(banner).toMatch(/Notifier {4}pid \d+; sends notices to the configured channels over HTTP/);
    expect(status.services.find((s: { service: string }) => s.service === 'gateway').protection).toBe('token');
    const statusText = (await runNode([CLI, 'status'], env)).stdout;
    expect(statusText).toContain('/mcp protected by a bearer token');
    expect(statusText).toContain('notifier.sock answers');
    expect(statusText).toMatch(/notifier: +connected, no notice waiting/);
    // Recording is on by default: the readable session is recorded (through pipe-pane).
    expect(banner).toMatch(/transcripts: on, at most 8 MB per session and 256 MB in all, kept 14 days/);
    await waitFor('the readable session recorded', async () => (await tmux.tmux(['display-message', '-p', '-t', '=test-start:', '#{pane_pipe}'])) === '1', 60_000);
    const recorded = JSON.parse((await runNode([CLI, 'status', '--json'], env)).stdout);
    expect(recorded.transcripts.stored).toBe(1);
    expect(recorded.broker.config.transcripts).toMatchObject({ enabled: true, max_total_bytes: 256 * 1024 * 1024 });

    const run = JSON.parse(readFileSync(join(env.TERMINAL_MCP_SOCKET_DIR!, 'supervisor.json'), 'utf8')) as { children: { name: string; pid: number }[] };
    expect(run.children.map((c) => c.name).sort()).toEqual(['broker', 'gateway', 'notifier', 'observer', 'web']);
    // The broker runs with the broker's node flags (effects/launch/node-flags.ts).
    const brokerPid = run.children.find((c) => c.name === 'broker')!.pid;
    expect(readFileSync(`/proc/${brokerPid}/cmdline`, 'utf8').split('\0').slice(1, 1 + BROKER_NODE_FLAGS.length)).toEqual([...BROKER_NODE_FLAGS]);
    child.kill('SIGKILL');
    await waitFor('every service to stop after the supervisor was killed', async () => {
      if (run.children.some((c) => alive(c.pid))) return false;
      for (const port of [env.TERMINAL_MCP_GATEWAY_PORT, env.TERMINAL_MCP_OBSERVER_PORT, env.TERMINAL_MCP_WEB_PORT]) if (await portAnswers(Number(port))) return false;
      return !existsSync(join(env.TERMINAL_MCP_SOCKET_DIR!, 'broker.lock'));
    }, 90_000, 250);
  }, 300_000);

  it('reuses a running broker, reports that it enforces another config, and leaves it running on Ctrl-C', async () => {
    const broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: "allowed_session_patterns: ['alpha-*']\n" });
    try {
      const requested = join(roots[0]!, 'requested.yaml');
      writeFileSync(requested, "allowed_session_patterns: ['beta-*']\n");
      const env = await privateEnv({
        TERMINAL_MCP_STATE_DIR: broker.stateDir,
        TERMINAL_MCP_SOCKET_DIR: broker.socketDir,
        TERMINAL_MCP_CONFIG: requested,
      });
      const { child, out } = await startUntilBanner(env);
      expect(out()).toContain(`a broker is already running (pid ${broker.pid}); using it`);
      expect(out()).toContain('readable sessions: alpha-*');
      expect(out()).toMatch(/NOTE: the running broker does not enforce the config you asked for/);
      expect(out()).toContain('terminal-mcp stop, then npm start again');
      child.kill('SIGINT');
      await new Promise((r) => child.once('exit', r));
      expect(alive(broker.pid)).toBe(true);
      expect(await portAnswers(Number(env.TERMINAL_MCP_GATEWAY_PORT))).toBe(false);
    } finally {
      await broker.stop();
    }
  }, 300_000);

  it('terminal-mcp stop stops the supervisor and everything it started', async () => {
    const env = await privateEnv();
    const { child } = await startUntilBanner(env);
    const run = JSON.parse(readFileSync(join(env.TERMINAL_MCP_SOCKET_DIR!, 'supervisor.json'), 'utf8')) as { children: { pid: number }[] };
    const exited = new Promise((r) => child.once('exit', r));
    const r = await runNode([CLI, 'stop'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`stopped npm start supervisor (pid ${child.pid})`);
    await exited;
    await waitFor('every service to stop', () => run.children.every((c) => !alive(c.pid)), 60_000);
    expect(existsSync(join(env.TERMINAL_MCP_SOCKET_DIR!, 'supervisor.json'))).toBe(false);
    expect(existsSync(join(env.TERMINAL_MCP_SOCKET_DIR!, 'broker.lock'))).toBe(false);
    // The log files hold one JSON object per line (jq reads them); the services' banners
    // went to the terminal, never into a file.
    for (const name of ['broker', 'gateway', 'observer', 'web', 'notifier']) {
      const lines = readFileSync(join(env.TERMINAL_MCP_STATE_DIR!, 'logs', `${name}.log`), 'utf8').trim().split('\n');
      expect(lines.length, name).toBeGreaterThan(0);
      for (const line of lines) expect(() => JSON.parse(line) as unknown, `${name}.log: ${line}`).not.toThrow();
    }
  }, 300_000);
});
