/**
 * Issue 46's attack cases, one group per form (A.2 key material as a structure, A.3 forms
 * the rules missed), in the leak corpus's shape: leak-corpus.ts appends them, so every
 * read path that runs the corpus (reads/leak-corpus.test.ts, policy/leak-corpus.test.ts)
 * runs these too. Values come from fixed seeds (fakeText): no real secret in the source.
 */
import { fakeText } from './redaction-corpus.js';
import type { LeakCase } from './leak-corpus.js';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const BASE64 = `${ALNUM}+/`;
const URLSAFE = `${ALNUM}-_`;
const HEX = '0123456789abcdef';

const pw = (seed: number, length = 16) => `Q${fakeText(ALNUM, length - 3, seed)}7z`;
/** A key body of `lines` lines of `width` base64 characters. */
const body = (lines: number, width: number, seed: number) => Array.from({ length: lines }, (_, i) => fakeText(BASE64, width, seed + i * 7));

const PEM_BODY = body(25, 64, 4600);
const PEM = ['-----BEGIN RSA PRIVATE KEY-----', ...PEM_BODY, `${fakeText(BASE64, 20, 4690)}==`, '-----END RSA PRIVATE KEY-----'];
const OPENSSH_BODY = body(12, 70, 4700);

/** A.2: key material without its markers, cut by a pager, glued to a prompt. */
const KEY_MATERIAL: LeakCase[] = [
  {
    kind: 'key-block',
    name: 'less -S in a 50-column pane: chopped lines ending in >',
    lines: PEM.slice(0, 14).map((l) => (l.length > 49 ? `${l.slice(0, 49)}>` : l)),
    secrets: PEM_BODY.slice(0, 13).map((l) => l.slice(0, 49)),
  },
  {
    kind: 'key-block',
    name: 'less -S body rows only (scrolled past BEGIN)',
    lines: PEM_BODY.slice(5, 15).map((l) => `${l.slice(0, 49)}>`),
    secrets: PEM_BODY.slice(5, 15).map((l) => l.slice(0, 49)),
  },
  { kind: 'key-block', name: 'sed -n 5,6p key (two body lines)', lines: ['$ sed -n 5,6p deploy.key', ...PEM.slice(4, 6), '$ '], secrets: PEM.slice(4, 6) },
  { kind: 'key-block', name: 'sed -n 7p key (one body line)', lines: ['$ sed -n 7p deploy.key', PEM[6]!, '$ '], secrets: [PEM[6]!] },
  { kind: 'key-block', name: 'sed -n 3p of an openssh key (one 70-column line)', lines: ['$ sed -n 3p id_ops', OPENSSH_BODY[1]!, '$ '], secrets: [OPENSSH_BODY[1]!] },
  { kind: 'key-block', name: "less +8 key: the pager's : glued to the first line", lines: [`:${PEM[7]}`, ...PEM.slice(8, 20), ':'], secrets: PEM.slice(7, 20) },
  {
    kind: 'key-block',
    name: 'unterminated BEGIN (head -n 6), then ordinary output',
    lines: ['$ head -n 6 deploy.key', ...PEM.slice(0, 6), '$ ls', 'README.md  src  package.json'],
    secrets: PEM.slice(1, 6),
  },
];

/** A.3: forms the rules missed. `[name, line before the secret, line after]`. */
const FORMS: [string, string, string][] = [
  ['httpie -a user:pw', '$ http -a deploy:', ' https://api.example.test/items'],
  ['httpie --auth=user:pw', '$ http --auth=deploy:', ' POST api.example.test/items'],
  ['redis url with an empty user', 'REDIS_URL=redis://:', '@cache.internal:6379/0'],
  ['url password holding / and #', 'postgres://app:ab/c#', '@db.internal:5432/app'],
  ['box-drawn table row', '│ DB_PASSWORD      │ ', ' │'],
  ['markdown table row', '| API_TOKEN | ', ' |'],
  ['.pgpass behind cat -n', '     3\tdb.internal:5432:app:app:', ''],
  ['.pgpass behind grep -H', '/home/op/.pgpass:db.internal:5432:app:app:', ''],
  ['yaml block scalar under a secret key', 'db:\n  password: |\n    ', '\n  user: app'],
  ['yaml folded scalar in a list', '- client_secret: >-\n    ', '\n- name: web'],
  ['aws configure set', '$ aws configure set aws_secret_access_key ', ''],
  ['aws configure set with a profile', '$ aws configure set profile.ci.aws_secret_access_key ', ''],
];

