/** One broker call with a time budget. "The broker said no" keeps the broker's code;
 * "could not reach it" is BROKER_UNAVAILABLE; running out of time is TIMEOUT. */
import { describeBrokerFailure, type BrokerClient, type BrokerFailure } from '@terminal-mcp/broker-client';
import { ERROR_SPECS } from '@terminal-mcp/contract';

export type BrokerCallResult<T> = { ok: true; value: T } | { ok: false; failure: BrokerFailure };

export const DEFAULT_BROKER_TIMEOUT_MS = 30_000;

export async function callBroker<T>(call: (signal: AbortSignal) => Promise<T>, timeoutMs = DEFAULT_BROKER_TIMEOUT_MS): Promise<BrokerCallResult<T>> {
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    return { ok: true, value: await call(signal) };
  } catch (err) {
    if (signal.aborted) return { ok: false, failure: { code: 'TIMEOUT', message: 'the broker did not answer in time', hint: ERROR_SPECS.TIMEOUT.hint } };
    return { ok: false, failure: describeBrokerFailure(err) };
  }
}

/** The broker's OAuth procedures (`oauth.*`), as both the observer's and the gateway's
 * sockets serve them: each socket acts as its own authorization server. */
export type OAuthBroker = BrokerClient<'observer'>['oauth'];
