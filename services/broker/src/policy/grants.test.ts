// Guards the grant decisions: a grant admits only the exact session it was pinned to, only until it expires, never a sensitive name, never with reading off.
import { describe, expect, it } from 'vitest';
import { decideReadAccess } from './access.js';
import { checkGrantRequest, effectiveGrant, grantState, resolveGrantExpiry, type GrantRecord } from './grants.js';

const NOW = 1_700_000_000_000;
const pinned = { serverPid: 100, sessionId: '$3', created: 1_699_999_000 };
const grant = (over: Partial<GrantRecord> = {}): GrantRecord => ({
  sessionName: 'build',
  identity: pinned,
  read: true,
  input: false,
  expiresAt: null,
  grantedBy: 'admin',
  createdAt: NOW - 1000,
  updatedAt: NOW - 1000,
  ...over,
});

describe('grantState', () => {
  it.each([
    ['same identity, no expiry', grant(), pinned, 'active'],
    ['same identity, expires later', grant({ expiresAt: NOW + 1 }), pinned, 'active'],
    ['same identity, expires now', grant({ expiresAt: NOW }), pinned, 'expired'],
    ['no live session', grant(), undefined, 'stale'],
    ['recreated: new session id', grant(), { ...pinned, sessionId: '$4' }, 'stale'],
    ['recreated: same id after a tmux restart', grant(), { ...pinned, serverPid: 101 }, 'stale'],
    ['recreated: same id and pid, other creation time', grant(), { ...pinned, created: pinned.created + 1 }, 'stale'],
    ['stale wins over expired', grant({ expiresAt: NOW - 1 }), { ...pinned, sessionId: '$9' }, 'stale'],
  ] as const)('%s', (_label, g, current, state) => {
    expect(grantState(g, current, NOW)).toBe(state);
  });
});

describe('effectiveGrant', () => {
  it.each([
    ['active read grant', 'build', grant(), pinned, { read: true, input: false }],
    ['active read+input grant', 'build', grant({ input: true }), pinned, { read: true, input: true }],
    ['no grant', 'build', undefined, pinned, null],
    ['grant under another name', 'build2', grant(), pinned, null],
    ['expired', 'build', grant({ expiresAt: NOW - 1 }), pinned, null],
    ['stale', 'build', grant(), { ...pinned, sessionId: '$4' }, null],
    ['sensitive name, even if stored', 'my-ssh', grant({ sessionName: 'my-ssh', input: true }), pinned, null],
  ] as const)('%s', (_label, name, g, current, expected) => {
    expect(effectiveGrant(name, g, current, NOW)).toEqual(expected);
  });
});

describe('decideReadAccess with a grant', () => {
  const policy = { terminalRead: true, allowedPatterns: ['agent-*', 'root-shell'] };
  it.each([
    ['not whitelisted, no grant', 'build', null, false, 'NOT_ALLOWED'],
    ['not whitelisted, read grant', 'build', { read: true }, true, 'GRANT'],
    ['not whitelisted, grant without read', 'build', { read: false }, false, 'NOT_ALLOWED'],
    ['whitelisted by pattern, grant too', 'agent-1', { read: true }, true, 'PATTERN'],
    ['sensitive, not whitelisted, grant', 'db-password', { read: true }, false, 'NOT_ALLOWED'],
    ['sensitive, matched by glob only, grant', 'agent-ssh', { read: true }, false, 'SENSITIVE_NEEDS_LITERAL'],
    ['sensitive, listed literally', 'root-shell', null, true, 'LITERAL'],
  ] as const)('%s', (_label, name, g, allowed, reason) => {
    expect(decideReadAccess(policy, name, g)).toEqual({ allowed, reason });
  });

  it('admits nothing with terminal_read off, grant or not', () => {
    expect(decideReadAccess({ terminalRead: false, allowedPatterns: ['*'] }, 'build', { read: true })).toEqual({ allowed: false, reason: 'READ_DISABLED' });
  });
});

describe('checkGrantRequest', () => {
  it.each([
    ['read', 'build', { read: true, input: false }, null],
    ['read and input', 'build', { read: true, input: true }, null],
    ['input without read', 'build', { read: false, input: true }, 'INPUT_NEEDS_READ'],
    ['revoke', 'build', { read: false, input: false }, null],
    ['sensitive read', 'ROOT', { read: true, input: false }, 'SENSITIVE_NAME'],
    ['sensitive input', 'x-Secret-y', { read: true, input: true }, 'SENSITIVE_NAME'],
    ['sensitive revoke is allowed (there is nothing to take)', 'database', { read: false, input: false }, null],
  ] as const)('%s', (_label, name, flags, refusal) => {
    expect(checkGrantRequest(name, flags)).toBe(refusal);
  });
});

describe('resolveGrantExpiry', () => {
  const max = 3600;
  it.each([
    ['none', {}, { ok: true, expiresAt: null }],
    ['duration', { expiresInSeconds: 60 }, { ok: true, expiresAt: NOW + 60_000 }],
    ['absolute', { expiresAt: new Date(NOW + 5000).toISOString() }, { ok: true, expiresAt: NOW + 5000 }],
    ['absolute, past', { expiresAt: new Date(NOW - 5000).toISOString() }, { ok: false, reason: 'NOT_IN_FUTURE' }],
    ['absolute, now', { expiresAt: new Date(NOW).toISOString() }, { ok: false, reason: 'NOT_IN_FUTURE' }],
    ['absolute, unparsable', { expiresAt: 'tomorrow' }, { ok: false, reason: 'NOT_IN_FUTURE' }],
    ['too far', { expiresInSeconds: max + 1 }, { ok: false, reason: 'TOO_FAR' }],
    ['exactly the cap', { expiresInSeconds: max }, { ok: true, expiresAt: NOW + max * 1000 }],
  ] as const)('%s', (_label, request, expected) => {
    expect(resolveGrantExpiry(request, NOW, max)).toEqual(expected);
  });
});
