// Guards THE classifier of input attempts: refusals are BLOCKED in every checking phase, other failures FAILED, anything thrown while delivering DELIVERY_UNKNOWN, an audit log that cannot be written before the row records nothing; tmux's delivery answers map to SENT / FAILED / DELIVERY_UNKNOWN with the right code.
import { AppError } from '@terminal-mcp/contract';
import { describe, expect, it } from 'vitest';
import { classifyAttemptError, classifyDelivery, REFUSALS } from './attempt-outcome.js';

describe('classifyAttemptError', () => {
  it.each([
    ['before-audit', 'COMMAND_GUARDED', 'BLOCKED', false],
    ['audited', 'COMMAND_GUARDED', 'BLOCKED', false],
    ['audited', 'IDENTITY_CHANGED', 'BLOCKED', false],
    ['audited', 'LEASE_BUSY', 'BLOCKED', false],
    ['before-audit', 'TMUX_UNAVAILABLE', 'FAILED', true],
    ['audited', 'INTERNAL', 'FAILED', true],
    ['audited', 'AUDIT_UNAVAILABLE', 'FAILED', true],
    ['deliver', 'COMMAND_GUARDED', 'DELIVERY_UNKNOWN', true],
    ['deliver', 'TIMEOUT', 'DELIVERY_UNKNOWN', true],
    ['before-audit', 'AUDIT_UNAVAILABLE', null, true],
  ] as const)('%s + %s -> %s', (phase, code, decision, rethrow) => {
    const c = classifyAttemptError(new AppError(code, 'x'), phase);
    expect(c).toMatchObject({ decision, rethrow });
    expect(c.error.code).toBe(code);
  });

  it('an error that is not ours is INTERNAL, a failure', () => {
    expect(classifyAttemptError(new Error('disk on fire'), 'before-audit')).toMatchObject({ decision: 'FAILED', rethrow: true, error: { code: 'INTERNAL' } });
  });

  it('every refusal code is BLOCKED before and after the audit row', () => {
    for (const code of REFUSALS) {
      for (const phase of ['before-audit', 'audited'] as const) expect(classifyAttemptError(new AppError(code, 'x'), phase).decision).toBe('BLOCKED');
    }
  });
});

describe('classifyDelivery', () => {
  it.each([
    [{ ok: true } as const, 'SENT', null],
    [{ ok: false, delivered: 'no', reason: 'r' } as const, 'FAILED', 'TMUX_UNAVAILABLE'],
    [{ ok: false, delivered: 'unknown', reason: 'r' } as const, 'DELIVERY_UNKNOWN', 'TMUX_UNAVAILABLE'],
    [{ ok: false, delivered: 'no', reason: 'r', changed: true } as const, 'FAILED', 'IDENTITY_CHANGED'],
  ])('%j -> %s', (outcome, decision, errorCode) => {
    expect(classifyDelivery(outcome)).toEqual({ decision, errorCode });
  });
});
