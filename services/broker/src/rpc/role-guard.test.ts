// Guards the role boundary at run time: a probe for a procedure the socket's role cannot name is answered NOT_FOUND and logged as security.unknown_procedure (role and path), and a procedure composed into the wrong role's router by mistake refuses (FORBIDDEN, logged) instead of serving.
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAppErrorData } from '@terminal-mcp/contract';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../config/schema.js';
import type { BrokerDeps } from './deps.js';
import { ensureSocketDir } from '../effects/socket-files.js';
import { createContextInner } from './context.js';
import { grants, sessions } from './procedures/index.js';
import { serveRoles, type RoleServers } from './serve.js';
import { createCallerFactory, router } from './trpc.js';
import { testDeps } from '../testing/deps.testkit.js';

let root: string;
let deps: BrokerDeps;
let servers: RoleServers;
const logged: Record<string, unknown>[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'tmcp-role-guard-'));
  const socketDir = join(root, 'sock');
  ensureSocketDir(socketDir);
  const log = pino({ level: 'warn' }, { write: (line: string) => void logged.push(JSON.parse(line) as Record<string, unknown>) });
  deps = testDeps({
    config: DEFAULT_CONFIG,
    // Never reached: every call in this file is refused before anything reads tmux.
    tmux: {} as BrokerDeps['tmux'],
    stateDir: join(root, 'state'),
    log,
    info: { version: 'test', startedAt: new Date(), tmuxSocket: null },
  });
  servers = await serveRoles(deps, socketDir);
});
afterAll(async () => {
  await servers?.close();
  deps?.stores.close();
  rmSync(root, { recursive: true, force: true });
});
beforeEach(() => {
  logged.length = 0;
});

/** A raw tRPC HTTP call: what any process that can open the socket may send. */
function call(role: 'gateway' | 'observer' | 'web', path: string, kind: 'query' | 'mutation'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        socketPath: servers.sockets[role],
        method: kind === 'query' ? 'GET' : 'POST',
        path: kind === 'query' ? `/${path}?input=${encodeURIComponent('{}')}` : `/${path}`,
        headers: { host: 'broker.local', 'content-type': 'application/json' },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(kind === 'query' ? undefined : '{}');
  });
}

describe('unknown procedures', () => {
  it.each([
    ['gateway', 'source.readFile', 'query'],
    ['gateway', 'grants.set', 'mutation'],
    ['web', 'input.sendTask', 'mutation'],
    ['web', 'bindings.bind', 'mutation'],
    ['observer', 'input.sendText', 'mutation'],
    ['observer', 'no.such.thing', 'query'],
  ] as const)('%s.sock answers NOT_FOUND for %s and logs the probe', async (role, path, kind) => {
    const r = await call(role, path, kind);
    expect(r.status).toBe(404);
    expect(JSON.parse(r.body)).toMatchObject({ error: { data: { app: { code: 'NOT_FOUND' } } } });
    expect(logged).toContainEqual(expect.objectContaining({ event: 'security.unknown_procedure', role, path }));
  });

  it('logs a hostile path only as a short run of path characters', async () => {
    await call('gateway', `x${'%0a'.repeat(3)}${'y'.repeat(300)}`, 'query');
    const entry = logged.find((l) => l.event === 'security.unknown_procedure')!;
    expect(entry.path).toMatch(/^[\w.?-]{1,120}$/);
  });
});

describe('a procedure composed into the wrong role', () => {
  const misplaced = router({ grants: { list: grants.list }, sessions: { tail: sessions.tail } });
  const codeOf = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (err) {
      return readAppErrorData((err as { cause?: unknown }).cause)?.code;
    }
    throw new Error('expected a refusal');
  };

  it('refuses a dashboard-only procedure on the gateway, and logs it', async () => {
    const gateway = createCallerFactory(misplaced)(createContextInner({ role: 'gateway', deps }));
    expect(await codeOf(gateway.grants.list())).toBe('FORBIDDEN');
    expect(logged).toContainEqual(expect.objectContaining({ event: 'security.wrong_role', role: 'gateway', path: 'grants.list' }));
  });

  it('refuses a pane-content read on the dashboard', async () => {
    const web = createCallerFactory(misplaced)(createContextInner({ role: 'web', deps }));
    expect(await codeOf(web.sessions.tail({ session: 'agent-x' }))).toBe('FORBIDDEN');
  });
});
