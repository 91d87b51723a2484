// Guards: every error code maps to an MCP error result, INTERNAL never reveals details, and "broker said no" stays distinct from "broker unreachable".
import { ERROR_CODES, ERROR_SPECS, type ErrorCode } from '@terminal-mcp/contract';
import { describe, expect, it } from 'vitest';
import { describeToolFailure, ERROR_META_KEY, ERROR_PRESENTATION, timeoutFailure, toolErrorResult } from './tool-errors.js';

const meta = (r: ReturnType<typeof toolErrorResult>) => r._meta[ERROR_META_KEY];

/** The shape a tRPC client error has after crossing the wire: our data in `data.app`. */
function brokerSaid(code: ErrorCode, message: string, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(message), { data: { app: { code, hint: ERROR_SPECS[code].hint, ...extra } } });
}

function connectionRefused(): Error {
  const cause = Object.assign(new Error('connect ECONNREFUSED /run/terminal-mcp/gateway.sock'), { code: 'ECONNREFUSED' });
  return Object.assign(new TypeError('fetch failed'), { cause });
}

describe('ERROR_PRESENTATION', () => {
  it('covers exactly the contract error codes', () => {
    expect(Object.keys(ERROR_PRESENTATION).sort()).toEqual([...ERROR_CODES].sort());
  });

  it('hides the message of INTERNAL only', () => {
    const generic = ERROR_CODES.filter((c) => ERROR_PRESENTATION[c].disclose === 'generic');
    expect(generic).toEqual(['INTERNAL']);
  });
});

describe('toolErrorResult', () => {
  it.each(ERROR_CODES)('%s becomes an isError result with code, message and hint', (code) => {
    const { failure } = describeToolFailure(brokerSaid(code, `${code.toLowerCase()} happened`));
    const result = toolErrorResult(failure);
    expect(result.isError).toBe(true);
    expect(meta(result).error_code).toBe(code);
    expect(meta(result).hint).toBe(ERROR_SPECS[code].hint);
    const text = (result.content[0] as { type: string; text: string }).text;
    expect(text.startsWith(`${code}: `)).toBe(true);
    expect(text).toContain(`Hint: ${ERROR_SPECS[code].hint}`);
  });

  it('formats refusals as "<CODE>: <message>. Hint: <hint>"', () => {
    const result = toolErrorResult(describeToolFailure(brokerSaid('SESSION_NOT_ALLOWED', 'access to this session is denied')).failure);
    expect(result.content).toEqual([
      { type: 'text', text: `SESSION_NOT_ALLOWED: access to this session is denied. Hint: ${ERROR_SPECS.SESSION_NOT_ALLOWED.hint}` },
    ]);
    expect(result.structuredContent).toBeUndefined();
    expect(meta(result)).toEqual({
      error_code: 'SESSION_NOT_ALLOWED',
      message: 'access to this session is denied',
      hint: ERROR_SPECS.SESSION_NOT_ALLOWED.hint,
    });
  });

  it('shows INTERNAL as a generic text plus the correlation id, never the details', () => {
    const leaky = brokerSaid('INTERNAL', "SqliteError: no such table at /home/op/.local/state/terminal-mcp/audit.db; argv tmux -L x", {
      correlationId: 'c0ffee00-1111-2222-3333-444455556666',
    });
    const result = toolErrorResult(describeToolFailure(leaky).failure);
    const serialized = JSON.stringify(result);
    expect(serialized).not.toMatch(/Sqlite|audit\.db|argv|\/home/);
    expect(meta(result).error_code).toBe('INTERNAL');
    expect(meta(result).correlation_id).toBe('c0ffee00-1111-2222-3333-444455556666');
    expect((result.content[0] as { text: string }).text).toContain('c0ffee00-1111-2222-3333-444455556666');
  });

  it('gives an unexpected local error a fresh correlation id and hides its message', () => {
    const described = describeToolFailure(new Error('TypeError at /srv/gateway/dist/x.js:12'));
    expect(described.failure.code).toBe('INTERNAL');
    expect(described.failure.correlationId).toMatch(/^[0-9a-f-]{36}$/);
    const result = toolErrorResult(described.failure);
    expect(JSON.stringify(result)).not.toContain('/srv/gateway');
  });

  it('keeps "could not reach the broker" apart from the broker refusing', () => {
    const down = describeToolFailure(connectionRefused());
    const refused = describeToolFailure(brokerSaid('SESSION_NOT_ALLOWED', 'access to this session is denied'));
    expect(down.failure.code).toBe('BROKER_UNAVAILABLE');
    expect(down.presentation.kind).toBe('unavailable');
    expect(refused.failure.code).toBe('SESSION_NOT_ALLOWED');
    expect(refused.presentation.kind).toBe('refusal');
    // The socket path from the low-level error does not reach the model.
    expect(JSON.stringify(toolErrorResult(down.failure))).not.toContain('gateway.sock');
  });

  it('keeps broker messages to one short line', () => {
    const result = toolErrorResult(describeToolFailure(brokerSaid('INVALID_ARGUMENT', `bad\n\u001b[31m${'x'.repeat(1000)}`)).failure);
    expect(meta(result).message).not.toMatch(/[\n\u001b]/);
    expect(meta(result).message.length).toBeLessThanOrEqual(300);
  });
});

describe('timeoutFailure', () => {
  it('is a TIMEOUT the model sees with its message and the contract hint', () => {
    const { failure, presentation } = timeoutFailure('the call was cancelled');
    expect(presentation).toEqual({ disclose: 'message', kind: 'unavailable' });
    expect(meta(toolErrorResult(failure))).toEqual({ error_code: 'TIMEOUT', message: 'the call was cancelled', hint: ERROR_SPECS.TIMEOUT.hint });
  });
});
