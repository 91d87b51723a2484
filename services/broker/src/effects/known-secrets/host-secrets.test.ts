// Guards issue 25's known-secret fingerprints: with HOME pointed at a temp dir holding an SSH key, AWS credentials, a .netrc, a .pgpass, a Docker config and a project's .env (never the real user's files), any output holding 16+ consecutive characters of one of their secrets — printed in a format no rule knows, in base64 or in hex — is redacted; 15 are not; a changed file is re-indexed; and the index holds no window of a secret in clear.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOME_SECRET_FILES } from '../../policy/leak-corpus.js';
import { installKnownSecrets } from '../../policy/known-secrets.js';
import { redactSecrets } from '../../policy/redact.js';
import { leakedFragments } from '../../policy/redaction-corpus.js';
import { hostSecretFiles, watchHostSecrets, type KnownSecretWatcher } from './host-secrets.js';

/** Secrets in no format any rule knows: lower-case words and digits, no key name. */
const AWS_SECRET = 'wjalrxutnfemi7k9mdengbpxrficyexamplekey42';
const NETRC_PW = 'corgi-lantern-97-harbour';
const PGPASS_PW = 'tulip5meadow8orbit';
const DOCKER_PW = 'velvet-ox-3141-signal';
const ENV_VALUE = 'blue-falcon-2718-ledger';

let home: string;
let project: string;
let watcher: KnownSecretWatcher;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'tmcp-known-home-'));
  project = join(home, 'work', 'app');
  for (const d of ['.ssh', '.aws', '.docker', 'work/app']) mkdirSync(join(home, d), { recursive: true });
  writeFileSync(join(home, '.ssh/id_ed25519'), HOME_SECRET_FILES.openssh, { mode: 0o600 });
  writeFileSync(join(home, '.ssh/id_ed25519.pub'), 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPublicPartIsNotSecret op@host\n');
  writeFileSync(join(home, '.aws/credentials'), `[default]\naws_access_key_id = AKIAZZZZZZZZZZZZZZZZ\naws_secret_access_key = ${AWS_SECRET}\n`);
  writeFileSync(join(home, '.netrc'), `machine git.example.test login deploy password ${NETRC_PW}\n`);
  writeFileSync(join(home, '.pgpass'), `db.internal:5432:app:app:${PGPASS_PW}\n`);
  writeFileSync(join(home, '.docker/config.json'), JSON.stringify({ auths: { 'r.example.test': { auth: Buffer.from(`ci:${DOCKER_PW}`).toString('base64') } } }));
  writeFileSync(join(project, '.env'), `SESSION_SECRET=${ENV_VALUE}\n`);
  watcher = watchHostSecrets({ home, projectRoots: [project], files: [] }, 3600);
});

afterAll(() => {
  watcher?.stop();
  installKnownSecrets(null);
  if (home) rmSync(home, { recursive: true, force: true });
});

const hex = (s: string) => Buffer.from(s).toString('hex');
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('known-secret fingerprints', () => {
  it('indexes the credential files it should, and not public keys', () => {
    const files = hostSecretFiles({ home, projectRoots: [project], files: [] }).map((f) => f.slice(home.length));
    expect(files.sort()).toEqual(['/.aws/credentials', '/.docker/config.json', '/.netrc', '/.pgpass', '/.ssh/id_ed25519', '/work/app/.env'].sort());
    expect(watcher.index()!.windows).toBeGreaterThan(1000);
  });

  it.each([
    ['aws secret in prose', (s: string) => `the value was ${s} yesterday`, AWS_SECRET],
    ['aws secret in hex', (s: string) => `dump: ${hex(s)}`, AWS_SECRET],
    ['aws secret in base64', (s: string) => `blob=${b64(`x${s}`)}`, AWS_SECRET],
    ['netrc password quoted in a log', (s: string) => `auth failed for "${s}"`, NETRC_PW],
    ['pgpass password in a table', (s: string) => `| app | ${s} |`, PGPASS_PW],
    ['docker password decoded', (s: string) => `ci ${s}`, DOCKER_PW],
    ['project .env value', (s: string) => `flag is ${s}!`, ENV_VALUE],
    ['ssh key line shown sideways', () => `| ${HOME_SECRET_FILES.opensshSecretLines[3]!.slice(0, 30)}`, HOME_SECRET_FILES.opensshSecretLines[3]!.slice(0, 30)],
    ['ssh key file as base64 -w0', () => b64(HOME_SECRET_FILES.openssh), b64(HOME_SECRET_FILES.openssh).slice(60, 400)],
    ['ssh key file as xxd -p', () => hex(HOME_SECRET_FILES.openssh).slice(200, 260), hex(HOME_SECRET_FILES.openssh).slice(200, 260)],
  ])('redacts 16+ characters of a known secret: %s', (_name, print, secret) => {
    const out = redactSecrets(print(secret)).text;
    expect(leakedFragments(out, [secret.slice(0, 16), secret.slice(-16)])).toEqual([]);
    expect(out).toContain('[REDACTED:');
  });

  it('leaves 15 characters of one, and unrelated text, alone', () => {
    for (const text of [`part ${AWS_SECRET.slice(0, 15)} only`, 'ordinary output: build ok in 3.2 s']) expect(redactSecrets(text).text).toBe(text);
  });

  it('re-indexes a file that changed', () => {
    const rotated = 'maple-quartz-6620-beacon';
    expect(redactSecrets(`x ${rotated} y`).text).toContain(rotated);
    writeFileSync(join(home, '.netrc'), `machine git.example.test login deploy password ${rotated}\n`);
    expect(watcher.refresh()).toBe(true);
    expect(redactSecrets(`x ${rotated} y`).text).not.toContain(rotated.slice(0, 16));
    expect(watcher.refresh()).toBe(false);
  });
});
