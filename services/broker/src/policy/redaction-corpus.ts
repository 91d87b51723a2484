/**
 * A table of fake secrets of every kind the redactor knows, laid out the ways a pane or a
 * file shows them (key blocks with and without markers, long tokens that wrap, colour
 * codes and zero-width characters inside a token). Tests run EVERY read path over it and
 * assert that no secret fragment of 8 characters survives (reads/redaction-corpus.test.ts).
 *
 * Values are generated from a fixed seed, so the source holds no literal token that a
 * secret scanner (or a reader) could mistake for a real one, and every run sees the same.
 */

export interface CorpusEntry {
  readonly name: string;
  /** Lines as a file holds them or a program prints them (may contain escape codes). */
  readonly lines: readonly string[];
  /** Substrings that must never appear in an answer (each 8+ characters). */
  readonly secrets: readonly string[];
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const BASE64 = `${ALNUM}+/`;
const URLSAFE = `${ALNUM}-_`;
const HEX = '0123456789abcdef';
const UPPER_NUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** Deterministic pseudo-random text (an LCG; not for anything but fixtures). */
export function fakeText(alphabet: string, length: number, seed: number): string {
  let x = seed;
  let out = '';
  for (let i = 0; i < length; i += 1) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out += alphabet[Math.floor(x / 65536) % alphabet.length];
  }
  return out;
}

/** A value with a digit and both cases, as real passwords and keys have. */
const secretWord = (seed: number, length = 14) => `Q${fakeText(ALNUM, length - 3, seed)}7z`;

const pemBody = (lines: number, width: number, seed: number) => Array.from({ length: lines }, (_, i) => fakeText(BASE64, width, seed + i));

const RSA_BODY = [...pemBody(24, 64, 1000), `${fakeText(BASE64, 30, 1100)}==`];
const OPENSSH_BODY = [`b3BlbnNzaC1rZXktdjEAAAAA${fakeText(BASE64, 46, 1200)}`, ...pemBody(6, 70, 1201), fakeText(BASE64, 18, 1300)];
const BARE_BODY = pemBody(8, 64, 1400);

const ANTHROPIC = fakeText(URLSAFE, 106, 1);
const GITHUB = fakeText(ALNUM, 36, 2);
const AWS_ID = fakeText(UPPER_NUM, 16, 3);
const AWS_SECRET = fakeText(BASE64, 40, 4);
const JWT_SIG = fakeText(URLSAFE, 43, 5);
const OPENAI = fakeText(URLSAFE, 80, 6);
const SLACK = fakeText(ALNUM, 24, 7);
const COLOURED = fakeText(ALNUM, 36, 8);
const ZERO_WIDTH = fakeText(ALNUM, 36, 9);
const JWT_PAYLOAD = 'eyJzdWIiOiJjb3JwdXMtdXNlciIsImlhdCI6MTcwMDAwMDAwMH0';