const JWK_D = fakeText(URLSAFE, 86, 4801);
const JWK_P = fakeText(URLSAFE, 43, 4802);
const JWK_K = fakeText(URLSAFE, 43, 4803);
const VAULT = `hvs.${fakeText(URLSAFE, 85, 4804)}`;
const SENTRY_KEY = fakeText(HEX, 32, 4805);
const SPLIT_TOKEN = `ghp_${fakeText(ALNUM, 36, 4806)}`;
const CURSOR_SPLIT_TOKEN = `ghp_${fakeText(ALNUM, 36, 4807)}`;
const CURSOR_SPLIT_KEY = `sk-proj-${fakeText(URLSAFE, 48, 4808)}`;

const TOKEN_FORMS: LeakCase[] = [
  {
    kind: 'token',
    name: 'JWK private members',
    lines: ['{', '  "kty": "RSA",', '  "e": "AQAB",', `  "d": "${JWK_D}",`, `  "p": "${JWK_P}",`, '  "kid": "2026-07"', '}'],
    secrets: [JWK_D, JWK_P],
  },
  { kind: 'token', name: 'JWK symmetric key (oct)', lines: [`{"kty":"oct","alg":"HS256","k":"${JWK_K}"}`], secrets: [JWK_K] },
  { kind: 'token', name: 'vault hvs. token of 89 characters', lines: [`VAULT_TOKEN ${VAULT}`], secrets: [VAULT.slice(4)] },
  { kind: 'token', name: 'sentry dsn key', lines: [`  dsn: https://${SENTRY_KEY}@o4505.ingest.sentry.io/4506`], secrets: [SENTRY_KEY] },
  {
    kind: 'token',
    name: 'token split by a tag character (U+E0020)',
    lines: [`token ${SPLIT_TOKEN.slice(0, 20)}\u{E0020}${SPLIT_TOKEN.slice(20)}`],
    secrets: [SPLIT_TOKEN.slice(4, 20), SPLIT_TOKEN.slice(20)],
  },
  {
    // A stream sees the escape (dropped before matching); a pane capture sees the cells the
    // cursor skipped as blanks, so the token arrives in pieces (gap-split-tokens.ts).
    kind: 'token',
    name: 'token split by cursor-forward escapes (blank cells in a capture)',
    lines: [
      `token ${CURSOR_SPLIT_TOKEN.slice(0, 14)}\x1b[4C${CURSOR_SPLIT_TOKEN.slice(14, 28)}\x1b[2C${CURSOR_SPLIT_TOKEN.slice(28)} end`,
      `OPENAI_KEY ${CURSOR_SPLIT_KEY.slice(0, 30)}\x1b[1C${CURSOR_SPLIT_KEY.slice(30)}`,
    ],
    secrets: [CURSOR_SPLIT_TOKEN.slice(4, 14), CURSOR_SPLIT_TOKEN.slice(14, 28), CURSOR_SPLIT_TOKEN.slice(28), CURSOR_SPLIT_KEY.slice(8, 30), CURSOR_SPLIT_KEY.slice(30)],
  },
];

export const FORM_CASES: readonly LeakCase[] = [
  ...KEY_MATERIAL,
  ...FORMS.map(([name, before, after], i): LeakCase => ({ kind: 'key-value', name, lines: `${before}${pw(4900 + i)}${after}`.split('\n'), secrets: [pw(4900 + i)] })),
  ...TOKEN_FORMS,
];
