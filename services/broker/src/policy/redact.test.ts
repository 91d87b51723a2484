// Guards secret redaction: every kind found and replaced (also with colour codes inside, wrapped-and-joined, several per line), prose and code left alone, and linear time on adversarial input.
import { describe, expect, it } from 'vitest';
import { SECRET_KINDS, redactSecrets } from './redact.js';

// Fixtures are assembled at run time from a deterministic generator, so the source
// holds no literal token that a secret scanner (or a reader) could mistake for a real one.
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER_NUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const BASE64 = `${ALNUM}+/`;
const URLSAFE = `${ALNUM}-_`;

function fake(alphabet: string, length: number, seed: number): string {
  let x = seed;
  let out = '';
  for (let i = 0; i < length; i += 1) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out += alphabet[Math.floor(x / 65536) % alphabet.length];
  }
  return out;
}

const ESC = '\x1b';
const ANTHROPIC = `sk-ant-api03-${fake(URLSAFE, 90, 1)}7AA`;
const OPENAI_LEGACY = `sk-${fake(ALNUM, 47, 2)}9`;
const OPENAI_PROJECT = `sk-proj-${fake(URLSAFE, 150, 3)}4x`;
const AWS_ID = `AKIA${fake(UPPER_NUM, 16, 4)}`;
const AWS_STS_ID = `ASIA${fake(UPPER_NUM, 16, 5)}`;
const AWS_SECRET = fake(BASE64, 40, 6);
const GITHUB = (prefix: string, seed: number) => `${prefix}_${fake(ALNUM, 36, seed)}`;
const GITHUB_PAT = `github_pat_${fake(ALNUM, 22, 7)}_${fake(ALNUM, 59, 8)}`;
const GITLAB = `glpat-${fake(URLSAFE, 20, 9)}`;
const SLACK = `xoxb-1234567890-${fake(ALNUM, 24, 10)}`;
const GOOGLE = `AIza${fake(URLSAFE, 35, 11)}`;
const STRIPE = (prefix: string, seed: number) => `${prefix}${fake(ALNUM, 24, seed)}`;
const NPM = `npm_${fake(ALNUM, 36, 12)}`;
const HUGGINGFACE = `hf_${fake(ALNUM, 34, 13)}`;
const JWT = `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.${fake(URLSAFE, 43, 14)}`;
const OPAQUE = `${fake(ALNUM, 30, 15)}42`;
const KEY_LINES = [1, 2, 3, 4].map((seed) => fake(BASE64, 64, 100 + seed));
const KEY_BODY = `${KEY_LINES.join('\n')}\n${fake(BASE64, 20, 200)}==`;
const PRIVATE_KEY = `-----BEGIN OPENSSH PRIVATE KEY-----\n${KEY_BODY}\n-----END OPENSSH PRIVATE KEY-----`;

const R = (kind: string) => `[REDACTED:${kind}]`;

