// Guards terminal_session_forget end to end (SDK client → HTTP gateway → broker process → a private tmux server): a gone session becomes a DELETED tombstone only after a dry run and confirm, pinned to the id it was listed with, under the registry-cleanup rules (never a name alive now, never a protected one), every call audited.
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createBrokerClient } from '@terminal-mcp/broker-client';
import { createGatewayLogger, ERROR_META_KEY, startGatewayHttp, type RunningGatewayHttp } from '@terminal-mcp/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';
import { waitFor } from './helpers/wait-for.js';

const TOKEN = 'forget-e2e-token';
let tmux: TmuxTestServer;
let broker: BrokerProcess;
let gw: RunningGatewayHttp;
let client: Client;

const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 }) as Promise<CallToolResult>;
const codeOf = (r: CallToolResult) => (r._meta?.[ERROR_META_KEY] as { error_code?: string } | undefined)?.error_code;
const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
/** The gone sessions the registry lists (what terminal_list_sessions include_dead shows): name → session ids. */
async function gone(): Promise<Map<string, string[]>> {
  const listed = await createBrokerClient({ role: 'gateway', socketPath: join(broker.socketDir, 'gateway.sock') }).sessions.list.query({ include_dead: true });
  const out = new Map<string, string[]>();
  for (const d of listed.dead_sessions ?? []) if (d.status === 'KILLED' || d.status === 'MISSING') out.set(d.name, [...(out.get(d.name) ?? []), d.session_id]);
  return out;
}
const idOf = async (name: string) => (await tmux.tmux(['display-message', '-p', '-t', `=${name}:`, '#{session_id}'])).trim();

beforeAll(async () => {
  tmux = await startTmuxServer();
  broker = await startBrokerProcess({
    tmuxSocket: tmux.socketName,
    config: {
      log_level: 'warn',
      permissions: { terminal_read: true, terminal_input: true, session_lifecycle: true },
      allowed_session_patterns: ['agent-*'],
      gateway: { toolsets: { http: ['core', 'input', 'lifecycle'] } },
      session_lifecycle: { protected_sessions: ['agent-kept'] },
    },
  });
  gw = await startGatewayHttp({ port: 0, env: broker.env, log: createGatewayLogger('silent'), token: TOKEN });
  client = new Client({ name: 'forget-e2e', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
}, 120_000);

afterAll(async () => {
  await client?.close();
  await gw?.close();
  await broker?.stop();
  await tmux?.kill();
});

describe('terminal_session_forget', () => {
  const ids = new Map<string, string>();

  beforeAll(async () => {
    for (const name of ['agent-old', 'agent-kept', 'agent-back']) {
      await tmux.tmux(['new-session', '-d', '-s', name, 'sleep', '600']);
      ids.set(name, await idOf(name));
    }
    await waitFor('the registry has them', async () => textOf(await call('terminal_list_sessions', {})).includes('agent-back'), 60_000);
    for (const name of ids.keys()) await tmux.tmux(['kill-session', '-t', `=${name}`]);
    await waitFor('all three gone', async () => (await gone()).size === 3, 60_000);
    // A new session by the same name: the gone row of agent-back is held back (LIVE_NOW).
    await tmux.tmux(['new-session', '-d', '-s', 'agent-back', 'sleep', '600']);
  }, 180_000);

  it('is a dry run without confirm, then tombstones exactly the row it was shown', async () => {
    const id = ids.get('agent-old')!;
    const dry = await call('terminal_session_forget', { session: 'agent-old', expect_session_id: id });
    expect(textOf(dry)).toMatch(/^DRY_RUN "agent-old" \(\$\d+\): 1 registry row\(s\)/);
    expect((await gone()).get('agent-old')).toEqual([id]);

    const wrong = await call('terminal_session_forget', { session: 'agent-old', expect_session_id: '$99999', confirm: true });
    expect(codeOf(wrong)).toBe('SESSION_NOT_FOUND');

    const done = await call('terminal_session_forget', { session: 'agent-old', expect_session_id: id, confirm: true });
    expect(done.isError).toBeFalsy();
    expect(textOf(done)).toMatch(/^DELETED "agent-old"/);
    expect((await gone()).has('agent-old')).toBe(false);
    const again = await call('terminal_session_forget', { session: 'agent-old', expect_session_id: id, confirm: true });
    expect(codeOf(again)).toBe('SESSION_NOT_FOUND');
  });

  it('keeps what the cleanup rules keep: a protected name, and a name alive again', async () => {
    for (const [name, why] of [
      ['agent-kept', /protected_sessions/],
      ['agent-back', /alive now/],
    ] as const) {
      const r = await call('terminal_session_forget', { session: name, expect_session_id: ids.get(name)!, confirm: true });
      expect(codeOf(r), name).toBe('FORBIDDEN');
      expect(textOf(r)).toMatch(why);
      expect((await gone()).get(name), name).toEqual([ids.get(name)]);
    }
  });

  it('audits every call under the tool name', async () => {
    for (const [session, decisions] of [
      ['agent-old', ['DRY_RUN', 'SENT', 'BLOCKED']],
      ['agent-kept', ['BLOCKED']],
    ] as const) {
      const text = textOf(await call('terminal_list_input_audit', { session }));
      expect(text, session).toContain('terminal_session_forget');
      for (const decision of decisions) expect(text, `${session} ${decision}`).toContain(decision);
    }
  });
});