export const REDACTION_CORPUS: readonly CorpusEntry[] = [
  {
    name: 'rsa private key block',
    lines: ['-----BEGIN RSA PRIVATE KEY-----', ...RSA_BODY, '-----END RSA PRIVATE KEY-----'],
    secrets: RSA_BODY,
  },
  {
    name: 'openssh private key block',
    lines: ['-----BEGIN OPENSSH PRIVATE KEY-----', ...OPENSSH_BODY, '-----END OPENSSH PRIVATE KEY-----'],
    secrets: OPENSSH_BODY,
  },
  { name: 'key body without markers', lines: BARE_BODY, secrets: BARE_BODY },
  {
    name: 'long anthropic key (wraps in a narrow pane)',
    lines: [`export ANTHROPIC_API_KEY=sk-ant-api03-${ANTHROPIC}`],
    secrets: [ANTHROPIC],
  },
  { name: 'github token', lines: [`GH_TOKEN=ghp_${GITHUB}`], secrets: [GITHUB] },
  { name: 'aws key pair', lines: [`aws_access_key_id = AKIA${AWS_ID}`, `aws_secret_access_key = ${AWS_SECRET}`], secrets: [`AKIA${AWS_ID}`, AWS_SECRET] },
  { name: 'jwt bearer', lines: [`Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.${JWT_PAYLOAD}.${JWT_SIG}`], secrets: [JWT_SIG] },
  { name: 'openai key', lines: [`OPENAI_API_KEY="sk-proj-${OPENAI}"`], secrets: [OPENAI] },
  { name: 'slack token', lines: [`SLACK_BOT=xoxb-1234567890-${SLACK}`], secrets: [SLACK] },
  { name: 'db password', lines: [`DB_PASSWORD = ${secretWord(10)}`], secrets: [secretWord(10)] },
  { name: 'mysql -pX', lines: [`$ mysql -u root -p${secretWord(11)} app`], secrets: [secretWord(11)] },
  { name: '--password X', lines: [`$ pgcli --password ${secretWord(12)} --host db`], secrets: [secretWord(12)] },
  { name: 'sshpass -p X', lines: [`$ sshpass -p ${secretWord(13)} ssh deploy@web1`], secrets: [secretWord(13)] },
  { name: 'curl -u user:pass', lines: [`$ curl -u admin:${secretWord(14)} https://api.example.test/v1`], secrets: [secretWord(14)] },
  { name: 'user:pass@host', lines: [`$ git clone ci:${secretWord(15)}@git.example.test:org/repo.git`], secrets: [secretWord(15)] },
  { name: 'url password', lines: [`DATABASE_URL=postgres://app:${secretWord(16)}@db.internal:5432/app`], secrets: [secretWord(16)] },
  {
    name: 'azure connection string',
    lines: [`AZURE_STORAGE=DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${fakeText(BASE64, 86, 17)}==;EndpointSuffix=core.windows.net`],
    secrets: [fakeText(BASE64, 86, 17)],
  },
  {
    name: 'slack webhook',
    lines: [`WEBHOOK https://hooks.slack.com/services/T01ABCDEF/B02ABCDEF/${fakeText(ALNUM, 24, 18)}`],
    secrets: [fakeText(ALNUM, 24, 18)],
  },
  { name: 'cookie header', lines: [`> Cookie: session=${fakeText(ALNUM, 32, 19)}; theme=dark`], secrets: [fakeText(ALNUM, 32, 19)] },
  { name: 'set-cookie header', lines: [`< Set-Cookie: sid=${fakeText(ALNUM, 32, 20)}; Path=/; HttpOnly`], secrets: [fakeText(ALNUM, 32, 20)] },
  { name: 'docker auth', lines: [`{"auths": {"ghcr.io": {"auth": "${fakeText(BASE64, 40, 21)}="}}}`], secrets: [fakeText(BASE64, 40, 21)] },
  { name: 'generic *_KEY', lines: [`export MAPBOX_KEY=${secretWord(22, 32)}`], secrets: [secretWord(22, 32)] },
  { name: 'password after a log prefix', lines: [`2026-01-01 10:00:00 INFO password: ${secretWord(23)}`], secrets: [secretWord(23)] },
  { name: 'secret_key_base', lines: [`secret_key_base: ${fakeText(HEX, 128, 24)}`], secrets: [fakeText(HEX, 128, 24)] },
  {
    name: 'coloured token',
    lines: [`token ghp_${COLOURED.slice(0, 18)}\x1b[31m${COLOURED.slice(18)}\x1b[0m end`],
    secrets: [COLOURED.slice(0, 18), COLOURED.slice(18)],
  },
  {
    name: 'zero-width space inside a token',
    lines: [`token ghp_${ZERO_WIDTH.slice(0, 18)}\u200b${ZERO_WIDTH.slice(18)} end`],
    secrets: [ZERO_WIDTH.slice(0, 18), ZERO_WIDTH.slice(18)],
  },
];

/** Every secret of the corpus. */
export const CORPUS_SECRETS: readonly string[] = REDACTION_CORPUS.flatMap((e) => e.secrets);

/** The corpus as one text: each entry after a plain heading line, entries apart. */
export function corpusText(): string {
  return `${REDACTION_CORPUS.map((e) => [`## ${e.name}`, ...e.lines].join('\n')).join('\n\n')}\n`;
}

/** The secrets' 8-character fragments found in `answer` (ignoring escape codes and zero-width characters). */
export function leakedFragments(answer: string, secrets: readonly string[] = CORPUS_SECRETS): string[] {
  const plain = answer.replace(/\x1b\[[0-9;:?]*[A-Za-z]/g, '').replace(/[\u200b-\u200f\u2060\ufeff]/g, '');
  const grams = new Set<string>();
  for (let i = 0; i + 8 <= plain.length; i += 1) grams.add(plain.slice(i, i + 8));
  const leaks = new Set<string>();
  for (const secret of secrets) {
    for (let i = 0; i + 8 <= secret.length; i += 1) {
      const piece = secret.slice(i, i + 8);
      if (grams.has(piece)) leaks.add(piece);
    }
  }
  return [...leaks];
}
