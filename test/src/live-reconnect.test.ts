// Reaching web.sock grants no live frames without a signed-in operator's token; a dashboard's live subscription over web.sock (WebSocket) survives a broker restart: wsLink reconnects to the new broker on the same socket and keeps receiving frames; closing the client leaves no watcher behind.
import { join } from 'node:path';
import { createBrokerLiveClient, type BrokerLiveClient } from '@terminal-mcp/broker-client';
import type { PaneLiveEvent, PaneScreenFrame } from '@terminal-mcp/contract';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { createOperatorAccount } from './helpers/operator-account.js';
import { startTmuxServer, type TmuxTestServer, type TmuxTestSession } from './helpers/tmux-server.js';

let tmux: TmuxTestServer;
let broker: BrokerProcess;
let live: BrokerLiveClient<'web'> | undefined;
let session: TmuxTestSession;
/** A signed-in operator's session token: live output is served to operators only. */
let operatorSession: string;
const OPERATOR_PASSWORD = 'live reconnect passphrase 19';

const WATCHER_TERM = 'terminal-mcp-watcher';

async function watcherClients(): Promise<string[]> {
  const out = await tmux.tmux(['list-clients', '-F', '#{client_termname}']);
  return out.split('\n').filter((l) => l === WATCHER_TERM);
}

beforeAll(async () => {
  tmux = await startTmuxServer();
  session = await tmux.newSession('agent-restart', 'bash --norc --noprofile', { width: 80, height: 24 });
  broker = await startBrokerProcess({ tmuxSocket: tmux.socketName });
  await createOperatorAccount(broker.env, 'watcher', OPERATOR_PASSWORD);
  const signIn = createBrokerLiveClient({ role: 'web', socketPath: join(broker.socketDir, 'web.sock') });
  operatorSession = (await signIn.client.auth.login.mutate({ username: 'watcher', password: OPERATOR_PASSWORD, sourceIp: '127.0.0.1' })).token;
  await signIn.close();
});

afterAll(async () => {
  await live?.close();
  await broker?.stop();
  await tmux?.kill();
});

describe('live output over WebSocket', () => {
  it('serves no frame to a client that reaches web.sock without a signed-in operator\'s token', async () => {
    const intruder = createBrokerLiveClient({ role: 'web', socketPath: join(broker.socketDir, 'web.sock'), actor: () => 'intruder' });
    try {
      for (const token of ['x'.repeat(43), 'not-a-session']) {
        // Ends at the refusal or at the first frame, whichever comes.
        const outcome = await new Promise<{ frame: PaneLiveEvent } | { error: { data?: unknown; message?: string } }>((settle) => {
          const sub = intruder.client.live.paneOutput.subscribe(
            { session: 'agent-restart', operatorSession: token },
            {
              onData: (frame) => {
                sub.unsubscribe();
                settle({ frame });
              },
              onError: (error) => {
                sub.unsubscribe();
                settle({ error: error as { data?: unknown; message?: string } });
              },
            },
          );
        });
        expect('frame' in outcome ? `a frame of ${outcome.frame.session}` : 'refused').toBe('refused');
        if ('error' in outcome) expect(JSON.stringify({ data: outcome.error.data, message: outcome.error.message })).toContain('UNAUTHENTICATED');
      }
      expect(await watcherClients()).toEqual([]);
    } finally {
      await intruder.close();
    }
  });

  it('keeps a subscription alive across a broker restart', async () => {
    live = createBrokerLiveClient({ role: 'web', socketPath: join(broker.socketDir, 'web.sock'), actor: () => 'dashboard-test' });
    // The same client does plain queries over HTTP.
    expect((await live.client.sessions.list.query({})).sessions.map((s) => s.name)).toContain('agent-restart');

    const frames: PaneScreenFrame[] = [];
    const errors: unknown[] = [];
    const subscription = live.client.live.paneOutput.subscribe(
      { session: 'agent-restart', operatorSession },
      { onData: (event) => (event.type === 'screen' ? frames.push(event) : errors.push(event)), onError: (err) => errors.push(err) },
    );
    const seen = (text: string) => frames.some((f) => f.data.includes(text));

    await vi.waitFor(() => expect(frames.length).toBeGreaterThan(0), { timeout: 60_000, interval: 20 });
    await tmux.tmux(['send-keys', '-t', session.paneId, 'echo before-$((40+2))', 'Enter']);
    await vi.waitFor(() => expect(seen('before-42')).toBe(true), { timeout: 60_000, interval: 20 });

    const oldPid = broker.pid;
    broker = await broker.restart();
    expect(broker.pid).not.toBe(oldPid);
    const countAtRestart = frames.length;

    // The resubscription starts with a fresh first frame from the new broker... (This wait
    // failed once in CI, g44c, cause unknown: a failure now says what the client got and
    // what the new broker logged.)
    try {
      await vi.waitFor(() => expect(frames.slice(countAtRestart).some((f) => f.seq === 0)).toBe(true), { timeout: 60_000, interval: 50 });
    } catch (err) {
      const got = frames.slice(countAtRestart).map((f) => ({ seq: f.seq, session: f.session }));
      throw new Error(`no first frame from the new broker: ${(err as Error).message}\nframes since the restart: ${JSON.stringify(got)}\nclient errors: ${JSON.stringify(errors)}\nnew broker's log (last 6000 chars):\n${broker.stderr().slice(-6000)}`);
    }
    // ...and new output keeps coming.
    await tmux.tmux(['send-keys', '-t', session.paneId, 'echo after-$((50+8))', 'Enter']);
    await vi.waitFor(() => expect(seen('after-58')).toBe(true), { timeout: 60_000, interval: 20 });
    expect(errors).toEqual([]);

    subscription.unsubscribe();
    await live.close();
    live = undefined;
    // The broker's watcher detaches after its grace period once nobody watches.
    await vi.waitFor(async () => expect(await watcherClients()).toEqual([]), { timeout: 60_000, interval: 100 });
  });
});
