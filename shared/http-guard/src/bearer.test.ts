// Guards: the static bearer check accepts exactly "Bearer <configured token>" and nothing else.
import { describe, expect, it } from 'vitest';
import { bearerTokenMatches, wwwAuthenticate } from './bearer.js';

describe('bearerTokenMatches', () => {
  const token = 'tok_3f9a-Z.~+/=';
  it.each([
    [`Bearer ${token}`, true],
    [`bearer ${token}`, true],
    [`Bearer  ${token}`, true],
    [`Bearer ${token}x`, false],
    [`Bearer ${token.slice(0, -1)}`, false],
    [`Basic ${token}`, false],
    [token, false],
    ['Bearer ', false],
    ['', false],
    [undefined, false],
  ])('%j -> %s', (header, ok) => {
    expect(bearerTokenMatches(header, token)).toBe(ok);
  });

  it('says why in WWW-Authenticate when a token was presented', () => {
    expect(wwwAuthenticate(false)).toBe('Bearer realm="terminal-mcp"');
    expect(wwwAuthenticate(true)).toContain('error="invalid_token"');
  });
});