describe('redactSecrets finds each kind', () => {
  it.each([
    // name, input, expected output, expected kinds
    ['our own oauth access token', `got tmcp_at_${'Ab3-_x'.repeat(7)}Q here`, `got ${R('terminal_mcp_token')} here`, ['terminal_mcp_token']],
    ['our own refresh token, bare', `tmcp_rt_${'Zz9_'.repeat(11)}`, R('terminal_mcp_token'), ['terminal_mcp_token']],
    ['anthropic key', `key: ${ANTHROPIC} done`, `key: ${R('anthropic_api_key')} done`, ['anthropic_api_key']],
    ['anthropic key in export', `export ANTHROPIC_API_KEY=${ANTHROPIC}`, `export ANTHROPIC_API_KEY=${R('anthropic_api_key')}`, ['anthropic_api_key']],
    ['openai legacy key', `using ${OPENAI_LEGACY}.`, `using ${R('openai_api_key')}.`, ['openai_api_key']],
    ['openai project key', `OPENAI_API_KEY="${OPENAI_PROJECT}"`, `OPENAI_API_KEY="${R('openai_api_key')}"`, ['openai_api_key']],
    ['aws access key id', `aws_access_key_id = ${AWS_ID}`, `aws_access_key_id = ${R('aws_access_key_id')}`, ['aws_access_key_id']],
    ['aws sts key id', `"AccessKeyId": "${AWS_STS_ID}",`, `"AccessKeyId": "${R('aws_access_key_id')}",`, ['aws_access_key_id']],
    ['aws secret (ini)', `aws_secret_access_key = ${AWS_SECRET}`, `aws_secret_access_key = ${R('aws_secret_access_key')}`, ['aws_secret_access_key']],
    ['aws secret (env)', `export AWS_SECRET_ACCESS_KEY=${AWS_SECRET}`, `export AWS_SECRET_ACCESS_KEY=${R('aws_secret_access_key')}`, ['aws_secret_access_key']],
    ['aws secret (sts json)', `"SecretAccessKey": "${AWS_SECRET}"`, `"SecretAccessKey": "${R('aws_secret_access_key')}"`, ['aws_secret_access_key']],
    ['github ghp_', `token ${GITHUB('ghp', 20)} ok`, `token ${R('github_token')} ok`, ['github_token']],
    ['github gho_', GITHUB('gho', 21), R('github_token'), ['github_token']],
    ['github ghu_', GITHUB('ghu', 22), R('github_token'), ['github_token']],
    ['github ghs_', GITHUB('ghs', 23), R('github_token'), ['github_token']],
    ['github ghr_', GITHUB('ghr', 24), R('github_token'), ['github_token']],
    ['github fine-grained pat', `GH_TOKEN=${GITHUB_PAT}`, `GH_TOKEN=${R('github_token')}`, ['github_token']],
    ['gitlab pat', `glab auth login --token ${GITLAB}`, `glab auth login --token ${R('gitlab_token')}`, ['gitlab_token']],
    ['slack bot token', `SLACK=${SLACK}`, `SLACK=${R('slack_token')}`, ['slack_token']],
    ['google api key', `?key=${GOOGLE}&q=1`, `?key=${R('google_api_key')}&q=1`, ['google_api_key']],
    ['google oauth access token (ours: no gitleaks rule)', `Bearer-less ya29.${OPAQUE}x9 end`, `Bearer-less ${R('google_oauth_token')} end`, ['google_oauth_token']],
    ['stripe live secret', STRIPE('sk_live_', 30), R('stripe_key'), ['stripe_key']],
    ['stripe restricted', STRIPE('rk_live_', 31), R('stripe_key'), ['stripe_key']],
    ['stripe test secret', `stripe ${STRIPE('sk_test_', 32)}`, `stripe ${R('stripe_key')}`, ['stripe_key']],
    ['npm token', `//registry.npmjs.org/:_authToken=${NPM}`, `//registry.npmjs.org/:_authToken=${R('npm_token')}`, ['npm_token']],
    ['hugging face token', `HF_TOKEN=${HUGGINGFACE}`, `HF_TOKEN=${R('huggingface_token')}`, ['huggingface_token']],
    ['jwt', `session ${JWT} end`, `session ${R('jwt')} end`, ['jwt']],
    ['authorization bearer', `Authorization: Bearer ${OPAQUE}`, `Authorization: Bearer ${R('authorization')}`, ['authorization']],
    ['authorization basic', 'authorization: Basic dXNlcjpodW50ZXIy', `authorization: Basic ${R('authorization')}`, ['authorization']],
    ['authorization in curl -H', `curl -H 'Authorization: token ${OPAQUE}' x`, `curl -H 'Authorization: token ${R('curl_auth_header')}' x`, ['curl_auth_header']],
    ['authorization json', `{"Authorization": "Bearer ${OPAQUE}"}`, `{"Authorization": "Bearer ${R('authorization')}"}`, ['authorization']],
    ['authorization with a jwt', `Authorization: Bearer ${JWT}`, `Authorization: Bearer ${R('jwt')}`, ['jwt']],
    ['bare bearer token', `using Bearer ${OPAQUE} now`, `using Bearer ${R('bearer_token')} now`, ['bearer_token']],
    ['password=', 'mysql --password=hunter2 -u root', `mysql --password=${R('password')} -u root`, ['password']],
    ['passwd: at line start', 'passwd: hunter2', `passwd: ${R('password')}`, ['password']],
    ['yaml password indented', '  db:\n    password: hunter2\n', `  db:\n    password: ${R('password')}\n`, ['password']],
    ['yaml list item', '- password: hunter2', `- password: ${R('password')}`, ['password']],
    ['DB_PASS env', 'DB_PASS=hunter2 ./run', `DB_PASS=${R('password')} ./run`, ['password']],
    ['export quoted with spaces', "export DB_PASSWORD='p@ss word!'", `export DB_PASSWORD='${R('password')}'`, ['password']],
    ['json password keeps key', '{"user": "bob", "password": "hunter2"}', `{"user": "bob", "password": "${R('password')}"}`, ['password']],
    ['json escaped quote', '{"password": "a\\"b"}', `{"password": "${R('password')}"}`, ['password']],
    ['js object', "login({ password: 'hunter2' })", `login({ password: '${R('password')}' })`, ['password']],
    ['ruby hash rocket', ':password => "hunter2"', `:password => "${R('password')}"`, ['password']],
    ['go short assignment', 'token := "abc123xyz"', `token := "${R('token')}"`, ['token']],
    ['token=', 'token=abc123', `token=${R('token')}`, ['token']],
    ['access_token in a url', 'https://x.test/cb?access_token=abc123&state=9', `https://x.test/cb?access_token=${R('token')}&state=9`, ['token']],
    ['header X-Auth-Token', 'X-Auth-Token: abc123def', `X-Auth-Token: ${R('token')}`, ['token']],
    ['secret=', 'secret=s3cr3t', `secret=${R('secret')}`, ['secret']],
    ['client_secret', 'client_secret=zzTop-99', `client_secret=${R('secret')}`, ['secret']],
    ['api_key=', 'api_key=abc123', `api_key=${R('api_key')}`, ['api_key']],
    ['apikey:', 'apikey: abc123', `apikey: ${R('api_key')}`, ['api_key']],
    ['camelCase apiKey', 'const apiKey = "abc123";', `const apiKey = "${R('api_key')}";`, ['api_key']],
    ['unterminated quote cut by the window', 'PASSWORD="abc12', `PASSWORD="${R('password')}`, ['password']],
    ['url credentials', 'postgres://admin:s3cret@db:5432/app', `postgres://admin:${R('url_password')}@db:5432/app`, ['url_password']],
    ['url password with @', 'https://bob:p@ss@host/x', `https://bob:${R('url_password')}@host/x`, ['url_password']],
    ['private key block', `key:\n${PRIVATE_KEY}\nafter`, `key:\n${R('private_key')}\nafter`, ['private_key']],
    ['rsa private key block', `-----BEGIN RSA PRIVATE KEY-----\n${KEY_BODY}\n-----END RSA PRIVATE KEY-----`, R('private_key'), ['private_key']],
    ['encrypted private key block', `-----BEGIN ENCRYPTED PRIVATE KEY-----\n${KEY_BODY}\n-----END ENCRYPTED PRIVATE KEY-----\n$ `, `${R('private_key')}\n$ `, ['private_key']],
    ['pgp private key block', `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${KEY_BODY}\n-----END PGP PRIVATE KEY BLOCK-----`, R('private_key'), ['private_key']],
    ['BEGIN cut off at the bottom', `$ cat id_ed25519\n-----BEGIN OPENSSH PRIVATE KEY-----\n${KEY_LINES[0]}\n${KEY_LINES[1]}`, `$ cat id_ed25519\n${R('private_key')}`, ['private_key']],
    ['END with BEGIN scrolled off the top', `${KEY_LINES[2]}\n${KEY_LINES[3]}\n-----END OPENSSH PRIVATE KEY-----\n$ `, `${R('private_key')}\n$ `, ['private_key']],
    ['END with BEGIN scrolled off, text above kept', `some output\n${KEY_LINES[3]}\n-----END PRIVATE KEY-----`, `some output\n${R('private_key')}`, ['private_key']],
  ])('%s', (_name, input, expected, kinds) => {
    const result = redactSecrets(input);
    expect(result.text).toBe(expected);
    expect(result.kinds).toEqual(kinds);
    expect(result.count).toBe(1);
  });
});

