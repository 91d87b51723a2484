// Guards tokens split by blank cells (a cursor-forward escape drawn by tmux as blanks, issue 46 A.3): the pieces of each self-identifying token are joined and redacted with the gaps, a plain word after the token is kept, and prose that merely starts like a token is left alone.
import { describe, expect, it } from 'vitest';
import { redactSecrets } from './redact.js';

const GH = 'ghp_R7kQ2mZx9LwT4vNc8BfY1sHd6JpE3aUo5GtK';
const AWS = 'AKIAQ7ZK2M5RWX3TLNB4';
const OPENAI = 'sk-proj-Xa81kLmQ2zT7vB4nRc9WdE3fYh6JpU0sGo5tKiV2';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk';

describe('tokens split by blank cells', () => {
  it.each([
    ['a github token in three pieces', `token ${GH.slice(0, 13)}    ${GH.slice(13, 27)}   ${GH.slice(27)} end`, 'token [REDACTED:github_token] end'],
    ['split inside the prefix', `x gh   ${GH.slice(2)} ok`, 'x [REDACTED:github_token] ok'],
    ['after an assignment, before a comma', `GH_TOKEN=${GH.slice(0, 20)}  ${GH.slice(20)}, next`, 'GH_TOKEN=[REDACTED:github_token], next'],
    ['an aws key id', `key ${AWS.slice(0, 10)}  ${AWS.slice(10)} done`, 'key [REDACTED:aws_access_key_id] done'],
    ['an openai key whose first piece is a key already', `OPENAI_KEY ${OPENAI.slice(0, 30)} ${OPENAI.slice(30)}`, 'OPENAI_KEY [REDACTED:openai_api_key]'],
    ['a jwt', `session ${JWT.slice(0, 40)}  ${JWT.slice(40)}`, 'session [REDACTED:jwt]'],
  ])('%s', (_name, line, expected) => {
    expect(redactSecrets(line).text).toBe(expected);
  });

  it.each([
    'ghp_ tokens are created in the settings page',
    'sk-learn and numpy versions 1 2 3 are installed',
    'git commit -m "fix 123" && git push origin main',
    'AKIA IS THE PREFIX OF AWS KEY IDS',
    'eyJ is how a JSON object starts in base64',
    'as in the docs, ask for a key',
    `token ${GH} follows`,
  ])('leaves prose alone (a whole token keeps the word after it): %s', (line) => {
    const out = redactSecrets(line).text;
    if (line.includes(GH)) expect(out).toBe('token [REDACTED:github_token] follows');
    else expect(out).toBe(line);
  });
});
