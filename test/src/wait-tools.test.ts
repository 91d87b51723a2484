// The MCP wait tools (real broker process, private tmux server, SDK client): terminal_wait_for_state returns when the pane's output brings the state, PENDING hands a resume token that terminal_resume_wait continues, and refusals carry an error_code and nothing of a denied session.
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createBrokerClient } from '@terminal-mcp/broker-client';
import type { WaitResult } from '@terminal-mcp/contract';
import { createGatewayMcpServer, createToolMetrics, ERROR_META_KEY } from '@terminal-mcp/gateway';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { startTmuxServer, type TmuxTestServer, type TmuxTestSession } from './helpers/tmux-server.js';
import { APPS_HOST_OPTIONS } from './helpers/apps-host.js';

const DENIED_MARK = 'wait-denied-5b1e';
const PROMPT = 'read -p "Continue? [y/N] "';

let tmux: TmuxTestServer;
let broker: BrokerProcess;
let client: Client;
let close: () => Promise<void>;

const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 }) as Promise<CallToolResult>;
const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
const errorCodeOf = (r: CallToolResult) => (r._meta?.[ERROR_META_KEY] as { error_code?: string } | undefined)?.error_code;

async function idleShell(name: string): Promise<TmuxTestSession> {
  const s = await tmux.newSession(name, 'bash --norc --noprofile', { width: 100, height: 30 });
  await vi.waitFor(
    async () => expect((await call('terminal_status', { session: name })).structuredContent).toMatchObject({ status: 'IDLE' }),
    { timeout: 60_000, interval: 50 },
  );
  return s;
}

beforeAll(async () => {
  tmux = await startTmuxServer();
  await tmux.newSession('private-wait-tools', `echo ${DENIED_MARK}; exec bash --norc --noprofile`);
  broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: { allowed_session_patterns: ['agent-*'], log_level: 'warn' } });
  const server = createGatewayMcpServer({
    broker: createBrokerClient({ role: 'gateway', socketPath: join(broker.socketDir, 'gateway.sock') }),
    metrics: createToolMetrics(),
  });
  client = new Client({ name: 'wait-tools-e2e', version: '0.0.0' }, APPS_HOST_OPTIONS);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(a), client.connect(b)]);
  close = async () => {
    await client.close();
    await server.close();
  };
});

afterAll(async () => {
  await close?.();
  await broker?.stop();
  await tmux?.kill();
});

describe('terminal_wait_for_state and terminal_resume_wait', () => {
  it('are listed read-only, with descriptions that explain the resume token', async () => {
    const { tools } = await client.listTools();
    const wait = tools.find((t) => t.name === 'terminal_wait_for_state')!;
    const resume = tools.find((t) => t.name === 'terminal_resume_wait')!;
    for (const t of [wait, resume]) {
      expect(t.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      expect(t.description!.length).toBeLessThan(600);
    }
    expect(wait.description).toMatch(/PENDING/);
    expect(wait.description).toMatch(/terminal_resume_wait/);
    expect(wait.inputSchema.required).toEqual(['session', 'states']);
    expect(resume.inputSchema.required).toEqual(['resume_token']);
  });

  it('returns WAITING_INPUT once the pane prints a prompt, before the timeout', async () => {
    const s = await idleShell('agent-wait-tool');
    setTimeout(() => void tmux.tmux(['send-keys', '-t', s.paneId, `sleep 0.2; ${PROMPT}`, 'Enter']), 300);
    const result = await call('terminal_wait_for_state', { session: 'agent-wait-tool', states: ['WAITING_INPUT'], timeout_s: 20 });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ state: 'WAITING_INPUT', resume_token: null });
    // The state itself says it was woken, not timed out (no wall-clock bound: machines here are busy).
    expect(textOf(result)).toMatch(/reached WAITING_INPUT/);
  });

  it('answers PENDING with a token, and terminal_resume_wait completes the wait', async () => {
    const s = await idleShell('agent-resume-tool');
    const pending = await call('terminal_wait_for_state', { session: 'agent-resume-tool', states: ['WAITING_INPUT'], timeout_s: 1 });
    const first = pending.structuredContent as WaitResult;
    expect(first.state).toBe('PENDING');
    expect(first.resume_token).toBeTruthy();
    expect(textOf(pending)).toContain(`terminal_resume_wait with resume_token "${first.resume_token}"`);

    setTimeout(() => void tmux.tmux(['send-keys', '-t', s.paneId, PROMPT, 'Enter']), 300);
    const resumed = await call('terminal_resume_wait', { resume_token: first.resume_token, timeout_s: 20 });
    expect(resumed.structuredContent).toMatchObject({ state: 'WAITING_INPUT', session: 'agent-resume-tool' });
  });

  it('answers RESUME_TOKEN_INVALID for an unknown token', async () => {
    const result = await call('terminal_resume_wait', { resume_token: 'rw_forged' });
    expect(result.isError).toBe(true);
    expect(errorCodeOf(result)).toBe('RESUME_TOKEN_INVALID');
    expect(textOf(result)).toMatch(/start a new wait/);
  });

  it('refuses a denied session with SESSION_NOT_ALLOWED and none of its content', async () => {
    const result = await call('terminal_wait_for_state', { session: 'private-wait-tools', states: ['IDLE'], timeout_s: 1 });
    expect(result.isError).toBe(true);
    expect(errorCodeOf(result)).toBe('SESSION_NOT_ALLOWED');
    expect(JSON.stringify(result)).not.toContain(DENIED_MARK);
    expect(result.structuredContent).toBeUndefined();
  });
});