describe('redactSecrets leaves prose and code alone', () => {
  it('keeps a line after a run of same-width tokens: a different prefix is not a key body line', () => {
    const token = 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
    const out = redactSecrets(`${token}\n${token}\n${token}\ndone-printing\n`).text;
    expect(out).not.toContain('AbCdEfGhIjKl');
    expect(out).toMatch(/\ndone-printing\n$/);
  });

  it.each([
    'Enter the password to continue',
    'password',
    'Password:',
    'password=',
    'password=\nnext line',
    'token = ',
    'token_count = 5',
    'max_tokens: 1000',
    'tokens: 5',
    'tokenizer = AutoTokenizer.from_pretrained(name)',
    'password_min_length = 8',
    'PASSWORD_HASHERS = [',
    'bypass=1',
    'PWD=/home/user/project',
    'OLDPWD=/tmp',
    'secretary: Bob',
    'is_secret = true',
    'credentials: true',
    '"password": ""',
    '"password": null',
    '  password: string;',
    '  password: z.string().min(8),',
    '  token?: string',
    'the password: it must be long', // prose, not at a line start
    'Note that the api_key: field is optional',
    'password = os.getenv("DB_PASSWORD")',
    'password = self.password',
    'login(password=password)',
    'token = os.environ["TOKEN"]',
    'if token == expected:',
    'password=$DB_PASSWORD',
    'token=${GITHUB_TOKEN}',
    'password=<your-password>',
    'password=***',
    'password: "%s"',
    'Authorization: required for every endpoint',
    'Authorization: the process of granting access',
    'Authorization: Bearer $TOKEN',
    'Authorization: Bearer',
    'Bearer authentication is simple',
    'Bearer tokens expire after an hour',
    'we use sk-learn-and-friends-for-the-models', // kebab-case, no digit
    'risk-assessment-2024-final-report-version-2',
    'task-1234567890abcdefghijklmnop',
    'ghp_short',
    'AKIA1234',
    'AKIAIOSFODNN7EXAMPLEXX', // too long to be a key id
    'eyJhbGciOiJIUzI1NiJ9 alone',
    'hf_hub_download(repo_id)',
    'npm_config_cache=/tmp/npm',
    'https://user@host/path',
    'http://localhost:8080/api?x=1',
    'ssh://git@github.com:22/org/repo.git',
    'git@github.com:org/repo.git',
    'postgres://admin:${DB_PASSWORD}@db/app',
    '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----',
    '-----BEGIN CERTIFICATE-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END CERTIFICATE-----',
    'The AWS docs say aws_secret_access_key is required.',
    'xoxb-not-a-real-token-at-all',
  ])('%j', (input) => {
    expect(redactSecrets(input)).toEqual({ text: input, count: 0, kinds: [] });
  });
});

