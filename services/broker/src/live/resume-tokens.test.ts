// Guards the resume-token store's per-client bounds: one client filling the store (under one name or many) cannot invalidate another client's token, a token resumes only for the client and role that got it, and each client's own quota evicts its own oldest token.
import { readAppErrorData } from '@terminal-mcp/contract';
import { describe, expect, it } from 'vitest';
import { ResumeTokens, type PendingWait } from './resume-tokens.js';

const waitOf = (client: string, role: PendingWait['role'] = 'gateway'): PendingWait => ({
  name: 'agent-wait',
  identity: { serverPid: 1, sessionId: '$1', created: 1 },
  states: ['IDLE'],
  role,
  client,
});

const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return readAppErrorData(err)?.code;
  }
  return 'resumed';
};

describe('resume tokens per client', () => {
  it("keeps client B's token while client A fills the whole store many times over", () => {
    const tokens = new ResumeTokens();
    const b = tokens.issue(waitOf('gateway:b'));
    for (let i = 0; i < 5_000; i++) tokens.issue(waitOf('gateway:a'));
    expect(tokens.lookup(b.token, 'gateway', 'gateway:b').client).toBe('gateway:b');
    expect(tokens.sizeOf('gateway:a')).toBe(100);
  });

  it('keeps it too when A makes up a new client name for every wait (ties evict the newest client)', () => {
    const tokens = new ResumeTokens({ max: 50, maxPerClient: 10 });
    const b = tokens.issue(waitOf('gateway:b'));
    for (let i = 0; i < 1_000; i++) tokens.issue(waitOf(`gateway:a${i}`));
    expect(tokens.size).toBe(50);
    expect(codeOf(() => tokens.lookup(b.token, 'gateway', 'gateway:b'))).toBe('resumed');
  });

  it('when the store is full, takes from the client holding the most', () => {
    const tokens = new ResumeTokens({ max: 10, maxPerClient: 10 });
    const a = Array.from({ length: 8 }, () => tokens.issue(waitOf('gateway:a')));
    const b = [0, 1].map(() => tokens.issue(waitOf('gateway:b')));
    tokens.issue(waitOf('gateway:c'));
    expect([tokens.sizeOf('gateway:a'), tokens.sizeOf('gateway:b'), tokens.sizeOf('gateway:c')]).toEqual([7, 2, 1]);
    expect(codeOf(() => tokens.lookup(a[0]!.token, 'gateway', 'gateway:a'))).toBe('RESUME_TOKEN_INVALID');
    for (const t of b) expect(codeOf(() => tokens.lookup(t.token, 'gateway', 'gateway:b'))).toBe('resumed');
  });

  it("evicts a client's own oldest token at its quota, never another's", () => {
    const tokens = new ResumeTokens({ max: 100, maxPerClient: 3 });
    const other = tokens.issue(waitOf('gateway:other'));
    const mine = [0, 1, 2, 3].map(() => tokens.issue(waitOf('gateway:me')));
    expect(codeOf(() => tokens.lookup(mine[0]!.token, 'gateway', 'gateway:me'))).toBe('RESUME_TOKEN_INVALID');
    for (const t of mine.slice(1)) expect(codeOf(() => tokens.lookup(t.token, 'gateway', 'gateway:me'))).toBe('resumed');
    expect(codeOf(() => tokens.lookup(other.token, 'gateway', 'gateway:other'))).toBe('resumed');
  });

  it('resumes only for the client and role that got the token, with one answer for every refusal', () => {
    const tokens = new ResumeTokens();
    const t = tokens.issue(waitOf('gateway:a'));
    expect(codeOf(() => tokens.lookup(t.token, 'gateway', 'gateway:b'))).toBe('RESUME_TOKEN_INVALID');
    expect(codeOf(() => tokens.lookup(t.token, 'web', 'gateway:a'))).toBe('RESUME_TOKEN_INVALID');
    expect(codeOf(() => tokens.lookup('rw_unknown', 'gateway', 'gateway:a'))).toBe('RESUME_TOKEN_INVALID');
    expect(codeOf(() => tokens.lookup(t.token, 'gateway', 'gateway:a'))).toBe('resumed');
  });

  it('renews, retires and expires per token', () => {
    let now = 0;
    const tokens = new ResumeTokens({ ttlMs: 100, now: () => now });
    const t = tokens.issue(waitOf('gateway:a'));
    now = 90;
    expect(tokens.renew(t.token)).toEqual({ token: t.token, expiresAt: 190 });
    now = 150;
    expect(codeOf(() => tokens.lookup(t.token, 'gateway', 'gateway:a'))).toBe('resumed');
    now = 200;
    expect(codeOf(() => tokens.lookup(t.token, 'gateway', 'gateway:a'))).toBe('RESUME_TOKEN_INVALID');
    expect(tokens.size).toBe(0);
    const u = tokens.issue(waitOf('gateway:a'));
    tokens.retire(u.token);
    expect(tokens.sizeOf('gateway:a')).toBe(0);
    expect(tokens.renew(u.token)).toBeNull();
  });
});
