// Guards "the broker stops when asked": with the gateway, observer and dashboard connected, backups taken and the user's tmux server killed, `terminal-mcp stop` ends the broker by SIGTERM (never by its 20 s SIGKILL fallback), also when nobody collects the exited broker; and a stop step that hangs or blocks the event loop cannot keep the broker alive past its stop deadline.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BROKER_NODE_FLAGS } from '@terminal-mcp/broker/node-flags';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess } from './helpers/broker-process.js';
import { repoPath } from './helpers/repo.js';
import { cleanEnv, runNode } from './helpers/run-node.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';
import { waitFor } from './helpers/wait-for.js';
import { bootstrapPassword, changePassword, launchChromium, startWebServer, submitLogin, type WebServerProcess } from './helpers/web-stack.js';

const CLI = repoPath('services/broker/dist/effects/launch/terminal-mcp.js');
const CONFIG = {
  permissions: { terminal_read: true, terminal_input: true },
  allowed_session_patterns: ['work-*'],
  input_policy: { allowed_session_patterns: ['work-*'] },
  // Every part that keeps tmux clients: pane watchers for the supervisor and transcripts.
  supervisor: { enabled: true, watched_session_patterns: ['work-*'] },
  transcripts: { enabled: true },
  log_level: 'debug',
};

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie has exited: it only waits for a parent that does not collect it.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat[stat.lastIndexOf(')') + 2] !== 'Z';
};

/** JSON log lines with this event. */
const events = (log: string, event: string) =>
  log
    .split('\n')
    .filter((l) => l.includes(`"event":"${event}"`))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

const GATEWAY_TOKEN = 'broker-stop-test-gateway-token';

interface ServiceProcess {
  child: ChildProcess;
  url: string;
}

/** A service bin started on its own (port 0), as an operator does without `npm start`;
 * resolves with the URL it prints. */
async function startService(script: string, env: NodeJS.ProcessEnv): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [repoPath(script)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const url = await waitFor(`${script} to print its URL`, () => {
    if (child.exitCode !== null) throw new Error(`${script} exited (${child.exitCode}):\n${output}`);
    return /MCP endpoint (http:\/\/\S+)/.exec(output)?.[1];
  }, 90_000);
  return { child, url };
}

function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