describe('redactSecrets is ANSI-aware', () => {
  const [head, tail] = [ANTHROPIC.slice(0, 13), ANTHROPIC.slice(13)];
  const split = (s: string, at: number, code: string) => `${s.slice(0, at)}${code}${s.slice(at)}`;

  it.each([
    ['colour codes inside an anthropic key', `${head}${ESC}[31m${tail.slice(0, 20)}${ESC}[0m${tail.slice(20)}`, R('anthropic_api_key')],
    ['colour around a github token is kept', `${ESC}[32m${GITHUB('ghp', 40)}${ESC}[0m`, `${ESC}[32m${R('github_token')}${ESC}[0m`],
    ['bold around a password value', `password=${ESC}[1mhunter2${ESC}[0m;`, `password=${ESC}[1m${R('password')}${ESC}[0m;`],
    ['reset inside the key name', `pass${ESC}[0mword=hunter2`, `pass${ESC}[0mword=${R('password')}`],
    ['cursor codes inside an aws key id', split(split(AWS_ID, 6, `${ESC}[1C`), 14, `${ESC}[K`), R('aws_access_key_id')],
    ['OSC hyperlink around url credentials', `${ESC}]8;;x${ESC}\\https://u:pw1234@h/${ESC}]8;;${ESC}\\`, `${ESC}]8;;x${ESC}\\https://u:${R('url_password')}@h/${ESC}]8;;${ESC}\\`],
    ['colour inside a private key body', `-----BEGIN PRIVATE KEY-----\n${ESC}[33m${KEY_LINES[0]}${ESC}[0m\n-----END PRIVATE KEY-----`, R('private_key')],
    ['8-bit CSI inside an openai key', split(OPENAI_LEGACY, 10, '\x9b31m'), R('openai_api_key')],
    ['CRLF line ends around a jwt', `a\r\n${JWT}\r\nb`, `a\r\n${R('jwt')}\r\nb`],
    // Plain text up to the first dropped character, then the copying path: both map back.
    ['a zero-width space inside a github token after plain text', `ok: ${split(GITHUB('ghp', 40), 12, '\u200b')} end`, `ok: ${R('github_token')} end`],
    ['plain text only (nothing dropped)', `gh ${GITHUB('ghp', 40)} end`, `gh ${R('github_token')} end`],
  ])('%s', (_name, input, expected) => {
    const result = redactSecrets(input);
    expect(result.text).toBe(expected);
    expect(result.count).toBe(1);
  });

  it('leaves no fragment of a coloured secret behind', () => {
    const coloured = ANTHROPIC.split('')
      .map((c, i) => (i % 7 === 3 ? `${ESC}[3${i % 8}m${c}` : c))
      .join('');
    const { text } = redactSecrets(`>> ${coloured}${ESC}[0m <<`);
    expect(text).toBe(`>> ${R('anthropic_api_key')}${ESC}[0m <<`);
  });
});

