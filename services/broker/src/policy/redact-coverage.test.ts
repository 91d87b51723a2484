// Guards the wider redaction coverage of issue 9: command-line password flags, bare
// user:pass@host, Azure keys and SAS signatures, webhook URLs, cookies, Docker auth,
// generic *_KEY/_SECRET/_TOKEN assignments, secrets after a log prefix, secret_key_base,
// and key material without BEGIN/END markers. Every case also runs with a colour code and
// with a zero-width character inside the secret; none may leave a fragment behind.
import { describe, expect, it } from 'vitest';
import { cutPaneWindow, rowsOf } from './pane-window.js';
import { redactSecrets } from './redact.js';

// Fixtures are generated, so the source holds no literal token a scanner could flag.
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const BASE64 = `${ALNUM}+/`;
function fake(alphabet: string, length: number, seed: number): string {
  let x = seed;
  let out = '';
  for (let i = 0; i < length; i += 1) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out += alphabet[Math.floor(x / 65536) % alphabet.length];
  }
  return out;
}
const R = (kind: string) => `[REDACTED:${kind}]`;
const PW = `Hu${fake(ALNUM, 10, 1)}7q`;

/** [name, before, secret, after, kind]: `before + secret + after` must become `before + marker + after`. */
const CASES: [string, string, string, string, string][] = [
  ['mysql -pX', 'mysql -u root -p', PW, ' app', 'password'],
  ['mysql -p X', 'mysql -u root -p ', PW, ' -h db', 'password'],
  ['mysqldump -pX', '/usr/bin/mysqldump -uroot -p', PW, ' app > dump.sql', 'password'],
  ['mariadb -p quoted', "mariadb -p'", PW, "' -e 'select 1'", 'password'],
  ['--password X', 'pgcli --password ', PW, ' --verbose', 'password'],
  ['--password=X', 'tool --password=', PW, ' run', 'password'],
  ['--db-password "X"', 'app --db-password "', PW, '" serve', 'password'],
  ['--api-key X', 'cli --api-key ', PW, '', 'api_key'],
  ['sshpass -p X', 'sshpass -p ', PW, ' ssh deploy@host', 'password'],
  // gitleaks' curl-auth-user takes the user with the password.
  ['curl -u user:pass', 'curl -u ', `admin:${PW}`, ' https://x.test/api', 'curl_auth_user'],
  ['curl --user user:pass', 'curl --user ', `'admin:${PW}'`, ' https://x.test', 'curl_auth_user'],
  ['user:pass@host without a scheme', 'git clone admin:', PW, '@git.example.com:org/repo.git', 'url_password'],
  ['proxy user:pass@host:port', 'export https_proxy=bob:', PW, '@proxy.corp:3128', 'url_password'],
  ['azure AccountKey', 'DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=', `${fake(BASE64, 86, 2)}==`, ';EndpointSuffix=core.windows.net', 'azure_key'],
  ['azure SharedAccessKey', 'Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey=', `${fake(BASE64, 43, 3)}=`, '', 'azure_key'],
  ['azure SAS sig', 'https://acct.blob.core.windows.net/c/f?sv=2020-08-04&sp=r&sig=', `${fake(ALNUM, 40, 4)}%3D`, '&se=2030', 'azure_key'],
  ['slack webhook', 'curl -X POST ', `https://hooks.slack.com/services/T01ABCDEF/B02ABCDEF/${fake(ALNUM, 24, 5)}`, ' -d @msg.json', 'slack_webhook_url'],
  ['discord webhook', 'POST https://discord.com/api/webhooks/', `123456789012345678/${fake(ALNUM, 60, 6)}`, ' 204', 'webhook_url'],
  ['Cookie header', '> Cookie: ', `session=${fake(ALNUM, 32, 7)}; theme=dark`, '', 'cookie'],
  ['Set-Cookie header', '< Set-Cookie: ', `sid=${fake(ALNUM, 24, 8)}; Path=/; HttpOnly`, '', 'cookie'],
  ['Cookie in curl -H', "curl -H 'Cookie: ", `sid=${fake(ALNUM, 24, 9)}`, "' https://x.test", 'cookie'],
  ['curl --cookie', "curl --cookie '", `sid=${fake(ALNUM, 24, 10)}`, "' https://x.test", 'cookie'],
  ['docker auth', '{"auths": {"ghcr.io": {"auth": "', `${fake(BASE64, 40, 11)}=`, '"}}}', 'docker_auth'],
  ['generic *_KEY=', 'export MAPBOX_KEY=', `${fake(ALNUM, 30, 12)}9`, '', 'secret'],
  ['generic *_SECRET=', 'JWT_SECRET=', fake(ALNUM, 30, 13), ' node app.js', 'secret'],
  ['generic *_TOKEN=', 'CI_DEPLOY_TOKEN=', fake(ALNUM, 30, 14), '', 'token'],
  ['password: after a timestamp and level', '2026-01-01 10:00:00 INFO password: ', PW, ' retries=3', 'password'],
  ['api-key: after a bracketed prefix', '[db-sync] api-key: ', PW, '', 'api_key'],
  ['password: after an ISO timestamp', '2026-01-01T10:00:00Z password: ', PW, '', 'password'],
  ['secret_key_base', 'secret_key_base: ', fake('0123456789abcdef', 128, 15), '', 'secret'],
  ['SECRET_KEY_BASE=', 'SECRET_KEY_BASE=', fake('0123456789abcdef', 128, 16), '', 'secret'],
];

