// Guards that observer.sock cannot name anything beyond reading and OAuth: every procedure of the gateway and dashboard routers that the observer router lacks answers NOT_FOUND over a raw tRPC request on the real socket.
import { request } from 'node:http';
import { ROLE_ROUTERS } from '@terminal-mcp/broker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';

type Procedures = Record<string, { _def: { type: 'query' | 'mutation' | 'subscription' } }>;
const proceduresOf = (role: keyof typeof ROLE_ROUTERS) => (ROLE_ROUTERS[role] as unknown as { _def: { procedures: Procedures } })._def.procedures;

let tmux: TmuxTestServer;
let broker: BrokerProcess;

beforeAll(async () => {
  tmux = await startTmuxServer();
  broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: 'log_level: warn\n' });
});
afterAll(async () => {
  await broker?.stop();
  await tmux?.kill();
});

/** A raw tRPC HTTP call on a Unix socket: what any process that can open the socket can send. */
function trpc(role: string, path: string, kind: 'query' | 'mutation' | 'subscription'): Promise<{ status: number; body: string }> {
  const isQuery = kind !== 'mutation';
  return new Promise((resolve, reject) => {
    const req = request(
      {
        socketPath: `${broker.socketDir}/${role}.sock`,
        method: isQuery ? 'GET' : 'POST',
        path: isQuery ? `/${path}?input=${encodeURIComponent('{}')}` : `/${path}`,
        headers: { host: 'broker.local', 'content-type': 'application/json' },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(isQuery ? undefined : '{}');
  });
}

describe('observer.sock', () => {
  const observer = proceduresOf('observer');
  const foreign = (['gateway', 'web'] as const).flatMap((role) =>
    Object.entries(proceduresOf(role))
      .filter(([path]) => !(path in observer))
      .map(([path, p]) => [role, path, p._def.type] as const),
  );
  // Always probe a few names that must never exist for the observer, whatever the
  // other routers hold today.
  const alwaysForeign = [
    ['input.sendText', 'mutation'],
    ['grants.set', 'mutation'],
    ['auth.login', 'mutation'],
    ['oauthAdmin.revokeUser', 'mutation'],
    ['oauthAdmin.listGrants', 'query'],
    ['notes.create', 'mutation'],
    ['notes.delete', 'mutation'],
    ['notes.attachment', 'query'],
  ] as const;

  it('has only queries, plus mutations under oauth.', () => {
    const offending = Object.entries(observer).filter(([path, p]) => p._def.type !== 'query' && !path.startsWith('oauth.'));
    expect(offending.map(([path]) => path)).toEqual([]);
    expect(foreign.some(([, , kind]) => kind === 'mutation')).toBe(true);
  });

  it('answers a query it has', async () => {
    const r = await trpc('observer', 'health.ready', 'query');
    expect(r.status).toBe(200);
  });

  it('answers NOT_FOUND for every gateway or dashboard procedure it lacks', async () => {
    const probes = [...foreign.map(([, path, kind]) => [path, kind] as const), ...alwaysForeign];
    expect(probes.length).toBeGreaterThan(5);
    for (const [path, kind] of probes) {
      const r = await trpc('observer', path, kind);
      expect({ path, status: r.status }).toEqual({ path, status: 404 });
      expect(JSON.parse(r.body)).toMatchObject({ error: { data: { app: { code: 'NOT_FOUND' } } } });
    }
    // The control: the same kind of call on its own socket is routed.
    const own = await trpc('web', 'sessions.list', 'query');
    expect(own.status).toBe(200);
  });
});