describe('redactSecrets on whole lines', () => {
  it.each([
    [
      'several secrets on one line',
      `AWS ${AWS_ID} gh ${GITHUB('ghp', 50)} password=hunter2 url https://a:b9@h`,
      `AWS ${R('aws_access_key_id')} gh ${R('github_token')} password=${R('password')} url https://a:${R('url_password')}@h`,
      4,
      ['aws_access_key_id', 'github_token', 'password', 'url_password'],
    ],
    [
      'a secret that wrapped at the pane width, joined by capture -J',
      `${'x'.repeat(150)} OPENAI_API_KEY=${OPENAI_PROJECT} ${'y'.repeat(150)}`,
      `${'x'.repeat(150)} OPENAI_API_KEY=${R('openai_api_key')} ${'y'.repeat(150)}`,
      1,
      ['openai_api_key'],
    ],
    [
      'the same kind twice counts twice',
      `token=abc123 token=def456`,
      `token=${R('token')} token=${R('token')}`,
      2,
      ['token'],
    ],
    [
      'a key in an assignment counts once, under its specific kind',
      `GITHUB_TOKEN=${GITHUB('ghp', 51)}`,
      `GITHUB_TOKEN=${R('github_token')}`,
      1,
      ['github_token'],
    ],
    [
      'a screen with a key block and a password prompt answered in the clear',
      `$ cat key.pem\n${PRIVATE_KEY}\n$ mysql -p hunter2\nmysql> SET password='n3w-secret';\n`,
      `$ cat key.pem\n${R('private_key')}\n$ mysql -p ${R('password')}\nmysql> SET password='${R('password')}';\n`,
      3,
      ['password', 'private_key'],
    ],
  ])('%s', (_name, input, expected, count, kinds) => {
    expect(redactSecrets(input)).toEqual({ text: expected, count, kinds });
  });

  it('has a positive case for every kind it can report', () => {
    const inputs = [
      ANTHROPIC, OPENAI_LEGACY, GITHUB('ghp', 1), GITLAB, SLACK, GOOGLE, STRIPE('sk_live_', 1), NPM, HUGGINGFACE, AWS_ID, JWT,
      PRIVATE_KEY, 'https://u:pw1@h', `Authorization: Basic ${OPAQUE}`, `Bearer ${OPAQUE}`, `aws_secret_access_key=${AWS_SECRET}`,
      'password=x1', 'api_key=x1', 'token=x1', 'secret=x1', `tmcp_cs_${'k9-'.repeat(10)}`,
      `https://hooks.slack.com/services/T0/B0/${OPAQUE}`, `AccountKey=${AWS_SECRET}`, 'Cookie: sid=abc123',
      `{"auth": "${AWS_SECRET}"}`, `https://discord.com/api/webhooks/123/${OPAQUE}`, `ya29.${OPAQUE}`,
    ];
    // Our own kinds; the maintained rules report theirs besides (maintained-rules.test.ts).
    const kinds = new Set(inputs.flatMap((input) => redactSecrets(input).kinds));
    expect(SECRET_KINDS.filter((kind) => !kinds.has(kind))).toEqual([]);
  });
});

