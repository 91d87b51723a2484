// Guards "the registry answers without tmux": after the user's last session ended and the tmux server exited, terminal_list_sessions (real SDK client, HTTP gateway, real broker) answers with the registry's gone sessions and tmux: "not_running" instead of TMUX_UNAVAILABLE, and says "running" again once a new server appears.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createGatewayLogger, parseRows, startGatewayHttp, type RunningGatewayHttp } from '@terminal-mcp/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';
import { waitFor } from './helpers/wait-for.js';

const CONFIG = { allowed_session_patterns: ['claude-*'], log_level: 'warn' };

describe('terminal_list_sessions once the tmux server has exited', { timeout: 240_000 }, () => {
  let tmux: TmuxTestServer;
  let next: TmuxTestServer | undefined;
  let broker: BrokerProcess;
  let gateway: RunningGatewayHttp;
  let client: Client;

  /** The answer as a client reads it from the text (terminal_list_sessions answers with text
   * only): the head line says whether tmux runs, the table has the live sessions, and the
   * lines after "gone (registry):" the dead ones with their status. */
  const list = async (args: Record<string, unknown>) => {
    const r = (await client.callTool({ name: 'terminal_list_sessions', arguments: args })) as CallToolResult;
    const text = r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
    if (r.isError) return { result: r, out: undefined, text };
    const gone = text.indexOf('gone (registry):');
    const dead = gone < 0 ? undefined : [...text.slice(gone).matchAll(/^- ("(?:[^"\\]|\\.)*") (\w+) since /gm)].map((m) => ({ name: JSON.parse(m[1]!) as string, status: m[2]! }));
    const live = text.split('\n').some((l) => l.startsWith('name\t')) ? parseRows(text.slice(0, gone < 0 ? undefined : gone), 'name') : [];
    return { result: r, out: { tmux: text.startsWith('tmux is not running') ? 'not_running' : 'running', sessions: live, ...(dead ? { dead_sessions: dead } : {}) }, text };
  };

  beforeAll(async () => {
    tmux = await startTmuxServer();
    await tmux.newSession('claude-last', 'bash --norc --noprofile');
    // As a user's own server: it exits with its last session (the helper keeps test
    // servers up with exit-empty off).
    await tmux.tmux(['set-option', '-s', 'exit-empty', 'on']);
    broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: CONFIG, readyTimeoutMs: 60_000 });
    gateway = await startGatewayHttp({ port: 0, env: broker.env, log: createGatewayLogger('silent'), allowOpen: true });
    client = new Client({ name: 'registry-without-tmux', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway.mcpUrl)));
  }, 120_000);

  afterAll(async () => {
    await client?.close().catch(() => {});
    await gateway?.close();
    await broker?.stop();
    await next?.kill();
    await tmux?.kill();
  }, 60_000);

  it('lists what died, from the registry, and says tmux is not running', async () => {
    const before = await waitFor('the broker to list claude-last', async () => {
      const r = await list({});
      return r.out?.sessions.some((s) => s.name === 'claude-last') ? r : undefined;
    }, 60_000);
    expect(before.out!.tmux).toBe('running');

    // The user's last session ends: the broker leaves the server, which then exits.
    await tmux.tmux(['send-keys', '-t', '=claude-last:', 'exit', 'Enter']);
    await waitFor('the tmux server to exit', async () => {
      try {
        await tmux.tmux(['list-sessions']);
        return false;
      } catch {
        return true;
      }
    }, 60_000);

    const gone = await waitFor('the registry to answer without tmux', async () => {
      const r = await list({ include_dead: true });
      return r.out?.dead_sessions?.some((d) => d.name === 'claude-last') ? r : undefined;
    }, 60_000);
    expect(gone.result.isError).toBeFalsy();
    expect(gone.out!.tmux).toBe('not_running');
    expect(gone.out!.sessions).toEqual([]);
    expect(gone.out!.dead_sessions!.find((d) => d.name === 'claude-last')!.status).toMatch(/^(KILLED|MISSING)$/);
    expect(gone.text).toContain('tmux is not running');
    expect(gone.text).toContain('claude-last');

    // Without include_dead: an empty list that says why, not an error.
    const plain = await list({});
    expect(plain.result.isError).toBeFalsy();
    expect(plain.out).toMatchObject({ sessions: [], tmux: 'not_running' });
    expect(plain.text).toContain('include_dead: true lists the sessions that are gone');
  });

  it('says running again once a new tmux server appears', async () => {
    next = await startTmuxServer({ socketName: tmux.socketName });
    await next.newSession('claude-next', 'bash --norc --noprofile');
    const r = await waitFor('the broker to attach to the new server', async () => {
      const l = await list({});
      return l.out?.sessions.some((s) => s.name === 'claude-next') ? l : undefined;
    }, 60_000);
    expect(r.out!.tmux).toBe('running');
  });
});
