// Guards issue 46 A.4-A.6 for the host-secret index: the credential files it names are indexed (below a project root too), values under secret keys of any character class and of 8-15 characters (whole tokens only) are found, ordinary settings of the same files are not fingerprinted, and the accidental encodings ordinary tools print (od, hexdump, %XX, \u, &#x;, case, groups) are redacted.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installKnownSecrets } from '../../policy/known-secrets.js';
import { holdBackPartialToken, PARTIAL_TOKEN_MARKER } from '../../policy/partial-token.js';
import { redactSecrets } from '../../policy/redact.js';
import { leakedFragments } from '../../policy/redaction-corpus.js';
import { hostSecretFiles, watchHostSecrets, type KnownSecretWatcher } from './host-secrets.js';

/** One character class, 28 characters: never indexed before. */
const NETRC_PW = 'quietharbourlanternmeadowfox';
const VAULT = 'hvs.CAESIJ4xq8p2Lk9Zr7TmWvN3bYc';
const PYPI_PW = 'orchid-41-kestrel-raven';
const ENVRC_TOKEN = 'delta-crane-9090-mosaic';
const DEEP_ENV = 'pepper-7-lattice-ember-22';
const SHORT_PW = 'k3lp-Vox9'; // 9 characters
const RCLONE_PASS = 'zebra-Plum-5521-anchor';

let home: string;
let project: string;
let watcher: KnownSecretWatcher;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'tmcp-index-scope-'));
  project = join(home, 'work', 'mono');
  for (const d of ['.config/rclone', '.terraform.d', 'work/mono/packages/api']) mkdirSync(join(home, d), { recursive: true });
  writeFileSync(join(home, '.netrc'), `machine git.example.test login deploy password ${NETRC_PW}\n`);
  writeFileSync(join(home, '.vault-token'), `${VAULT}\n`);
  writeFileSync(join(home, '.pypirc'), `[pypi]\nusername = __token__\npassword = ${PYPI_PW}\n`);
  writeFileSync(join(home, '.config/rclone/rclone.conf'), `[s3]\ntype = s3\npass = ${RCLONE_PASS}\n`);
  writeFileSync(join(home, '.terraform.d/credentials.tfrc.json'), JSON.stringify({ credentials: { 'app.terraform.io': { token: `tf.${ENVRC_TOKEN}x` } } }));
  writeFileSync(join(home, '.npmrc'), 'registry=https://registry.npmjs.org/\n@acme:registry=https://npm.pkg.github.com/\n');
  writeFileSync(join(project, '.envrc'), `export API_TOKEN=${ENVRC_TOKEN}\n`);
  writeFileSync(join(project, '.env.production.local'), `DB_PASSWORD=${SHORT_PW}\nLOG_PATH=/var/log/mono/app-2026.log\nIMAGE=ghcr.io/acme/mono:1.4.2\n`);
  writeFileSync(join(project, 'packages/api/.env'), `API_SECRET=${DEEP_ENV}\n`);
  watcher = watchHostSecrets({ home, projectRoots: [project], files: [] }, 3600);
});

afterAll(() => {
  watcher?.stop();
  installKnownSecrets(null);
  if (home) rmSync(home, { recursive: true, force: true });
});

const od = (s: string, ...flags: string[]) => execFileSync('od', flags, { input: s, encoding: 'utf8' });
const hexdumpC = (s: string) => execFileSync('hexdump', ['-C'], { input: s, encoding: 'utf8' });

describe('host-secret index scope (issue 46)', () => {
  it('indexes the files A.4 names, .env files of any suffix count and below the root', () => {
    const files = hostSecretFiles({ home, projectRoots: [project], files: [] }).map((f) => f.slice(home.length));
    expect(files.sort()).toEqual(
      [
        '/.config/rclone/rclone.conf',
        '/.netrc',
        '/.npmrc',
        '/.pypirc',
        '/.terraform.d/credentials.tfrc.json',
        '/.vault-token',
        '/work/mono/.env.production.local',
        '/work/mono/.envrc',
        '/work/mono/packages/api/.env',
      ].sort(),
    );
  });

  it.each([
    ['a one-class .netrc password', NETRC_PW],
    ['a vault token file', VAULT],
    ['a .pypirc password', PYPI_PW],
    ['an rclone pass', RCLONE_PASS],
    ['an .envrc export', ENVRC_TOKEN],
    ['a package .env below the root', DEEP_ENV],
  ])('redacts %s printed anywhere', (_name, secret) => {
    const out = redactSecrets(`the value was ${secret} yesterday`).text;
    expect(leakedFragments(out, [secret])).toEqual([]);
  });

  it('finds a value of 8-15 characters as a whole token only', () => {
    expect(redactSecrets(`login with ${SHORT_PW} now`).text).toBe('login with [REDACTED:known_secret] now');
    expect(redactSecrets(`pw="${SHORT_PW}"`).text).toBe('pw="[REDACTED:known_secret]"');
    expect(redactSecrets(`DB=${SHORT_PW}`).text).toBe('DB=[REDACTED:known_secret]');
    // Inside a longer word it is another token.
    expect(redactSecrets(`x${SHORT_PW}y`).text).toBe(`x${SHORT_PW}y`);
  });

  it('holds back the first characters of a known secret printed slowly', () => {
    for (let k = 3; k < 16; k += 1) expect(holdBackPartialToken(`value: ${NETRC_PW.slice(0, k)}`)).toBe(`value: ${PARTIAL_TOKEN_MARKER}`);
    expect(holdBackPartialToken(`value: ${NETRC_PW.slice(0, 2)}`)).toBe(`value: ${NETRC_PW.slice(0, 2)}`);
    expect(holdBackPartialToken('value: quiet evening')).toBe('value: quiet evening');
  });

  it('does not fingerprint ordinary settings of the same files', () => {
    for (const text of [
      'registry=https://registry.npmjs.org/',
      'npm notice fetching https://npm.pkg.github.com/ for @acme',
      'writing /var/log/mono/app-2026.log',
      'pulling ghcr.io/acme/mono:1.4.2',
    ]) {
      expect(redactSecrets(text).text).toBe(text);
    }
  });

  it.each([
    ['od -c', (s: string) => od(s, '-c')],
    ['od -An -tx1', (s: string) => od(s, '-An', '-tx1')],
    ['hexdump -C', hexdumpC],
    ['%XX URL encoding', (s: string) => [...Buffer.from(s)].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('')],
    ['JSON \\u escapes', (s: string) => [...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')],
    ['HTML &#x; entities', (s: string) => [...s].map((c) => `&#x${c.charCodeAt(0).toString(16)};`).join('')],
    ['upper case', (s: string) => s.toUpperCase()],
    ['groups of 4', (s: string) => (s.match(/.{1,4}/g) ?? []).join(' ')],
  ])('redacts an accidental encoding of a known secret: %s', (_name, encode) => {
    const printed = encode(NETRC_PW);
    const out = redactSecrets(printed).text;
    expect(out).toContain('[REDACTED:known_secret]');
    // No 16-character window of the secret survives once the encoding is undone.
    const left = out.replace(/\[REDACTED:[a-z_]+\]/g, '\n');
    const undone = left.replace(/\s+/g, '').toLowerCase();
    for (let i = 0; i + 16 <= NETRC_PW.length; i += 1) expect(undone).not.toContain(NETRC_PW.slice(i, i + 16));
  });
});
