/**
 * The `first` section: how soon a freshly started broker answers, and whether its first
 * calls succeed, at 200 sessions (300 lines each, every one readable, so every one starts
 * recording) with BENCH_HOGS CPU hogs (default 2) busy on the machine:
 * - time from spawning the broker to gateway.sock accepting a connection (listening);
 * - the first terminal_list_sessions and terminal_tail over MCP stdio, sent the moment the
 *   socket answers (latency, and the error if one failed), then one call a second for
 *   BENCH_FIRST_SECONDS (default 15) while the recordings start: any failure is counted;
 * - the stdio launcher `terminal-mcp` (what desktop clients run): spawn to the initialize
 *   answer and to the first list answer, with a broker running, and with none running (it
 *   starts one; that broker is stopped with `terminal-mcp stop`); the median of
 *   BENCH_FIRST_LAUNCHES (5) launches each. Quiet (no hogs) as well
 *   as under the hogs, since the target for a start is on a quiet machine.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BROKER_NODE_FLAGS, createBrokerClient, repoPath, socketAnswers, startTmuxServer } from '@terminal-mcp/test';
import type { Teardown } from './teardown.js';

export const FIRST_SESSIONS = 200;
/** Launcher starts per case (BENCH_FIRST_LAUNCHES): the median is reported, one start
 * being too noisy on a shared machine. */
const LAUNCHES = Math.max(1, Number(process.env.BENCH_FIRST_LAUNCHES ?? 5));

/** The median first answers of `n` runs of `run`. */
async function medianOf(n: number, run: () => Promise<{ initMs: number; listMs: number }>): Promise<{ initMs: number; listMs: number }> {
  const all: { initMs: number; listMs: number }[] = [];
  for (let i = 0; i < n; i++) all.push(await run());
  const mid = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
  return { initMs: mid(all.map((x) => x.initMs)), listMs: mid(all.map((x) => x.listMs)) };
}

export interface FirstCallBench {
  hogs: number;
  listenMs: number;
  /** Spawn to the first broker answer (health.info on gateway.sock, asked the moment it listens). */
  answerMs: number;
  firstList: { ms: number; error?: string };
  firstTail: { ms: number; error?: string };
  /** Calls in the first seconds after listening (list and tail alternately) and how many failed. */
  early: { calls: number; failed: number; errors: string[]; seconds: number };
  launcher: { runningInitMs: number; runningListMs: number; startingInitMs: number; startingListMs: number; quiet: { runningInitMs: number; runningListMs: number; startingInitMs: number; startingListMs: number } };
}

const history = (name: string) => `for i in $(seq 1 300); do echo "line $i of ${name}: lorem ipsum dolor sit amet"; done`;

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** A busy loop in its own process: one core's worth of competition. */
function startHog(owned: Teardown): void {
  const hog = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
  owned.add('a CPU hog', () => stopChild(hog));
}

/** Private state and socket directories and the env a broker and its clients use. */
function brokerEnv(owned: Teardown, tmuxSocket: string): NodeJS.ProcessEnv {
  const root = mkdtempSync(join(tmpdir(), 'tmcp-first-'));
  owned.add('the first-call temp directory', () => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'state'), { mode: 0o700 });
  const env: NodeJS.ProcessEnv = { ...process.env, TERMINAL_MCP_STATE_DIR: join(root, 'state'), TERMINAL_MCP_SOCKET_DIR: join(root, 'run'), TERMINAL_MCP_TMUX_SOCKET: tmuxSocket, TERMINAL_MCP_LOG_LEVEL: 'warn' };
  delete env.TMUX;
  delete env.TMUX_PANE;
  delete env.TERMINAL_MCP_CONFIG;
  return env;
}

const stringEnv = (env: NodeJS.ProcessEnv) => Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));

async function timedCall(client: Client, name: string, args: Record<string, unknown>): Promise<{ ms: number; error?: string }> {
  const t = performance.now();
  try {
    const r = await client.callTool({ name, arguments: args });
    const ms = performance.now() - t;
    if (r.isError) return { ms, error: JSON.stringify(r.content).slice(0, 200) };
    return { ms };
  } catch (err) {
    return { ms: performance.now() - t, error: (err as Error).message.slice(0, 200) };
  }
}

/** `terminal-mcp` over stdio: spawn to initialize answered, and to the first list answered. */
async function launcherFirstAnswer(owned: Teardown, env: NodeJS.ProcessEnv): Promise<{ initMs: number; listMs: number }> {
  const client = new Client({ name: 'bench-first-launcher', version: '1' });
  const stop = owned.add('the launcher client', () => client.close());
  const t = performance.now();
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [repoPath('services/broker/dist/effects/launch/terminal-mcp.js')], env: stringEnv(env), stderr: 'ignore' }));
  const initMs = performance.now() - t;
  const r = await client.callTool({ name: 'terminal_list_sessions', arguments: {} });
  const listMs = performance.now() - t;
  if (r.isError) throw new Error(`the launcher's first list failed: ${JSON.stringify(r.content).slice(0, 300)}`);
  await stop();
  return { initMs, listMs };
}

/** `terminal-mcp stop` on the launcher's private directories (the broker it started). */
async function stopLaunchedBroker(env: NodeJS.ProcessEnv): Promise<void> {
  await new Promise<void>((resolve) => {
    const child = spawn(process.execPath, [repoPath('services/broker/dist/effects/launch/terminal-mcp.js'), 'stop'], { env, stdio: 'ignore' });
    child.on('exit', () => resolve());
    child.on('error', () => resolve());
  });
}

