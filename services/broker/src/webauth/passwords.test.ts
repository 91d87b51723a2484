// Guards the password rules (length, not the user name, not an obvious one) and that hashes are argon2id at m=19MiB,t=2,p=1.
import { describe, expect, it } from 'vitest';
import { generateBootstrapPassword, hashPassword, passwordRuleViolation, verifyPassword } from './passwords.js';

describe('passwordRuleViolation', () => {
  const cases: [password: string, username: string, expected: RegExp | null][] = [
    ['short-pass1', 'alice', /at least 12 characters/],
    ['a'.repeat(256) + 'b', 'alice', /at most 256 characters/],
    ['wxyz'.repeat(2) + 'éèêë', 'alice', null], // 12 code points (16 UTF-8 bytes): long enough
    ['my-Alice-password', 'alice', /must not contain the user name/],
    ['ALICEalice123', 'alice', /must not contain the user name/],
    ['nimdanimda12', 'admin', null],
    ['Password1234', 'bob', /too common/],
    ['aaaaaaaaaaaaaaaa', 'bob', /one character repeated/],
    ['123456789012', 'bob', /run of digits/],
    ['210987654321', 'bob', /run of digits/],
    ['battery staple horse', 'bob', null],
    ['contains-bo-ok-12', 'bo', null], // two-letter names are not checked by containment
  ];
  it.each(cases)('%j for user %j', (password, username, expected) => {
    const got = passwordRuleViolation(password, username);
    if (expected === null) expect(got).toBeNull();
    else expect(got ?? 'null').toMatch(expected);
  });

  it('refuses the user name reversed, in any case', () => {
    expect(passwordRuleViolation('ENO.rotarepo', 'operator.one')).toBe('the password must not be the user name reversed');
  });

  it('generates 24-character base32 bootstrap passwords that pass the rules', () => {
    const p = generateBootstrapPassword('admin');
    expect(p).toMatch(/^[a-z2-7]{24}$/);
    expect(passwordRuleViolation(p, 'admin')).toBeNull();
  });
});

describe('hashPassword', () => {
  it('produces argon2id with the OWASP parameters and verifies only the right password', async () => {
    const h = await hashPassword('battery staple horse');
    expect(h).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await verifyPassword(h, 'battery staple horse')).toBe(true);
    expect(await verifyPassword(h, 'battery staple horsE')).toBe(false);
    expect(await verifyPassword('not a hash', 'battery staple horse')).toBe(false);
  });
});
