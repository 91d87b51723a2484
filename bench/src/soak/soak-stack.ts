/**
 * What every soak scenario runs against: a private tmux server with one line-reading pane
 * per client (each line the pane reads is appended to a file: what ARRIVED), a real broker
 * process, and the HTTP gateway as its own process (as `npm start` runs it), reached by real
 * MCP SDK clients. Nothing here is shared with the host: `tmux -L tmcp-test-*`, temp dirs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { freePort, repoPath, startBrokerProcess, startTmuxServer, type BrokerProcess, type TmuxTestServer } from '@terminal-mcp/test';

export const SOAK_TOKEN = 'soak-gateway-token';
export const SOAK_CONFIG = {
  permissions: { terminal_read: true, terminal_input: true },
  allowed_session_patterns: ['soak-*'],
  input_policy: { allowed_session_patterns: ['soak-*'] },
  log_level: 'warn',
  gateway: { toolsets: { default: ['core', 'input', 'transcripts'] } },
};

export interface LinePane {
  readonly name: string;
  /** Lines the pane's program has read so far. */
  lines(): string[];
}

export interface SoakStack {
  readonly tmux: TmuxTestServer;
  broker: BrokerProcess;
  readonly panes: readonly LinePane[];
  readonly mcpUrl: string;
  readonly root: string;
  client(name: string): Promise<Client>;
  /** The broker again (same state and sockets), after it exited or was stopped. */
  restartBroker(whileStopped?: () => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, check: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`soak: timed out waiting for ${what}`);
    await sleep(50);
  }
}

export async function startSoakStack(options: { panes: number; env?: Record<string, string> }): Promise<SoakStack> {
  const root = mkdtempSync(join(tmpdir(), 'tmcp-soak-'));
  const tmux = await startTmuxServer();
  const panes: LinePane[] = [];
  let broker: BrokerProcess | undefined;
  let gateway: ChildProcess | undefined;
  const clients: Client[] = [];
  const stop = async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    if (gateway && gateway.exitCode === null) {
      gateway.kill('SIGTERM');
      await new Promise((r) => gateway!.once('exit', r));
    }
    await broker?.stop();
    await tmux.kill();
    rmSync(root, { recursive: true, force: true });
  };
  try {
    // Panes first: a session created while a control client identifies can crash tmux 3.3a.
    for (let i = 0; i < options.panes; i++) {
      const name = `soak-${i}`;
      const out = join(root, `${name}.lines`);
      const ready = `${out}.ready`;
      await tmux.newSession(name, `exec bash --norc --noprofile -c 'touch ${ready}; while IFS= read -r line; do printf "%s\\n" "$line" >> ${out}; done'`, { width: 200, height: 40 });
      await until(`${name} to read`, () => existsSync(ready), 30_000);
      panes.push({ name, lines: () => (existsSync(out) ? readFileSync(out, 'utf8').split('\n').slice(0, -1) : []) });
    }
    broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: SOAK_CONFIG, ...(options.env ? { env: options.env } : {}) });
    const port = await freePort();
    gateway = spawn(process.execPath, [repoPath('services/gateway/dist/bin/http.js')], {
      env: { ...broker.env, TERMINAL_MCP_GATEWAY_PORT: String(port), TERMINAL_MCP_GATEWAY_TOKEN: SOAK_TOKEN, TERMINAL_MCP_LOG_LEVEL: 'error' },
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    await until('the gateway', async () => (await fetch(`http://127.0.0.1:${port}/health/live`).catch(() => null))?.ok === true, 60_000);
    const stack: SoakStack = {
      tmux,
      broker,
      panes,
      root,
      mcpUrl: `http://127.0.0.1:${port}/mcp`,
      async client(name) {
        const c = new Client({ name, version: '0.0.0' });
        await c.connect(new StreamableHTTPClientTransport(new URL(stack.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${SOAK_TOKEN}` } } }));
        clients.push(c);
        return c;
      },
      async restartBroker(whileStopped) {
        stack.broker = await stack.broker.restart(whileStopped ? { whileStopped } : undefined);
        broker = stack.broker;
      },
      stop,
    };
    return stack;
  } catch (err) {
    await stop();
    throw err;
  }
}

export const call = (c: Client, name: string, args: Record<string, unknown>) => c.callTool({ name, arguments: args }) as Promise<CallToolResult>;
export const errorCodeOf = (r: CallToolResult) => (r._meta?.['terminal-mcp/error'] as { error_code?: string } | undefined)?.error_code ?? (r.isError ? 'ERROR' : undefined);