describe('redactSecrets stays linear on adversarial input', () => {
  const SIZE = 200_000;
  const fill = (unit: string) => unit.repeat(Math.ceil(SIZE / unit.length)).slice(0, SIZE);

  it.each([
    ['one long token-character run', fill('a')],
    ['repeated sk-', fill('sk-')],
    ['repeated sk-ant-', fill('sk-ant-')],
    ['repeated eyJ', fill('eyJ')],
    ['jwt-like segments without a signature', fill('eyJabcdefgh.')],
    ['base64 run with no terminator', fill('QUJD')],
    ['repeated password=', fill('password=')],
    ['repeated password: on one line', fill('password: a ')],
    ['repeated quoted values never closed', fill('password="')],
    ['repeated key names without separators', fill('secret_token_')],
    ['long keys before =', fill(`${'k'.repeat(63)}=`)],
    ['repeated Authorization:', fill('Authorization: ')],
    ['repeated Bearer', fill('Bearer ')],
    ['scheme soup without @', fill('a://b:c')],
    ['url credentials without a host separator', `http://u:${fill('p')}`],
    ['repeated BEGIN markers', fill('-----BEGIN PRIVATE KEY-----')],
    ['repeated END markers on one line', fill('-----END PRIVATE KEY-----')],
    ['END markers under base64 lines', `${fill(`${'QUJD'.repeat(16)}\n`)}${'-----END PRIVATE KEY-----'.repeat(2000)}`],
    ['escape soup', fill(`${ESC}[31m`)],
    ['escape codes between every character', fill(`a${ESC}[0m`)],
    ['repeated AKIA', fill('AKIA')],
    ['repeated ghp_', fill('ghp_')],
    ['colons and at signs', fill(':@')],
    ['dots', `password=${fill('.')}`],
    ['many short lines', fill('token=\n')],
    ['repeated mysql without -p', fill('mysql ')],
    ['repeated mysql -p', fill('mysql -p ')],
    ['repeated long password flags', fill('--password ')],
    ['repeated -u user:', fill('-u a:')],
    ['user:pass soup without a host', fill('a:b')],
    ['user:pass@ soup', fill('a:b@')],
    ['repeated Cookie:', fill('Cookie: ')],
    ['repeated AccountKey=', fill('AccountKey=')],
    ['repeated webhook prefixes', fill('https://hooks.slack.com/services/')],
    ['key-width base64 lines', fill(`${'QUJD'.repeat(16)}\n`)],
    ['base64 lines growing', fill(`${'QUJD'.repeat(16)}\n${'QUJD'.repeat(32)}\n`)],
    ['log prefixes before password:', fill('] password: x ')],
    ['zero-width soup', fill('a\u200b')],
  ])('%s', (_name, input) => {
    const started = performance.now();
    const result = redactSecrets(input);
    const elapsed = performance.now() - started;
    expect(typeof result.text).toBe('string');
    // A safety net against catastrophic backtracking, not a benchmark.
    expect(elapsed).toBeLessThan(2000);
  });
});

describe('the example credentials AWS publishes (issue 46 A.6)', () => {
  it.each([
    'aws_access_key_id = AKIAIOSFODNN7EXAMPLE',
    'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    'export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    '"AccessKeyId": "AKIAI44QH8DHBEXAMPLE", "SecretAccessKey": "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY"',
  ])('shows the exact published example: %s', (line) => {
    expect(redactSecrets(line).text).toBe(line);
  });

  const endsInExample = `AKIA${fake(UPPER_NUM, 9, 40)}EXAMPLE`;
  it.each([
    ['a key id ending in EXAMPLE', `aws_access_key_id = ${endsInExample}`, endsInExample],
    ['the example with one character changed', 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEZ', 'EXAMPLEKEZ'],
    ['the example with more after it', 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY9', 'EXAMPLEKEY9'],
    ['a real secret beside the example', `export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE AWS_SECRET_ACCESS_KEY=${AWS_SECRET}`, AWS_SECRET],
  ])('still redacts %s', (_name, line, secret) => {
    const out = redactSecrets(line).text;
    expect(out).toContain('[REDACTED:');
    expect(out).not.toContain(secret);
  });
});
