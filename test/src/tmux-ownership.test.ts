// tmux belongs to the user: a real broker never starts a tmux server (after kill-server it answers TMUX_UNAVAILABLE with a hint and attaches to the next server the user starts), and neither a SIGKILLed nor a stopped broker leaves its hidden session behind.
import { join } from 'node:path';
import { createBrokerClient, type BrokerClient } from '@terminal-mcp/broker-client';
import { readAppErrorData } from '@terminal-mcp/contract';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';
import { GENEROUS_WAIT_MS } from './helpers/wait-for.js';

const HIDDEN = '__terminal_mcp_control';
/** The terminal name of the broker's output watchers (effects/tmux/pane-watch.ts). */
const WATCHER_TERM = 'terminal-mcp-watcher';

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
      { timeout: 20_000, interval: 100 },
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

describe('a SIGKILLed broker with many clients attached', () => {
  // Every client of a killed broker disconnects at once: its command client and one output
  // watcher per recorded session. When the hidden session was destroyed in that same
  // moment (destroy-unattached), tmux 3.3a segfaulted and took every user session with
  // it: 4 SIGKILLs of 4 here. The hidden pane now waits for the broker's pid instead, so
  // the session goes a moment after the clients (effects/tmux/hidden-session.ts).
  const WATCHED = 20;
  let server: TmuxTestServer;
  let killed: BrokerProcess | undefined;
  afterAll(async () => {
    await killed?.stop();
    await server?.kill();
  });

  it('leaves the user\'s server and every session running, its clients leave, and its hidden session goes', async () => {
    server = await startTmuxServer();
    const names = Array.from({ length: WATCHED }, (_, i) => `agent-${String(i).padStart(2, '0')}`);
    for (const name of names) await server.newSession(name, `bash --norc --noprofile -c 'while :; do echo tick; sleep 0.2; done'`);
    killed = await startBrokerProcess({ tmuxSocket: server.socketName, config: { transcripts: { enabled: true } } });
    // Recording attaches one watcher client per readable session.
    await vi.waitFor(async () => expect(await watcherCount(server)).toBe(WATCHED), { timeout: GENEROUS_WAIT_MS, interval: 200 });

    killed.kill('SIGKILL');
    await killed.exited();
    await vi.waitFor(async () => expect(await serverSessions(server)).toEqual(names), { timeout: GENEROUS_WAIT_MS, interval: 100 });
    // And every one of its clients left. tmux 3.3a kept some attached for good (4 and 19
    // of 20 in 2 runs of 6), so that the user's kill-server never finished; the kernel
    // now ends them with the broker (effects/tmux/death-signal.ts).
    await vi.waitFor(async () => expect(await attachedClients(server)).toEqual([]), { timeout: GENEROUS_WAIT_MS, interval: 200 });
    // Still there a while later: the server did not die after the clients left.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await serverSessions(server)).toEqual(names);
  });
});

describe('a burst of sessions created while the broker records', () => {
  // A script starting many agents creates sessions back to back, and with transcripts on
  // each new readable session gets a watcher. A watcher identifying while the next
  // session is created crashed tmux 3.3a: 4 bursts of 40 of 4 before our clients waited
  // for the sessions to settle (effects/tmux/identify-gate.ts).
  const BURST = 40;
  let server: TmuxTestServer;
  let recording: BrokerProcess | undefined;
  afterAll(async () => {
    await recording?.stop();
    await server?.kill();
  });

  it('leaves the server running, and every new session is recorded once the burst is over', async () => {
    server = await startTmuxServer();
    await server.newSession('agent-seed', 'sleep 600');
    recording = await startBrokerProcess({ tmuxSocket: server.socketName, config: { transcripts: { enabled: true } } });
    await vi.waitFor(async () => expect(await watcherCount(server)).toBe(1), { timeout: GENEROUS_WAIT_MS, interval: 100 });

    // Back to back, each by its own tmux process, as a user's script does (the test
    // helper's newSession would wait for the broker's turn, which a user never does).
    const names = Array.from({ length: BURST }, (_, i) => `agent-${String(i).padStart(2, '0')}`);
    for (const name of names) {
      const created = await execa('tmux', ['-L', server.socketName, '-N', 'new-session', '-d', '-s', name, 'sleep 600'], { env: tmuxEnv(), extendEnv: false, reject: false, stdin: 'ignore' });
      expect(created.stderr, `creating ${name}`).toBe('');
    }
    await vi.waitFor(async () => expect(await watcherCount(server)).toBe(BURST + 1), { timeout: GENEROUS_WAIT_MS, interval: 200 });
    expect(await serverSessions(server)).toEqual([HIDDEN, 'agent-seed', ...names].sort());
  });
});

function tmuxEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.TMUX;
  delete env.TMUX_PANE;
  return env;
}

/** How many of the broker's output watchers are attached to the server. */
async function watcherCount(server: TmuxTestServer): Promise<number> {
  return (await attachedClients(server)).filter((t) => t === WATCHER_TERM).length;
}

/** Every client attached to the server (ours and anyone's), by terminal name. */
async function attachedClients(server: TmuxTestServer): Promise<string[]> {
  return (await server.tmux(['list-clients', '-F', '#{client_termname}'])).split('\n').filter((t) => t !== '');
}

async function serverSessions(server: TmuxTestServer): Promise<string[]> {
  return (await server.tmux(['list-sessions', '-F', '#{session_name}'])).split('\n').sort();
}
