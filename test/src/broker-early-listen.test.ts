// A starting broker listens before it loads and builds the rest: readiness over HTTP says "starting", and a call made meanwhile is held and answered once the broker is built, never refused.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BROKER_NODE_FLAGS } from '@terminal-mcp/broker/node-flags';
import { createBrokerClient } from '@terminal-mcp/broker-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoPath } from './helpers/repo.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';
import { waitFor } from './helpers/wait-for.js';

let tmux: TmuxTestServer;
let root: string;
let broker: ChildProcess | undefined;

const socketAnswers = (path: string) =>
  new Promise<boolean>((resolve) => {
    const sock = createConnection(path);
    sock.once('connect', () => (sock.destroy(), resolve(true)));
    sock.once('error', () => resolve(false));
  });

/** GET /health.ready on gateway.sock over plain HTTP: the tRPC query's data. */
const readinessOverHttp = (socketPath: string) =>
  new Promise<Record<string, unknown>>((resolve, reject) => {
    const req = request({ socketPath, path: '/health.ready', method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => (res.statusCode === 200 ? resolve((JSON.parse(body) as { result: { data: Record<string, unknown> } }).result.data) : reject(new Error(`HTTP ${res.statusCode}: ${body}`))));
    });
    req.on('error', reject);
    req.end();
  });

beforeAll(async () => {
  tmux = await startTmuxServer();
  await tmux.newSession('early-one', 'sleep 3600');
  root = mkdtempSync(join(tmpdir(), 'tmcp-early-'));
  mkdirSync(join(root, 'state'), { mode: 0o700 });
});

afterAll(async () => {
  if (broker && broker.exitCode === null && broker.signalCode === null) {
    const gone = new Promise((r) => broker!.once('exit', r));
    broker.kill('SIGTERM');
    await gone;
  }
  await tmux?.kill();
  rmSync(root, { recursive: true, force: true });
});

describe('a broker that is still starting', () => {
  it('answers readiness as starting, holds a call until it is built, then answers it', async () => {
    const hold = join(root, 'release-start');
    const socketDir = join(root, 'run');
    const env: NodeJS.ProcessEnv = { ...process.env, TERMINAL_MCP_STATE_DIR: join(root, 'state'), TERMINAL_MCP_SOCKET_DIR: socketDir, TERMINAL_MCP_TMUX_SOCKET: tmux.socketName, TERMINAL_MCP_TEST_HOLD_START: hold, TERMINAL_MCP_LOG_LEVEL: 'warn' };
    delete env.TMUX;
    delete env.TMUX_PANE;
    delete env.TERMINAL_MCP_CONFIG;
    broker = spawn(process.execPath, [...BROKER_NODE_FLAGS, repoPath('services/broker/dist/bin/main.js')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    const gatewaySock = join(socketDir, 'gateway.sock');
    await waitFor('gateway.sock listening while the start is held', () => socketAnswers(gatewaySock));

    expect(await readinessOverHttp(gatewaySock)).toMatchObject({ ready: false, starting: true });

    // A call over HTTP, fully written to the socket before the start is released: held.
    const path = `/sessions.list?input=${encodeURIComponent(JSON.stringify({}))}`;
    let written!: () => void;
    const sent = new Promise<void>((r) => (written = r));
    const heldCall = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ socketPath: gatewaySock, path, method: 'GET' }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.on('finish', written);
      req.end();
    });
    // And one over the call link (a WebSocket upgrade), as the gateway and web send them.
    const client = createBrokerClient({ role: 'gateway', socketPath: gatewaySock });
    const linked = client.sessions.list.query({});
    await sent;
    writeFileSync(hold, '');
    const held = await heldCall;
    expect(held.status).toBe(200);
    expect(held.body).toContain('early-one');
    expect((await linked).sessions.map((s) => s.name)).toContain('early-one');
    // Built: readiness is the real one now.
    const ready = await readinessOverHttp(gatewaySock);
    expect(ready.starting).toBeUndefined();
    expect(ready).toHaveProperty('tmux');
  });
});