describe('terminal-mcp stop: clients connected, backups, tmux server killed', { timeout: 400_000 }, () => {
  // Made in beforeAll: a run that filters this suite out (-t) must leave no directory.
  let root: string;
  let log: string;
  let tmux: TmuxTestServer;
  let env: NodeJS.ProcessEnv;
  /** `sleep`, the broker's parent: it never collects the broker when it exits. */
  let parent: ChildProcess | undefined;
  let brokerPid = 0;
  let gateway: ServiceProcess | undefined;
  let observer: ServiceProcess | undefined;
  let web: WebServerProcess | undefined;
  let browser: Browser | undefined;
  let mcp: Client | undefined;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'tmcp-stop-'));
    log = join(root, 'broker.log');
    tmux = await startTmuxServer();
    await tmux.newSession('work-1', 'bash --norc --noprofile');
    await tmux.newSession('work-2', 'bash --norc --noprofile');
    mkdirSync(join(root, 'state'), { mode: 0o700 });
    writeFileSync(join(root, 'config.yaml'), JSON.stringify(CONFIG), { mode: 0o600 });
    env = cleanEnv({
      TERMINAL_MCP_STATE_DIR: join(root, 'state'),
      TERMINAL_MCP_SOCKET_DIR: join(root, 'run'),
      TERMINAL_MCP_TMUX_SOCKET: tmux.socketName,
      TERMINAL_MCP_CONFIG: join(root, 'config.yaml'),
    });
    // Started the way a service started from a shell that then exited runs: its parent
    // (here `sleep`, in containers often PID 1) does not collect it when it exits, so
    // the exited broker stays a zombie that still answers kill(pid, 0).
    parent = spawn('sh', ['-c', `"$TMCP_NODE" ${BROKER_NODE_FLAGS.join(' ')} "$TMCP_MAIN" 2>"$TMCP_LOG" & echo $!; exec sleep 3600`], {
      env: { ...env, TMCP_NODE: process.execPath, TMCP_MAIN: repoPath('services/broker/dist/bin/main.js'), TMCP_LOG: log },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    parent.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    brokerPid = Number(await waitFor('the broker pid', () => /^(\d+)\n/.exec(out)?.[1], 30_000));
    await waitFor('the broker to listen', () => existsSync(log) && readFileSync(log, 'utf8').includes('"event":"broker.started"'), 90_000);
    // The gateway refuses to start open; it gets a token, as npm start gives it one.
    gateway = await startService('services/gateway/dist/bin/http.js', { ...env, TERMINAL_MCP_GATEWAY_PORT: '0', TERMINAL_MCP_GATEWAY_TOKEN: GATEWAY_TOKEN });
    observer = await startService('services/observer/dist/bin/observer.js', { ...env, TERMINAL_MCP_OBSERVER_PORT: '0' });
    web = await startWebServer(env, 90_000);
  }, 300_000);

  afterAll(async () => {
    await mcp?.close().catch(() => {});
    await browser?.close().catch(() => {});
    await web?.stop();
    await stopChild(gateway?.child);
    await stopChild(observer?.child);
    if (brokerPid > 0 && alive(brokerPid)) process.kill(brokerPid, 'SIGKILL');
    await stopChild(parent);
    await tmux?.kill();
    if (root) rmSync(root, { recursive: true, force: true });
  }, 120_000);

  it('ends the broker by SIGTERM: "stopped broker", never "did not stop within 20 s"', async () => {
    // The gateway: an MCP client, with a wait in flight (a broker call left open).
    mcp = new Client({ name: 'broker-stop', version: '0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(gateway!.url), { requestInit: { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } } }));
    const listed = await mcp.callTool({ name: 'terminal_list_sessions', arguments: {} });
    expect(JSON.stringify(listed.content)).toContain('work-1');
    void mcp.callTool({ name: 'terminal_wait_for_state', arguments: { session: 'work-1', states: ['DONE'], timeout_s: 120 } }, undefined, { timeout: 300_000 }).catch(() => {});

    // The dashboard: a signed-in operator watching a session live (a broker subscription).
    browser = await launchChromium();
    const page = await (await browser.newContext()).newPage();
    const first = await bootstrapPassword(join(root, 'state'), 90_000);
    await submitLogin(page, web!.baseUrl, 'admin', first);
    await page.waitForURL(`${web!.baseUrl}/change-password`, { timeout: 90_000 });
    await changePassword(page, first, 'violet-harbour-lantern-93');
    await page.waitForURL(`${web!.baseUrl}/`, { timeout: 90_000 });
    await page.goto(`${web!.baseUrl}/view?session=work-1`);
    await waitFor('the live view draws the pane', async () => Number(await page.locator('.term-wrap.full').getAttribute('data-frames')) > 0, 90_000);

    // The observer: its readiness check is a broker call.
    expect((await fetch(new URL('/health/ready', observer!.url))).status).toBe(200);

    const backup = await runNode([CLI, 'backup', join(root, 'backup-1')], env, 120_000);
    expect(backup.code, backup.stderr).toBe(0);

    await tmux.kill();
    await waitFor('the broker to see that tmux is gone', () => readFileSync(log, 'utf8').includes('no tmux server for the broker'), 60_000);

    // A second backup runs while the broker stops.
    const started = Date.now();
    const [stop, backupDuringStop] = await Promise.all([runNode([CLI, 'stop'], env, 120_000), runNode([CLI, 'backup', join(root, 'backup-2')], env, 120_000)]);
    const wallMs = Date.now() - started;
    const brokerLog = readFileSync(log, 'utf8');
    // The figures, for the report: no verdict on speed (the machine may be busy; a stop
    // past the broker's own deadline logs broker.stop_overdue and exits anyway).
    const ownMs = events(brokerLog, 'broker.stopped')[0]?.ms;
    const own = ownMs === undefined ? `overdue at ${String(events(brokerLog, 'broker.stop_overdue')[0]?.step)}` : `${String(ownMs)} ms`;
    console.log(`terminal-mcp stop: ${wallMs} ms wall; the broker's own stop: ${own}; steps: ${events(brokerLog, 'broker.stop_step').map((e) => `${String(e.step)} ${String(e.ms)} ms`).join(', ')}`);
    expect(stop.stdout).toContain(`stopped broker (pid ${brokerPid})`);
    expect(stop.stdout).not.toContain('did not stop');
    expect(alive(brokerPid)).toBe(false);
    expect(backupDuringStop.code, backupDuringStop.stderr).toBe(0);
  });
});

