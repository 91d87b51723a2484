/** `GET /health` for probes and tunnels: no sign-in, no secrets (no version, path, user
 * or session name). 200 when the broker answers over web.sock, 503 when it cannot be
 * reached or does not answer within the probe's patience. */
import { describeBrokerFailure } from '@terminal-mcp/broker-client';
import { broker } from './broker.js';

const PROBE_TIMEOUT_MS = 5_000;

export interface WebHealth {
  status: 'ok' | 'unavailable';
  broker: 'up' | 'down';
  /** The broker's own readiness (tmux reachable, stores open); null when it did not answer. */
  ready: boolean | null;
}

export async function webHealth(): Promise<{ status: number; body: WebHealth }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('broker did not answer in time')), PROBE_TIMEOUT_MS);
  });
  try {
    const r = await Promise.race([broker().health.ready.query(), timeout]);
    return { status: 200, body: { status: 'ok', broker: 'up', ready: r.ready } };
  } catch (err) {
    // A broker that answered with an error is up; anything else means unreachable.
    const answered = err instanceof Error && err.message !== 'broker did not answer in time' && describeBrokerFailure(err).code !== 'BROKER_UNAVAILABLE';
    return answered ? { status: 200, body: { status: 'ok', broker: 'up', ready: false } } : { status: 503, body: { status: 'unavailable', broker: 'down', ready: null } };
  } finally {
    clearTimeout(timer);
  }
}