/** The secret with a colour code, or a zero-width character, in its middle. */
const insertMiddle = (secret: string, what: string) => `${secret.slice(0, secret.length >> 1)}${what}${secret.slice(secret.length >> 1)}`;

/** Every substring of `secret` of length 8 (or the whole when shorter): none may survive. */
function fragments(secret: string): string[] {
  if (secret.length <= 8) return [secret];
  const out: string[] = [];
  for (let i = 0; i + 8 <= secret.length; i += 1) out.push(secret.slice(i, i + 8));
  return out;
}

describe('wider coverage', () => {
  describe.each([
    ['plain', (s: string) => s],
    ['with a colour code inside', (s: string) => insertMiddle(s, '\x1b[1;31m')],
    ['with a zero-width space inside', (s: string) => insertMiddle(s, '\u200b')],
    ['with a zero-width joiner and soft hyphen inside', (s: string) => insertMiddle(s, '\u200d\u00ad')],
  ])('%s', (_variant, mangle) => {
    it.each(CASES)('%s', (_name, before, secret, after, kind) => {
      const result = redactSecrets(`${before}${mangle(secret)}${after}`);
      expect(result.text).toBe(`${before}${R(kind)}${after}`);
      for (const piece of fragments(secret.replace(/[^A-Za-z0-9]/g, ''))) expect(result.text).not.toContain(piece);
    });
  });

  it.each(CASES)('%s, soft-wrapped in a 16-column pane and read one row at a time', (_name, before, secret, after, kind) => {
    const line = `${before}${secret}${after}`;
    const rows = rowsOf(line, 16);
    // The line ends on the row above the prompt, the screen's bottom row.
    const captured = `${line}\n$ `;
    for (let row = -rows; row < 0; row += 1) {
      const cut = cutPaneWindow(captured, { width: 16, start: row, end: row, bottomRow: 0, fromHistoryStart: true, toScreenBottom: true, escapes: false });
      expect(cut.lines).toEqual([`${before}${R(kind)}${after}`]);
    }
  });

  it.each([
    'docker run -p 8080:80 nginx',
    'ssh -p 2222 deploy@host',
    'mkdir -p build/out',
    'docker run -u 1000:1000 image',
    'SORT_KEY=created_at',
    'PRIMARY_KEY=id',
    'the password: it must be long',
    'Your new password: must have 12 characters',
    'mailto:bob@example.com',
    'git@github.com:org/repo.git',
    'ssh deploy@host',
    'docker login --password-stdin',
    'mysql -p',
    'mysql -u root -p -h db',
    '  --token TOKEN     the API token',
    '  --password string   password for the user',
    'Cookie: none',
    `sha256:${fake('0123456789abcdef', 64, 20)}`,
    `${fake('0123456789abcdef', 64, 21)}\n${fake('0123456789abcdef', 64, 22)}`,
    'at 10:30@home',
    'psql -p 5432 -U app',
  ])('leaves %j alone', (text) => {
    expect(redactSecrets(text)).toEqual({ text, count: 0, kinds: [] });
  });
});