describe('stop steps that never finish', { timeout: 400_000 }, () => {
  let tmux: TmuxTestServer;
  beforeAll(async () => {
    tmux = await startTmuxServer();
  });
  afterAll(async () => {
    await tmux?.kill();
  });

  /** SIGTERM to a broker started with this stop fault: how it ended, its log, and when. */
  async function stopWithFault(fault: string, lastEvent: string) {
    const broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, env: { TERMINAL_MCP_TEST_HANG_ON_STOP: fault, NODE_ENV: 'test', TERMINAL_MCP_LOG_LEVEL: 'debug' }, readyTimeoutMs: 120_000 });
    try {
      const began = Date.now();
      process.kill(broker.pid, 'SIGTERM');
      // exited() gives up after 60 s (code null): a broker still alive then is hung.
      const exit = await broker.exited();
      const ms = Date.now() - began;
      console.log(`stop fault ${fault}: exit ${JSON.stringify(exit)} after ${ms} ms`);
      // The pipe may still hold the last lines when the exit is reported.
      await waitFor('the last log line', () => broker.stderr().includes(lastEvent), 30_000).catch(() => undefined);
      return { exit, ms, log: broker.stderr() };
    } finally {
      await broker.stop();
    }
  }

  it('one step past its own deadline: the stop goes on without it and ends cleanly (exit 0)', async () => {
    const { exit, log } = await stopWithFault('1', '"event":"broker.stopped"');
    expect(exit).toEqual({ code: 0, signal: null });
    expect(events(log, 'broker.stop_step_overdue').map((e) => e.step)).toEqual(['fault injection: a step that never ends (1)']);
    // The steps after it still ran: the stores were closed, the stop logged as done.
    expect(events(log, 'broker.stop_step').map((e) => e.step)).toContain('stores');
    expect(events(log, 'broker.stopped')).toHaveLength(1);
  });

  it('a stop that overruns as a whole: forced at its deadline, exit 3, naming the step it waited on', async () => {
    const { exit, log } = await stopWithFault('3', '"event":"broker.stop_overdue"');
    expect(exit).toEqual({ code: 3, signal: null });
    const overdue = events(log, 'broker.stop_overdue');
    expect(overdue).toHaveLength(1);
    expect(String(overdue[0]!.step)).toMatch(/^fault injection: a step that never ends \(\d\)$/);
    expect(overdue[0]!.exitCode).toBe(3);
  });

  it('a step that blocks the event loop: the watchdog thread kills the broker and says which step', async () => {
    const { exit, log } = await stopWithFault('block', '"event":"broker.stop_killed"');
    expect(exit).toEqual({ code: null, signal: 'SIGKILL' });
    const killed = events(log, 'broker.stop_killed');
    expect(killed).toHaveLength(1);
    expect(killed[0]!.step).toBe('fault injection: a step that blocks the event loop');
  });
});
