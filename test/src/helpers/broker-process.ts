/**
 * A real broker process for end-to-end tests: built `services/broker/dist/bin/main.js`, its
 * own temp state and socket directories, an optional config.yaml, and the private tmux
 * server named by `tmuxSocket`. TMUX/TMUX_PANE are stripped so the broker can never
 * follow them to the host's own tmux server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { BROKER_NODE_FLAGS } from '@terminal-mcp/broker/node-flags';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createConnection } from 'node:net';
import { execa } from 'execa';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoPath } from './repo.js';
import { GENEROUS_WAIT_MS } from './wait-for.js';

/** Re-exported for the bench, which prints the flags with the broker's memory. */
export { BROKER_NODE_FLAGS };

export interface BrokerProcess {
  /** The environment the broker runs with; give it to clients (e.g. the stdio gateway). */
  readonly env: NodeJS.ProcessEnv;
  readonly socketDir: string;
  readonly stateDir: string;
  readonly pid: number;
  /** The broker's stderr so far (JSON log lines, the first 64 KiB), for failure messages. */
  stderr(): string;
  /** Calls `listener` with every whole stderr line from now on (unbounded, unlike
   * stderr()): e.g. the soak counts the control client's disconnections over 15 minutes. */
  onStderrLine(listener: (line: string) => void): void;
  /** Sends `signal` to this broker through its child-process handle (never by a bare pid:
   * Node signals only its own child, and nothing once it has exited). */
  kill(signal: NodeJS.Signals): void;
  /** SIGTERM (SIGKILL after 30 s), then removes the temp directory. Safe to call twice. */
  stop(): Promise<void>;
  /** Stops this broker (SIGTERM) and starts a new one with the same environment, state
   * and socket directories, as an operator's restart does. Use the returned process from
   * then on; its stop() removes the temp directory. */
  restart(overrides?: { env?: Record<string, string | undefined>; whileStopped?: () => Promise<void> }): Promise<BrokerProcess>;
  /** Closes this end of the broker's stderr pipe, as a reader that went away does: the
   * broker's next write to stderr fails with EPIPE. */
  closeStderr(): void;
  /** Resolves when the broker process has exited (by itself or after stop()). */
  exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface StartBrokerProcessOptions {
  /** `tmux -L` name of the test's private tmux server. */
  tmuxSocket: string;
  /** config.yaml text, or an object written as JSON (JSON is YAML). */
  config?: string | Record<string, unknown>;
  /** How long to wait for gateway.sock to answer. Default: GENEROUS_WAIT_MS (a start that
   * takes a second here took over 15 s on a busy machine). */
  readyTimeoutMs?: number;
  /** Extra environment variables (e.g. test-only fault injection). */
  env?: Record<string, string>;
}

const MAX_STDERR_CHARS = 64 * 1024;

/** Whether something accepts connections on the Unix socket at `path` (within 500 ms). */
export function socketAnswers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = createConnection(path);
    const done = (ok: boolean) => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(500, () => done(false));
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}

/** How long a started broker's command client may take to attach before the test goes on
 * anyway (it identifies after the server's sessions rest for up to 5 s; room for a machine
 * five times slower). */
const CONTROL_ATTACH_WAIT_MS = 30_000;

/**
 * Waits until the broker's command client has attached to its tmux server (a control-mode
 * client with a session in `list-clients`), when that server runs. tmux 3.3a crashes the
 * server when a session is created or renamed while a control client is half identified
 * (effects/tmux/identify-gate.ts). The broker's own clients take turns with its own session
 * changes, but a test creates sessions from another process: right after a start, its first
 * `new-session` could land in the broker's identify window ("server exited unexpectedly",
 * run g40c, input-tools.test). Bounded, and never an error: a broker that does not attach
 * is what some tests test.
 */