/** The launcher when no broker runs: it starts one (on fresh private directories), which
 * is stopped again with `terminal-mcp stop` once the first list answered. */
async function launcherStarting(owned: Teardown, tmuxSocket: string): Promise<{ initMs: number; listMs: number }> {
  const fresh = brokerEnv(owned, tmuxSocket);
  const stop = owned.add('the broker the launcher started', () => stopLaunchedBroker(fresh));
  const r = await launcherFirstAnswer(owned, fresh);
  await stop();
  return r;
}

/** Spawns a broker on `env`; resolves with it and the time until gateway.sock accepted a connection. */
async function spawnBroker(owned: Teardown, env: NodeJS.ProcessEnv, label: string): Promise<{ child: ChildProcess; listenMs: number; startedAt: number; stop: () => Promise<void> }> {
  const started = performance.now();
  const child = spawn(process.execPath, [...BROKER_NODE_FLAGS, repoPath('services/broker/dist/bin/main.js')], { env, stdio: 'ignore' });
  const stop = owned.add(label, () => stopChild(child));
  const socket = join(env.TERMINAL_MCP_SOCKET_DIR!, 'gateway.sock');
  while (!(await socketAnswers(socket))) {
    if (child.exitCode !== null) throw new Error(`${label} exited (${child.exitCode})`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return { child, listenMs: performance.now() - started, startedAt: started, stop };
}

export async function benchFirstCall(owned: Teardown, hogs: number, earlySeconds: number, failHere: () => void = () => undefined): Promise<FirstCallBench> {
  const tmux = await startTmuxServer();
  owned.add('the first-call tmux server', () => tmux.kill());
  for (let i = 0; i < FIRST_SESSIONS; i++) {
    const name = `agent-${String(i).padStart(3, '0')}`;
    await tmux.newSession(name, `bash --norc --noprofile -c '${history(name)}; exec sleep 100000'`, { width: 160, height: 50 });
  }
  const socketName = tmux.socketName;
  // One broker at a time on the server (two would take each other's recordings). Quiet
  // first (no hogs of ours): the launcher with a settled broker running, then with none.
  const settledEnv = brokerEnv(owned, socketName);
  const settled = await spawnBroker(owned, settledEnv, 'the settled broker');
  // Settled: every pane recording (its pipe open), so the start's work is over.
  for (const deadline = Date.now() + 180_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 500))) {
    const piped = (await tmux.tmux(['list-panes', '-a', '-F', '#{pane_pipe}'])).split('\n').filter((l) => l === '1').length;
    if (piped >= FIRST_SESSIONS) break;
  }
  const quietRunning = await medianOf(LAUNCHES, () => launcherFirstAnswer(owned, settledEnv));
  await settled.stop();
  const quietStarting = await medianOf(LAUNCHES, () => launcherStarting(owned, socketName));
  failHere();

  for (let i = 0; i < hogs; i++) startHog(owned);
  const loadedStarting = await medianOf(LAUNCHES, () => launcherStarting(owned, socketName));

  // A fresh broker under the hogs: time to listen, then its first calls at once.
  const env = brokerEnv(owned, socketName);
  const fresh = await spawnBroker(owned, env, 'the fresh broker');
  const direct = createBrokerClient({ role: 'gateway', socketPath: join(env.TERMINAL_MCP_SOCKET_DIR!, 'gateway.sock') });
  await direct.health.info.query();
  const answerMs = performance.now() - fresh.startedAt;
  const client = new Client({ name: 'bench-first', version: '1' });
  const closeClient = owned.add('the first-call stdio gateway', () => client.close());
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [repoPath('services/gateway/dist/bin/stdio.js')], env: stringEnv(env), stderr: 'ignore' }));
  const [firstList, firstTail] = await Promise.all([timedCall(client, 'terminal_list_sessions', {}), timedCall(client, 'terminal_tail', { session: 'agent-199', lines: 50 })]);
  const errors: string[] = [];
  let calls = 0;
  const until = performance.now() + earlySeconds * 1000;
  while (performance.now() < until) {
    const r = calls % 2 === 0 ? await timedCall(client, 'terminal_list_sessions', {}) : await timedCall(client, 'terminal_tail', { session: `agent-${String(calls % FIRST_SESSIONS).padStart(3, '0')}`, lines: 50 });
    calls++;
    if (r.error !== undefined) errors.push(r.error);
    await new Promise((res) => setTimeout(res, 1000));
  }
  await closeClient();
  const loadedRunning = await medianOf(LAUNCHES, () => launcherFirstAnswer(owned, env));
  await fresh.stop();
  return {
    hogs,
    listenMs: fresh.listenMs,
    answerMs,
    firstList,
    firstTail,
    early: { calls, failed: errors.length, errors: errors.slice(0, 3), seconds: earlySeconds },
    launcher: {
      runningInitMs: loadedRunning.initMs,
      runningListMs: loadedRunning.listMs,
      startingInitMs: loadedStarting.initMs,
      startingListMs: loadedStarting.listMs,
      quiet: { runningInitMs: quietRunning.initMs, runningListMs: quietRunning.listMs, startingInitMs: quietStarting.initMs, startingListMs: quietStarting.listMs },
    },
  };
}
