/** Broker failures -> what the browser may learn (UiError) and the HTTP status an edge
 * answers with. "Broker said no" keeps the broker's code; "could not reach it" is
 * BROKER_UNAVAILABLE (describeBrokerFailure tells them apart). */
import { describeBrokerFailure } from '@terminal-mcp/broker-client';
import { ERROR_SPECS } from '@terminal-mcp/contract';
import type { UiError } from '../ui-error.js';

export function toUiError(err: unknown): { status: number; error: UiError } {
  const f = describeBrokerFailure(err);
  const error: UiError = { code: f.code };
  if (f.code === 'INVALID_ARGUMENT' || f.code === 'FORBIDDEN') error.detail = f.message.slice(0, 300);
  const retry = (f as { retryAfterSeconds?: number }).retryAfterSeconds;
  if (f.code === 'RATE_LIMITED') error.retryAfterSeconds = typeof retry === 'number' ? retry : 1;
  if (f.correlationId) error.correlationId = f.correlationId;
  return { status: ERROR_SPECS[f.code].http, error };
}
