/** The broker's refusal of a call that must fail, as code, message and hint. */
import { describeBrokerFailure, type BrokerFailure } from '@terminal-mcp/broker-client';

export async function failureOf(p: Promise<unknown>): Promise<BrokerFailure> {
  try {
    await p;
  } catch (err) {
    return describeBrokerFailure(err);
  }
  throw new Error('expected a failure');
}
