// Guards the session lifecycle tools end to end (SDK client → HTTP gateway → broker process → a private tmux server): each launch profile starts, closes (dry run, then pinned and confirmed) and restarts (new identity) through a real MCP client; a profile cannot be bent through the tools (a command argument, cwd escapes through .. and a symlink, names with ; a leading - and #{}); the tools are listed only in the lifecycle toolset, and refused while permissions.session_lifecycle is off.
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createGatewayLogger, ERROR_META_KEY, startGatewayHttp, type RunningGatewayHttp } from '@terminal-mcp/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';

const TOKEN = 'lifecycle-e2e-token';
const TOOLS = ['terminal_session_start', 'terminal_session_close', 'terminal_session_restart', 'terminal_session_forget', 'terminal_resize'];

let root: string;
let work: string;
const clients: Client[] = [];

function config(lifecycle: boolean) {
  return {
    permissions: { terminal_read: true, terminal_input: true, session_lifecycle: lifecycle },
    allowed_session_patterns: ['shell-*', 'sleeper-*'],
    gateway: { toolsets: { http: ['core', 'input', 'lifecycle'] } },
    launch_profiles: [
      { name: 'shell', command: ['env', 'PS1=$ ', 'HISTFILE=/dev/null', 'bash', '--norc', '--noprofile', '-i'], roots: [work], ready_command: 'bash' },
      { name: 'sleeper', command: ['sleep', '600'], roots: [work] },
    ],
    log_level: 'warn',
  };
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'lifecycle-e2e', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  clients.push(client);
  return client;
}

const call = (client: Client, name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 }) as Promise<CallToolResult>;
const errorCodeOf = (r: CallToolResult) => (r._meta?.[ERROR_META_KEY] as { error_code?: string } | undefined)?.error_code;
const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
/** The session id a start or restart names in its text (`"name" ($3, pane %4)` or `$2 → $3`). */
const newIdOf = (r: CallToolResult) => {
  if (r.isError) throw new Error(textOf(r));
  return /\((?:\$\d+ → )?(\$\d+)[,)]/.exec(textOf(r))?.[1];
};

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'tmcp-lifecycle-e2e-'));
  work = join(root, 'work');
  mkdirSync(work);
  mkdirSync(join(root, 'outside'));
  symlinkSync(join(root, 'outside'), join(work, 'out'));
});

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  rmSync(root, { recursive: true, force: true });
});

describe('session lifecycle over MCP with a live broker', () => {
  let tmux: TmuxTestServer;
  let broker: BrokerProcess;
  let gw: RunningGatewayHttp;
  let client: Client;
  const sessions = async () => (await tmux.tmux(['list-sessions', '-F', '#{session_name} #{session_id}'])).trim().split('\n').filter((l) => !l.startsWith('__'));

  beforeAll(async () => {
    tmux = await startTmuxServer();
    broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: config(true) });
    gw = await startGatewayHttp({ port: 0, env: broker.env, log: createGatewayLogger('silent'), token: TOKEN });
    client = await connect(gw.mcpUrl);
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
    await broker?.stop();
    await tmux?.kill();
  });

  it('lists the four tools in the lifecycle toolset, none read-only', async () => {
    const { tools } = await client.listTools();
    for (const name of TOOLS) expect(tools.find((t) => t.name === name)?.annotations, name).toMatchObject({ readOnlyHint: false });
  });

  it.each(['shell', 'sleeper'])('starts, closes and restarts a session of profile %s', async (profile) => {
    const name = `${profile}-e2e`;
    const started = await call(client, 'terminal_session_start', { profile, name });
    const id = newIdOf(started)!;
    expect(textOf(started)).toContain(`STARTED "${name}"`);
    expect(await sessions()).toContain(`${name} ${id}`);

    const restarted = await call(client, 'terminal_session_restart', { session: name, expect_session_id: id, confirm: true });
    const next = newIdOf(restarted)!;
    expect(textOf(restarted)).toContain('RESTARTED');
    expect(next).not.toBe(id);
    expect(await sessions()).toContain(`${name} ${next}`);

    // Pinned: the old id no longer closes anything.
    expect(errorCodeOf(await call(client, 'terminal_session_close', { session: name, expect_session_id: id, confirm: true }))).toBe('IDENTITY_CHANGED');
    expect(textOf(await call(client, 'terminal_session_close', { session: name, expect_session_id: next }))).toContain('DRY_RUN');
    expect(await sessions()).toContain(`${name} ${next}`);
    expect(textOf(await call(client, 'terminal_session_close', { session: name, expect_session_id: next, confirm: true }))).toContain('CLOSED');
    expect((await sessions()).some((l) => l.startsWith(`${name} `))).toBe(false);
  }, 120_000);

  it('cannot be bent into running something else or elsewhere', async () => {
    const marker = join(root, 'pwned');
    const before = await sessions();
    const attempts: [Record<string, unknown>, string][] = [
      [{ profile: 'sleeper', name: 'sleeper-x', command: `touch ${marker}` }, 'INVALID_ARGUMENT'],
      [{ profile: 'sleeper', name: 'sleeper-x', cwd: `${work}/../outside` }, 'LAUNCH_NOT_ALLOWED'],
      [{ profile: 'sleeper', name: 'sleeper-x', cwd: join(work, 'out') }, 'LAUNCH_NOT_ALLOWED'],
      [{ profile: 'sleeper', name: `sleeper-x;` }, 'LAUNCH_NOT_ALLOWED'],
      [{ profile: 'sleeper', name: `sleeper-x ; run-shell "touch ${marker}"` }, 'LAUNCH_NOT_ALLOWED'],
      [{ profile: 'sleeper', name: '-Xsleeper' }, 'LAUNCH_NOT_ALLOWED'],
      [{ profile: 'sleeper', name: 'sleeper-#{pid}' }, 'LAUNCH_NOT_ALLOWED'],
      [{ profile: 'sleeper', name: `sleeper-#(touch ${marker})` }, 'LAUNCH_NOT_ALLOWED'],
      [{ profile: 'nope' }, 'PROFILE_NOT_FOUND'],
    ];
    const found: string[] = [];
    for (const [args, want] of attempts) {
      const code = errorCodeOf(await call(client, 'terminal_session_start', args));
      if (code !== want) found.push(`${JSON.stringify(args)}: ${code}`);
    }
    expect(found).toEqual([]);
    expect(await sessions()).toEqual(before);
    expect(existsSync(marker)).toBe(false);
  }, 60_000);

  it('is refused while permissions.session_lifecycle is off', async () => {
    const off = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: config(false) });
    const offGw = await startGatewayHttp({ port: 0, env: off.env, log: createGatewayLogger('silent'), token: TOKEN });
    try {
      const c = await connect(offGw.mcpUrl);
      expect(errorCodeOf(await call(c, 'terminal_session_start', { profile: 'sleeper', name: 'sleeper-off' }))).toBe('LIFECYCLE_DISABLED');
      expect((await sessions()).some((l) => l.startsWith('sleeper-off '))).toBe(false);
    } finally {
      await offGw.close();
      await off.stop();
    }
  }, 120_000);
});
