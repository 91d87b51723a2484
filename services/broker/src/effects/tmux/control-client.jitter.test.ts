// Clients that lose their server in one instant (a network blip cutting every node) must not
// all come back in one instant: with `jitter`, each first retry lands at its own time, never
// before the configured delay.
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startTmuxServer, type TmuxTestServer } from '../../../../../test/src/helpers/tmux-server.js';
import { TmuxControlClient } from './control-client.js';

let server: TmuxTestServer | undefined;
const clients: TmuxControlClient[] = [];

afterAll(async () => {
  for (const c of clients) await c.close();
  await server?.kill();
});

/** Long enough that the first retry cannot fire before the test has read every client's
 * retry time, however busy the machine (the later, socket-polling retries are capped). */
const DELAY_MS = 60_000;

describe('reconnect jitter', () => {
  it('spreads the first retries of clients cut at one instant, none earlier than the delay', async () => {
    server = await startTmuxServer();
    await server.newSession('jitter-target', 'sleep 300');
    for (let i = 0; i < 8; i++) {
      const c = new TmuxControlClient({ socketName: server.socketName, configFile: '/dev/null', reconnect: { initialDelayMs: DELAY_MS, maxDelayMs: DELAY_MS, jitter: 0.5 } });
      clients.push(c);
      c.start();
    }
    await vi.waitFor(() => expect(clients.every((c) => c.state === 'connected')).toBe(true), { timeout: 60_000, interval: 20 });

    const cut = Date.now();
    await server.kill();
    const retries = await vi.waitFor(
      () => {
        const at = clients.map((c) => c.nextRetryAt);
        expect(at.every((t) => t !== undefined)).toBe(true);
        return at as number[];
      },
      { timeout: 50_000, interval: 20 },
    );
    const read = Date.now();
    for (const at of retries) {
      expect(at).toBeGreaterThanOrEqual(cut + DELAY_MS);
      expect(at).toBeLessThanOrEqual(read + DELAY_MS * 1.5);
    }
    // Without jitter all eight would be DELAY_MS after their (near-simultaneous) cut; with
    // it they land up to 30 s apart. Eight equal draws out of 30,000 values cannot happen
    // by chance; allow near misses by asking only for a spread of over a second.
    expect(Math.max(...retries) - Math.min(...retries)).toBeGreaterThan(1_000);
  });
});
