// The call link (queries and mutations as messages on one WebSocket per client): concurrent calls on one connection each get their own answer and error code, the role is the socket's, a message that is not a call closes the connection, and a broker going away fails calls in flight as BROKER_UNAVAILABLE until the next broker answers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBrokerClient, describeBrokerFailure, unixWebSocketUrl } from '@terminal-mcp/broker-client';
import { BROKER_CALL_PATH, BROKER_HEADERS } from '@terminal-mcp/contract';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTmuxServer, type TmuxTestServer } from '../../../../test/src/helpers/tmux-server.js';
import { DEFAULT_CONFIG } from '../config/schema.js';
import type { BrokerDeps } from './deps.js';
import { testDeps } from '../testing/deps.testkit.js';
import { ensureSocketDir } from '../effects/socket-files.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from '../effects/tmux/adapter.js';
import { createPaneWatcher, type PaneWatcher } from '../effects/tmux/pane-watch.js';
import { serveRoles, type RoleServers } from './serve.js';

let server: TmuxTestServer;
let adapter: ControlModeTmuxAdapter;
let paneWatch: PaneWatcher;
let root: string;
let socketDir: string;
let deps: BrokerDeps;
let servers: RoleServers | undefined;
const SESSIONS = ['agent-link-0', 'agent-link-1', 'agent-link-2', 'agent-link-3', 'agent-link-4'];

async function failureOf(p: Promise<unknown>) {
  try {
    await p;
  } catch (err) {
    return describeBrokerFailure(err);
  }
  throw new Error('expected a failure');
}

/** Sends `text` on a raw call-link connection and resolves with the close code. */
function closeCodeAfter(socketPath: string, text: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(unixWebSocketUrl(socketPath, BROKER_CALL_PATH));
    ws.once('open', () => ws.send(text));
    ws.once('close', (code) => resolve(code));
    ws.once('error', reject);
  });
}

beforeAll(async () => {
  server = await startTmuxServer();
  for (const name of SESSIONS) await server.newSession(name, `bash --norc --noprofile -c 'echo "marker of ${name}"; exec sleep 3600'`, { width: 80, height: 24 });
  adapter = createTmuxAdapter({ socketName: server.socketName, configFile: '/dev/null' });
  expect(await adapter.waitUntilConnected(10_000)).toBe(true);
  paneWatch = createPaneWatcher({ socketName: server.socketName });
  root = mkdtempSync(join(tmpdir(), 'tmcp-link-'));
  socketDir = join(root, 'run');
  deps = testDeps({
    config: DEFAULT_CONFIG, // admits agent-*
    tmux: adapter,
    stateDir: join(root, 'state'),
    info: { version: 'test', startedAt: new Date(), tmuxSocket: server.socketName },
    paneWatch,
  });
  ensureSocketDir(socketDir);
  servers = await serveRoles(deps, socketDir);
});

afterAll(async () => {
  await servers?.close();
  await paneWatch?.close();
  await adapter?.close();
  deps?.stores.close();
  await server?.kill();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('the call link', () => {
  it('answers concurrent calls on one connection each with its own result or error code', async () => {
    const client = createBrokerClient({ role: 'gateway', socketPath: servers!.sockets.gateway });
    const calls = [...SESSIONS, 'agent-link-missing', ...SESSIONS].map((session) =>
      client.sessions.tail.query({ session, lines: 5 }).then(
        (r) => ({ session, text: r.text, session_of_reply: r.session }),
        (err: unknown) => ({ session, code: describeBrokerFailure(err).code }),
      ),
    );
    for (const r of await Promise.all(calls)) {
      if (r.session === 'agent-link-missing') expect(r).toEqual({ session: r.session, code: 'SESSION_NOT_FOUND' });
      else expect(r).toMatchObject({ session_of_reply: r.session, text: expect.stringContaining(`marker of ${r.session}`) });
    }
  });

  it('serves each socket its own role only, whatever the message says', async () => {
    const observer = createBrokerClient({ role: 'observer', socketPath: servers!.sockets.observer });
    // A gateway-only procedure asked on observer.sock (the client's types would not allow it).
    const refused = await failureOf((observer as unknown as ReturnType<typeof createBrokerClient<'gateway'>>).health.info.query());
    expect(['NOT_FOUND', 'FORBIDDEN']).toContain(refused.code);
  });

  it('closes a connection that sends anything but a call', async () => {
    const socket = servers!.sockets.gateway;
    expect(await closeCodeAfter(socket, 'not json')).toBe(1008);
    expect(await closeCodeAfter(socket, JSON.stringify({ id: 1, type: 'subscription', path: 'sessions.list', headers: {} }))).toBe(1008);
    // Headers are the three the broker knows, nothing else.
    expect(await closeCodeAfter(socket, JSON.stringify({ id: 1, type: 'query', path: 'sessions.list', input: {}, headers: { 'x-forwarded-for': '1.2.3.4' } }))).toBe(1008);
    expect(await closeCodeAfter(socket, JSON.stringify({ id: 1, type: 'query', path: 'sessions.list', input: {}, headers: { [BROKER_HEADERS.actor]: 'x'.repeat(5000) } }))).toBe(1008);
    // The broker keeps serving everyone else.
    const client = createBrokerClient({ role: 'gateway', socketPath: socket });
    expect((await client.sessions.list.query({})).sessions.length).toBeGreaterThanOrEqual(SESSIONS.length);
  });

  it('fails calls in flight as BROKER_UNAVAILABLE when the broker goes away, and reconnects on the next call', async () => {
    const client = createBrokerClient({ role: 'gateway', socketPath: servers!.sockets.gateway });
    expect((await client.sessions.list.query({})).sessions.length).toBeGreaterThan(0);
    const waiting = failureOf(client.wait.forState.query({ session: SESSIONS[0]!, states: ['WAITING_INPUT'], timeout_s: 20 }));
    // The wait has reached the broker once its watcher is attached.
    for (let i = 0; i < 200 && paneWatch.watchedSessions().length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    await servers!.close();
    servers = undefined;
    expect((await waiting).code).toBe('BROKER_UNAVAILABLE');
    expect((await failureOf(client.sessions.list.query({}))).code).toBe('BROKER_UNAVAILABLE');
    servers = await serveRoles(deps, socketDir);
    expect((await client.sessions.list.query({})).sessions.length).toBeGreaterThan(0);
  });
});