async function controlClientAttached(env: NodeJS.ProcessEnv, child: ChildProcess): Promise<void> {
  const socket = env.TERMINAL_MCP_TMUX_SOCKET;
  if (socket === undefined) return;
  const deadline = Date.now() + CONTROL_ATTACH_WAIT_MS;
  while (Date.now() < deadline && child.exitCode === null && child.signalCode === null) {
    const listed = await execa('tmux', ['-L', socket, 'list-clients', '-F', '#{client_control_mode} #{session_name}'], { env, extendEnv: false, reject: false, stdin: 'ignore' });
    // No server: nothing can crash, and nothing will attach until a test starts one.
    if (listed.exitCode !== 0) return;
    if (listed.stdout.split('\n').some((l) => /^1 \S/.test(l))) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Whether the broker is built: its sockets listen before it is (effects/early-sockets.ts),
 * holding calls meanwhile, so a call answered means the start is over and broker.json
 * written. GET /health.info over HTTP on gateway.sock, held until then (at most `ms`). */
function brokerBuilt(path: string, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ socketPath: path, path: '/health.info', method: 'GET', timeout: Math.max(1, ms) }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

export async function startBrokerProcess(options: StartBrokerProcessOptions): Promise<BrokerProcess> {
  // Short paths: a Unix socket path must fit in ~107 bytes.
  const root = mkdtempSync(join(tmpdir(), 'tmcp-broker-'));
  const stateDir = join(root, 'state');
  const socketDir = join(root, 'run');
  mkdirSync(stateDir, { mode: 0o700 });

  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.TMUX;
  delete env.TMUX_PANE;
  env.TERMINAL_MCP_STATE_DIR = stateDir;
  env.TERMINAL_MCP_SOCKET_DIR = socketDir;
  env.TERMINAL_MCP_TMUX_SOCKET = options.tmuxSocket;
  delete env.TERMINAL_MCP_CONFIG;
  if (options.config !== undefined) {
    const configPath = join(root, 'config.yaml');
    const text = typeof options.config === 'string' ? options.config : JSON.stringify(options.config, null, 2);
    writeFileSync(configPath, text, { mode: 0o600 });
    env.TERMINAL_MCP_CONFIG = configPath;
  }
  Object.assign(env, options.env ?? {});

  return launchBroker({ root, env, stateDir, socketDir, readyTimeoutMs: options.readyTimeoutMs ?? GENEROUS_WAIT_MS });
}

interface LaunchOptions {
  root: string;
  env: NodeJS.ProcessEnv;
  stateDir: string;
  socketDir: string;
  readyTimeoutMs: number;
}

async function launchBroker(launch: LaunchOptions): Promise<BrokerProcess> {
  const { root, env, stateDir, socketDir } = launch;
  const child = spawn(process.execPath, [...BROKER_NODE_FLAGS, repoPath('services/broker/dist/bin/main.js')], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  let partial = '';
  const lineListeners: ((line: string) => void)[] = [];
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    if (stderr.length < MAX_STDERR_CHARS) stderr += chunk;
    if (lineListeners.length === 0) return;
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!;
    for (const line of lines) for (const listener of lineListeners) listener(line);
  });

  const terminate = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      if (!(await waitForExit(child, 30_000))) {
        child.kill('SIGKILL');
        await waitForExit(child, 5_000);
      }
    }
  };
  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      await terminate();
      rmSync(root, { recursive: true, force: true });
    })();
    return stopped;
  };

  const gatewaySocket = join(socketDir, 'gateway.sock');
  const deadline = Date.now() + launch.readyTimeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await stop();
      throw new Error(`broker exited during start (code ${child.exitCode}, signal ${child.signalCode}):\n${stderr}`);
    }
    if ((await socketAnswers(gatewaySocket)) && (await brokerBuilt(gatewaySocket, deadline - Date.now()))) {
      await controlClientAttached(env, child);
      break;
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`broker did not answer on ${gatewaySocket} in time:\n${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }

  return {
    env,
    socketDir,
    stateDir,
    pid: child.pid!,
    stderr: () => stderr,
    onStderrLine: (listener) => void lineListeners.push(listener),
    kill: (signal) => {
      child.kill(signal);
    },
    closeStderr: () => {
      child.stderr!.destroy();
    },
    stop,
    async restart(overrides) {
      await terminate();
      // A test's condition to wait for while no broker runs (output nobody records).
      await overrides?.whileStopped?.();
      const env = { ...launch.env };
      for (const [name, value] of Object.entries(overrides?.env ?? {})) {
        if (value === undefined) delete env[name];
        else env[name] = value;
      }
      return launchBroker({ ...launch, env });
    },
    exited() {
      return waitForExit(child, 60_000).then(() => ({ code: child.exitCode, signal: child.signalCode }));
    },
  };
}
