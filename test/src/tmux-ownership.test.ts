// tmux belongs to the user: a real broker never starts a tmux server (after kill-server it answers TMUX_UNAVAILABLE with a hint and attaches to the next server the user starts), and neither a SIGKILLed nor a stopped broker leaves its hidden session behind. (The bursts that crashed tmux while the broker recorded are in tmux-crash-bursts.test.ts.)
import { join } from 'node:path';
import { createBrokerClient, type BrokerClient } from '@terminal-mcp/broker-client';
import { readAppErrorData } from '@terminal-mcp/contract';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';
import { GENEROUS_WAIT_MS } from './helpers/wait-for.js';

const HIDDEN = '__terminal_mcp_control';

let tmux: TmuxTestServer;
let broker: BrokerProcess;
let client: BrokerClient<'gateway'>;

function connect(): void {
  client = createBrokerClient({ role: 'gateway', socketPath: join(broker.socketDir, 'gateway.sock') });
}

async function sessionNames(): Promise<string[]> {
  return (await tmux.tmux(['list-sessions', '-F', '#{session_name}'])).split('\n').sort();
}

/** Whether a server answers on the socket, asked without starting one (-N). */
async function serverAnswers(): Promise<boolean> {
  const result = await execa('tmux', ['-L', tmux.socketName, '-N', 'list-sessions'], { env: tmuxEnv(), extendEnv: false, reject: false, stdin: 'ignore' });
  return result.exitCode === 0;
}

async function listedNames(): Promise<string[]> {
  const { sessions } = await client.sessions.list.query({});
  return sessions.map((s) => s.name).sort();
}

beforeAll(async () => {
  tmux = await startTmuxServer();
  await tmux.newSession('agent-1', 'sleep 600');
  broker = await startBrokerProcess({ tmuxSocket: tmux.socketName });
  connect();
});

afterAll(async () => {
  await broker?.stop();
  await tmux?.kill();
});

describe('tmux belongs to the user', () => {
  it('a SIGKILLed broker leaves no hidden session, and the next start leaves exactly one', async () => {
    await vi.waitFor(async () => expect(await listedNames()).toEqual(['agent-1']), { timeout: GENEROUS_WAIT_MS, interval: 100 });
    expect(await sessionNames()).toEqual([HIDDEN, 'agent-1'].sort());

    broker.kill('SIGKILL');
    await broker.exited();
    // The hidden pane's loop saw the broker's pid gone; the session closed with it.
    await vi.waitFor(async () => expect(await sessionNames()).toEqual(['agent-1']), { timeout: GENEROUS_WAIT_MS, interval: 100 });

    // A hidden session as older brokers left it behind (its pane runs cat) is reused.
    await tmux.tmux(['new-session', '-d', '-s', HIDDEN, 'cat']);
    broker = await broker.restart();
    connect();
    await vi.waitFor(async () => expect(await listedNames()).toEqual(['agent-1']), { timeout: GENEROUS_WAIT_MS, interval: 100 });
    expect(await sessionNames()).toEqual([HIDDEN, 'agent-1'].sort());
    expect(await tmux.tmux(['list-clients', '-F', '#{session_name}'])).toBe(HIDDEN);
  });

  it('after kill-server lists no server, answers reads TMUX_UNAVAILABLE with a hint, starts no server, and reads again once the user starts one', async () => {
    await tmux.kill();
    // The listing still answers (the registry keeps what died) and says tmux is not running.
    await vi.waitFor(
      async () => expect(await client.sessions.list.query({})).toMatchObject({ sessions: [], tmux: 'not_running' }),
      { timeout: 60_000, interval: 100 },
    );
    await vi.waitFor(
      async () => {
        const err = await client.sessions.tail.query({ session: 'agent-1', lines: 5 }).then(
          () => null,
          (e: unknown) => readAppErrorData(e),
        );
        expect(err?.code).toBe('TMUX_UNAVAILABLE');
        expect(err?.hint).toContain('tmux new -s');
      },
      { timeout: GENEROUS_WAIT_MS, interval: 100 },
    );
    // The broker keeps looking for a server for a good while and never starts one.
    const until = Date.now() + 3_000;
    while (Date.now() < until) {
      expect(await serverAnswers()).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    // The user starts tmux again: the broker attaches by itself.
    tmux = await startTmuxServer({ socketName: tmux.socketName });
    await tmux.newSession('agent-2', 'sleep 600');
    await vi.waitFor(async () => expect(await listedNames()).toEqual(['agent-2']), { timeout: GENEROUS_WAIT_MS, interval: 200 });
  });

  it('a broker that stops normally takes its hidden session with it', async () => {
    await vi.waitFor(async () => expect(await sessionNames()).toContain(HIDDEN), { timeout: GENEROUS_WAIT_MS, interval: 100 });
    await broker.stop();
    await vi.waitFor(async () => expect(await sessionNames()).toEqual(['agent-2']), { timeout: GENEROUS_WAIT_MS, interval: 100 });
  });
});

function tmuxEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.TMUX;
  delete env.TMUX_PANE;
  return env;
}

