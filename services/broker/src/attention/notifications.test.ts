// Guards the notices for a person: notify_user and terminal_request_human (one per-client budget) reach a local HTTP receiver, through the broker's notice outbox and the notifier's sending loop (services/notifier, over the real notifier.sock procedures), as a JSON webhook and as ntfy-style push, filtered per channel (kinds, level), rate-limited per channel (client-raised notices to half of it and never its last slot, so the broker's own are never starved, also at per_minute 1) and per client, de-duplicated, redacted, and every delivery is recorded in notify.db; the dashboard lists them.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAppErrorData } from '@terminal-mcp/contract';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTmuxServer, type TmuxTestServer } from '../../../../test/src/helpers/tmux-server.js';
import { configSchema } from '../config/schema.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from '../effects/tmux/adapter.js';
import { createContextInner } from '../rpc/context.js';
import type { BrokerDeps } from '../rpc/deps.js';
import { gatewayRouter } from '../rpc/roles/gateway.js';
import { webRouter } from '../rpc/roles/web.js';
import { createCallerFactory } from '../rpc/trpc.js';
import { startNotifier, type RunningNotifier } from '@terminal-mcp/notifier';
import type { BrokerClient } from '@terminal-mcp/broker-client';
import { notifierRouter } from '../rpc/roles/notifier.js';
import { testDeps } from '../testing/deps.testkit.js';
import { operatorToken } from '../webauth/operator-token.testkit.js';

/** A GitHub token shape the redactor knows (not a real token). */
const TOKEN = `ghp_${'a1B2c3D4e5F6g7H8i9J0'.repeat(2).slice(0, 36)}`;

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let receiver: Server;
const received: Received[] = [];
let tmux: TmuxTestServer;
let adapter: ControlModeTmuxAdapter;
let root: string;
let deps: BrokerDeps;
let notifier: RunningNotifier;
let base: string;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  tmux = await startTmuxServer();
  await tmux.newSession('agent-notify', 'exec cat');
  adapter = createTmuxAdapter({ socketName: tmux.socketName, configFile: '/dev/null' });
  expect(await adapter.waitUntilConnected(10_000)).toBe(true);
  root = mkdtempSync(join(tmpdir(), 'tmcp-notify-'));
  const config = configSchema.parse({
    permissions: { terminal_read: true, terminal_input: true },
    allowed_session_patterns: ['agent-*'],
    notifications: {
      agent_per_minute: 3,
      channels: [
        { name: 'hook', url: `${base}/hook`, format: 'json', per_minute: 3 },
        { name: 'phone', url: `${base}/phone-topic`, format: 'ntfy', kinds: ['waiting_for_human', 'agent_message'], min_level: 'warning' },
      ],
    },
  });
  deps = testDeps({ config, tmux: adapter, stateDir: join(root, 'state'), log: pino({ level: 'silent' }), info: { version: 'test', startedAt: new Date(), tmuxSocket: tmux.socketName } });
  notifier = inProcessNotifier(deps);
}, 60_000);

afterAll(async () => {
  await notifier?.close();
  await adapter?.close();
  deps?.stores.close();
  await tmux?.kill();
  await new Promise((resolve) => receiver?.close(resolve));
  if (root) rmSync(root, { recursive: true, force: true });
});

/** The notifier's loop (services/notifier) over this broker's notifier procedures, called
 * in process instead of over notifier.sock (the cross-process path is
 * test/src/notifier-delivery.test.ts). */
function inProcessNotifier(brokerDeps: BrokerDeps): RunningNotifier {
  const caller = createCallerFactory(notifierRouter)(createContextInner({ role: 'notifier', deps: brokerDeps }));
  const client = {
    notifier: {
      started: { mutate: (input: Record<string, never>) => caller.notifier.started(input) },
      claim: { mutate: (input: { max: number; wait_ms: number }) => caller.notifier.claim(input) },
      report: { mutate: (input: Parameters<typeof caller.notifier.report>[0]) => caller.notifier.report(input) },
    },
  } as unknown as BrokerClient<'notifier'>;
  return startNotifier({ client, log: pino({ level: 'silent' }), waitMs: 200 });
}

const agent = (actor: string) => createCallerFactory(gatewayRouter)(createContextInner({ role: 'gateway', deps, actor }));
const at = (path: string) => received.filter((r) => r.path === path);
const deliveries = () => deps.stores.db('notify').prepare('SELECT channel, kind, raised_by, outcome, http_status FROM notice_delivery ORDER BY id').all() as Record<string, unknown>[];
async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'OK';
  } catch (err) {
    return (readAppErrorData((err as { cause?: unknown }).cause) ?? readAppErrorData(err))?.code ?? String(err);
  }
}

