import { describe, expect, it } from 'vitest';
import { principalKey } from './principal.js';

describe('principalKey', () => {
  it('binds OAuth sessions to user, client and scopes; the static token and the open gateway are one principal each', () => {
    const rw = principalKey({ oauth: { userId: 1, clientId: 'c1', scopes: ['terminal:read', 'terminal:input'] } });
    expect(principalKey({ oauth: { userId: 1, clientId: 'c1', scopes: ['terminal:input', 'terminal:read'] } })).toBe(rw);
    expect(principalKey({ oauth: { userId: 1, clientId: 'c1', scopes: ['terminal:read'] } })).not.toBe(rw);
    expect(principalKey({ oauth: { userId: 1, clientId: 'c2', scopes: ['terminal:read', 'terminal:input'] } })).not.toBe(rw);
    expect(principalKey({ oauth: { userId: 2, clientId: 'c1', scopes: ['terminal:read', 'terminal:input'] } })).not.toBe(rw);
    expect(new Set([rw, principalKey({ staticToken: true }), principalKey({})]).size).toBe(3);
  });
});