const BODY = [1, 2, 3, 4, 5, 6].map((seed) => fake(BASE64, 64, 300 + seed));
const LAST = `${fake(BASE64, 22, 399)}==`;
const OPENSSH = [`b3BlbnNzaC1rZXktdjEAAAAA${fake(BASE64, 46, 400)}`, ...[1, 2, 3].map((seed) => fake(BASE64, 70, 400 + seed))];

describe('key material without markers', () => {
  it.each([
    ['body lines only (less scrolled into a key)', `${BODY.join('\n')}\n${LAST}\n:`],
    ['two body lines in the middle of a screen', `$ something\n${BODY[2]}\n${BODY[3]}\n$ `],
    ['one body line at the top edge of a window', `${BODY[4]}\n$ ls\nREADME.md`],
    ['one body line at the bottom edge of a window', `$ cat key\n${BODY[5]}`],
    ['an OpenSSH body', `${OPENSSH.join('\n')}\n`],
    ['the OpenSSH first line alone', `x\n${OPENSSH[0]}\ny`],
    ['numbered lines (cat -n)', BODY.map((line, i) => `    ${i + 2}\t${line}`).join('\n')],
    ['a diff hunk of a key file', `@@ -2,3 +2,3 @@\n ${BODY[0]}\n-${BODY[1]}\n+${BODY[2]}\n ${BODY[3]}`],
    ['indented in YAML', `key: |\n  ${BODY[0]}\n  ${BODY[1]}\n  ${LAST}\nnext: 1`],
  ])('%s', (_name, text) => {
    const result = redactSecrets(text);
    expect(result.kinds).toEqual(['private_key']);
    for (const line of [...BODY, LAST, ...OPENSSH]) {
      for (const piece of fragments(line)) expect(result.text).not.toContain(piece);
    }
  });

  it('keeps a certificate body and hex digests', () => {
    const cert = `-----BEGIN CERTIFICATE-----\n${BODY.slice(0, 3).join('\n')}\n${LAST}\n-----END CERTIFICATE-----`;
    expect(redactSecrets(cert).count).toBe(0);
    const hex = [1, 2, 3].map((seed) => fake('0123456789ABCDEF', 64, seed)).join('\n');
    expect(redactSecrets(hex).count).toBe(0);
  });
});

describe('keepLines', () => {
  it('keeps one line per input line and the lines around a key block', () => {
    const text = `before\n-----BEGIN PRIVATE KEY-----\n${BODY.slice(0, 3).join('\n')}\n\n${LAST}\n-----END PRIVATE KEY-----\nafter password=${PW}`;
    const result = redactSecrets(text, { keepLines: true });
    const lines = result.text.split('\n');
    expect(lines).toHaveLength(text.split('\n').length);
    expect(lines[0]).toBe('before');
    expect(lines.slice(1, 8)).toEqual([R('private_key'), R('private_key'), R('private_key'), R('private_key'), '', R('private_key'), R('private_key')]);
    expect(lines[8]).toBe(`after password=${R('password')}`);
    expect(result.count).toBe(2);
  });
});