describe('notices for a person', () => {
  it('delivers an agent notice to the webhook redacted, and not to a push channel whose level filter refuses it; the same notice again is not sent', async () => {
    const first = await agent('gateway:agent-a').human.notify({ message: `build finished, token ${TOKEN} rotated`, level: 'info' });
    expect(first).toMatchObject({ deduplicated: false });
    await vi.waitFor(() => expect(at('/hook')).toHaveLength(1), { timeout: 10_000 });
    const payload = JSON.parse(at('/hook')[0]!.body) as { source: string; notice: { kind: string; message: string; from: string } };
    expect(payload).toMatchObject({ source: 'terminal-mcp', notice: { kind: 'agent_message', from: 'gateway:agent-a' } });
    expect(payload.notice.message).toContain('build finished');
    expect(payload.notice.message).not.toContain(TOKEN);
    expect(await agent('gateway:agent-a').human.notify({ message: `build finished, token ${TOKEN} rotated`, level: 'info' })).toEqual({ notice_id: 0, deduplicated: true });
    // info is below the phone's min_level (warning).
    await new Promise((r) => setTimeout(r, 300));
    expect(at('/hook')).toHaveLength(1);
    expect(at('/phone-topic')).toHaveLength(0);
  });

  it('sends a request for a human to the phone as ntfy push (title, priority, tags; the reason as the body) and to the webhook', async () => {
    const asked = await agent('gateway:agent-a').human.request({ session: 'agent-notify', reason: 'type the deploy key passphrase' });
    expect(asked).toMatchObject({ session: 'agent-notify', notified: true });
    await vi.waitFor(() => expect(at('/phone-topic')).toHaveLength(1), { timeout: 10_000 });
    const push = at('/phone-topic')[0]!;
    expect(push.body).toBe('type the deploy key passphrase');
    expect(push.headers).toMatchObject({ title: 'Terminal MCP: waiting for human in agent-notify', priority: '5', tags: 'waiting_for_human' });
    await vi.waitFor(() => expect(at('/hook')).toHaveLength(2), { timeout: 10_000 });
  });

  it('rate-limits notify_user and terminal_request_human per client on one budget, and each channel per minute, clients to half of it (audited RATE_LIMITED)', async () => {
    const a = agent('gateway:agent-a');
    // agent-a has used its three notices this minute: two notify_user (the deduplicated one
    // counted too) and one terminal_request_human, which spends the same budget (issue 45).
    expect(await codeOf(a.human.notify({ message: 'second distinct notice', level: 'warning' }))).toBe('RATE_LIMITED');
    expect(await codeOf(a.human.request({ session: 'agent-notify', reason: 'another urgent request' }))).toBe('RATE_LIMITED');
    // Another client has its own allowance.
    expect(await codeOf(agent('gateway:agent-b').human.notify({ message: 'from another client', level: 'urgent' }))).toBe('OK');
    await vi.waitFor(() => expect(deliveries().filter((d) => d.channel === 'hook')).toHaveLength(3), { timeout: 10_000 });
    // The webhook takes 3 a minute, notices clients raised 2 of them: the third client
    // notice is refused, and what the broker raises itself still goes out.
    deps.attention.raise({ kind: 'approval_needed', level: 'warning', session: 'agent-notify', message: 'gateway:agent-b proposed input (approval 1)', from: 'broker:review' });
    await vi.waitFor(() => expect(deliveries().filter((d) => d.channel === 'hook')).toHaveLength(4), { timeout: 10_000 });
    // (A refusal is recorded at once, a delivery when the receiver answered: compare as a set.)
    expect(deliveries().filter((d) => d.channel === 'hook').map((d) => d.outcome).sort()).toEqual(['RATE_LIMITED', 'SENT', 'SENT', 'SENT']);
    expect(deliveries().filter((d) => d.channel === 'hook' && d.outcome === 'RATE_LIMITED')).toEqual([expect.objectContaining({ kind: 'agent_message', raised_by: 'gateway:agent-b' })]);
    await vi.waitFor(() => expect(at('/hook')).toHaveLength(3), { timeout: 10_000 });
    expect(JSON.parse(at('/hook').at(-1)!.body)).toMatchObject({ notice: { kind: 'approval_needed', from: 'broker:review' } });
    await vi.waitFor(() => expect(at('/phone-topic')).toHaveLength(2), { timeout: 10_000 });
    expect(deliveries().filter((d) => d.channel === 'phone').every((d) => d.outcome === 'SENT' && d.http_status === 200)).toBe(true);
    expect(deliveries()[0]).toMatchObject({ kind: 'agent_message', raised_by: 'gateway:agent-a' });
  });

  it('keeps a flood of client requests from starving the broker\'s own notices on a channel', async () => {
    // A broker of its own whose one channel (per_minute 4) is the pager: 25 urgent requests
    // for a person from 25 clients, then the broker's approval_needed.
    const own = testDeps({
      config: configSchema.parse({ notifications: { channels: [{ name: 'pager', url: `${base}/pager`, format: 'ntfy', per_minute: 4 }] } }),
      tmux: adapter,
      stateDir: join(root, 'pager-state'),
      log: pino({ level: 'silent' }),
      info: { version: 'test', startedAt: new Date(), tmuxSocket: tmux.socketName },
    });
    const pagerNotifier = inProcessNotifier(own);
    const pagerRows = () => own.stores.db('notify').prepare('SELECT channel, kind, raised_by, outcome, http_status FROM notice_delivery ORDER BY id').all() as Record<string, unknown>[];
    try {
      for (let i = 0; i < 25; i++) own.attention.raise({ kind: 'waiting_for_human', level: 'urgent', session: 'agent-notify', message: `flood request ${i}`, from: `gateway:flood-${i}` });
      own.attention.raise({ kind: 'approval_needed', level: 'warning', session: 'agent-notify', message: 'a real approval (approval 7)', from: 'broker:review' });
      await vi.waitFor(() => expect(pagerRows()).toHaveLength(26), { timeout: 10_000 });
      const pager = pagerRows();
      expect(pager.filter((d) => d.kind === 'waiting_for_human' && d.outcome === 'SENT')).toHaveLength(2);
      expect(pager.filter((d) => d.kind === 'approval_needed')).toEqual([expect.objectContaining({ outcome: 'SENT', raised_by: 'broker:review' })]);
      await vi.waitFor(() => expect(at('/pager').map((r) => r.headers.tags)).toContain('approval_needed'), { timeout: 10_000 });
    } finally {
      await pagerNotifier.close();
      own.stores.close();
    }
  });

  it('keeps the one slot of a per_minute: 1 channel for the broker\'s approval, unless the channel takes only client notices', async () => {
    const own = testDeps({
      config: configSchema.parse({
        notifications: {
          channels: [
            { name: 'one', url: `${base}/one`, format: 'json', per_minute: 1 },
            { name: 'asks', url: `${base}/asks`, format: 'json', per_minute: 1, kinds: ['waiting_for_human'] },
          ],
        },
      }),
      tmux: adapter,
      stateDir: join(root, 'one-slot-state'),
      log: pino({ level: 'silent' }),
      info: { version: 'test', startedAt: new Date(), tmuxSocket: tmux.socketName },
    });
    const oneNotifier = inProcessNotifier(own);
    const rows = (channel: string) => own.stores.db('notify').prepare('SELECT channel, kind, outcome FROM notice_delivery WHERE channel = ? ORDER BY id').all(channel) as Record<string, unknown>[];
    try {
      own.attention.raise({ kind: 'waiting_for_human', level: 'urgent', session: 'agent-notify', message: 'a request first', from: 'gateway:first' });
      own.attention.raise({ kind: 'approval_needed', level: 'warning', session: 'agent-notify', message: 'then a real approval (approval 9)', from: 'broker:review' });
      await vi.waitFor(() => expect(rows('one').filter((d) => d.outcome !== 'PENDING')).toHaveLength(2), { timeout: 10_000 });
      expect(rows('one').map((d) => [d.kind, d.outcome]).sort()).toEqual([
        ['approval_needed', 'SENT'],
        ['waiting_for_human', 'RATE_LIMITED'],
      ]);
      // A channel that carries only requests for a person gives them its whole minute.
      await vi.waitFor(() => expect(rows('asks')).toEqual([expect.objectContaining({ kind: 'waiting_for_human', outcome: 'SENT' })]), { timeout: 10_000 });
    } finally {
      await oneNotifier.close();
      own.stores.close();
    }
  });

  it('refuses a notice about a session the client may not read, and lists every notice for the signed-in operator', async () => {
    expect(await codeOf(agent('gateway:agent-c').human.notify({ message: 'about a stranger', session: 'no-such-session' }))).toBe('SESSION_NOT_FOUND');
    const web = createCallerFactory(webRouter)(createContextInner({ role: 'web', deps, operatorToken: operatorToken(deps, 'admin') }));
    const notices = await web.human.notices({});
    expect(notices.map((n) => n.kind).slice(0, 4)).toEqual(['agent_message', 'waiting_for_human', 'agent_message', 'approval_needed']);
    expect(JSON.stringify(notices)).not.toContain(TOKEN);
    expect(await codeOf(createCallerFactory(webRouter)(createContextInner({ role: 'web', deps })).human.notices({}))).toBe('UNAUTHENTICATED');
  });
});
