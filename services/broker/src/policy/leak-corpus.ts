/**
 * The attack corpus of issue 25: fake secrets in the shapes that leaked past a hand-grown
 * redactor — key files shown through `grep -H`, `cat -A`, `less -S`, `tail`, `base64`,
 * `xxd`, `openssl rsa -text`, kube and docker configs; passwords on the command lines of
 * many programs; key/value forms in logs and config files; token formats of many vendors.
 * Every read path is tested against it (reads/leak-corpus.test.ts): no 8-character
 * fragment of any `secrets` entry may reach a client.
 *
 * Values come from a fixed seed (fakeText), so the source holds no real token.
 */
import { FORM_CASES } from './leak-corpus-forms.js';
import { fakeText, type CorpusEntry } from './redaction-corpus.js';

export type LeakKind = 'key-block' | 'encoding' | 'command-line' | 'key-value' | 'token';

export interface LeakCase extends CorpusEntry {
  readonly kind: LeakKind;
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const LOWER_NUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
const HEX = '0123456789abcdef';
const URLSAFE = `${ALNUM}-_`;
const BECH32 = 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L';

/** Deterministic bytes from a seed (same LCG as fakeText). */
function fakeBytes(length: number, seed: number): Buffer {
  const out = Buffer.alloc(length);
  let x = seed;
  for (let i = 0; i < length; i += 1) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out[i] = Math.floor(x / 65536) % 256;
  }
  return out;
}

const wrap = (text: string, width: number) => text.match(new RegExp(`.{1,${width}}`, 'g')) ?? [];

/** A PKCS#1 RSA private key: DER header (SEQUENCE, version 0, INTEGER) then random bytes. */
const RSA_DER = Buffer.concat([Buffer.from('308204a40201000282010100', 'hex'), fakeBytes(1180, 9001)]);
const RSA_BODY = wrap(RSA_DER.toString('base64'), 64);
const RSA_PEM = ['-----BEGIN RSA PRIVATE KEY-----', ...RSA_BODY, '-----END RSA PRIVATE KEY-----'];
const RSA_FILE = `${RSA_PEM.join('\n')}\n`;

/** An OpenSSH private key: `openssh-key-v1\0` then random bytes, 70 columns. */
const OPENSSH_BLOB = Buffer.concat([Buffer.from('openssh-key-v1\0', 'latin1'), Buffer.from('0000000a6165733235362d637472', 'hex'), fakeBytes(1600, 9002)]);
const OPENSSH_BODY = wrap(OPENSSH_BLOB.toString('base64'), 70);
const OPENSSH_PEM = ['-----BEGIN OPENSSH PRIVATE KEY-----', ...OPENSSH_BODY, '-----END OPENSSH PRIVATE KEY-----'];
const OPENSSH_FILE = `${OPENSSH_PEM.join('\n')}\n`;

/** A PKCS#8 EC key, short. */
const EC_DER = Buffer.concat([Buffer.from('308187020100301306072a8648ce3d020106082a8648ce3d030107046d306b0201010420', 'hex'), fakeBytes(100, 9003)]);
const EC_PEM = ['-----BEGIN PRIVATE KEY-----', ...wrap(EC_DER.toString('base64'), 64), '-----END PRIVATE KEY-----'];

/** `xxd` lines of `data`: offset, 8 groups of 2 bytes, the text column. */
function xxd(data: Buffer): string[] {
  const lines: string[] = [];
  for (let at = 0; at < data.length; at += 16) {
    const chunk = data.subarray(at, at + 16);
    const hex = (chunk.toString('hex').match(/.{1,4}/g) ?? []).join(' ');
    const text = [...chunk].map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join('');
    lines.push(`${at.toString(16).padStart(8, '0')}: ${hex.padEnd(39)}  ${text}`);
  }
  return lines;
}

/** `hexdump -C` lines of `data`. */
function hexdumpC(data: Buffer): string[] {
  const lines: string[] = [];
  for (let at = 0; at < data.length; at += 16) {
    const chunk = data.subarray(at, at + 16);
    const bytes = [...chunk].map((b) => b.toString(16).padStart(2, '0'));
    const hex = `${bytes.slice(0, 8).join(' ')}  ${bytes.slice(8).join(' ')}`;
    const text = [...chunk].map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join('');
    lines.push(`${at.toString(16).padStart(8, '0')}  ${hex.padEnd(49)} |${text}|`);
  }
  return lines;
}

/** `openssl rsa -text` style: hex bytes with colons, 15 a line, indented. */
const colonHex = (data: Buffer) => wrap([...data].map((b) => b.toString(16).padStart(2, '0')).join(':'), 45).map((l) => `    ${l}`);

/** The body lines of RSA_BODY a reader must never see (the first line is a well-known
 * DER header in every 2048-bit key, so it is left out of the fragments checked). */
const RSA_SECRET_LINES = RSA_BODY.slice(1);
const OPENSSH_SECRET_LINES = OPENSSH_BODY.slice(2);

/** A value with a digit and both cases, as real passwords have. */
const pw = (seed: number, length = 16) => `Q${fakeText(ALNUM, length - 3, seed)}7z`;

const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');

const KEY_BLOCKS: LeakCase[] = [
  { kind: 'key-block', name: 'rsa key, plain', lines: RSA_PEM, secrets: RSA_SECRET_LINES },
  { kind: 'key-block', name: 'openssh key, plain', lines: OPENSSH_PEM, secrets: OPENSSH_SECRET_LINES },
  { kind: 'key-block', name: 'pkcs8 ec key, plain', lines: EC_PEM, secrets: EC_PEM.slice(2, -1) },
  { kind: 'key-block', name: "grep -H '' id_rsa", lines: RSA_PEM.map((l) => `/home/op/.ssh/id_rsa:${l}`), secrets: RSA_SECRET_LINES },
  { kind: 'key-block', name: 'grep -n on an openssh key', lines: OPENSSH_PEM.map((l, i) => `${i + 1}:${l}`), secrets: OPENSSH_SECRET_LINES },
  { kind: 'key-block', name: 'cat -A id_ed25519', lines: OPENSSH_PEM.map((l) => `${l}$`), secrets: OPENSSH_SECRET_LINES },
  { kind: 'key-block', name: 'cat -e id_rsa (CRLF file)', lines: RSA_PEM.map((l) => `${l}^M$`), secrets: RSA_SECRET_LINES },
  { kind: 'key-block', name: 'cat -n id_rsa', lines: RSA_PEM.map((l, i) => `${String(i + 1).padStart(6)}\t${l}`), secrets: RSA_SECRET_LINES },
  { kind: 'key-block', name: 'bat-style table of a key', lines: RSA_PEM.map((l, i) => `${String(i + 1).padStart(4)} │ ${l}`), secrets: RSA_SECRET_LINES },
  {
    kind: 'key-block',
    name: 'less -S in a 40-column pane (cut sideways)',
    lines: RSA_PEM.map((l) => l.slice(0, 40)),
    secrets: RSA_SECRET_LINES.map((l) => l.slice(0, 40)),
  },
  {
    kind: 'key-block',
    name: 'less -S in a 24-column pane, openssh',
    lines: OPENSSH_PEM.map((l) => l.slice(0, 24)),
    secrets: OPENSSH_SECRET_LINES.map((l) => l.slice(0, 24)),
  },
  { kind: 'key-block', name: 'tail -n 2 id_rsa', lines: ['$ tail -n 2 ~/.ssh/id_rsa', ...RSA_PEM.slice(-2), '$'], secrets: [RSA_PEM.at(-2)!] },
  { kind: 'key-block', name: 'tail -n 4 id_rsa', lines: ['$ tail -n 4 ~/.ssh/id_rsa', ...RSA_PEM.slice(-4), '$'], secrets: RSA_PEM.slice(-4, -1) },
  { kind: 'key-block', name: 'head -n 3 id_ed25519', lines: ['$ head -n 3 ~/.ssh/id_ed25519', ...OPENSSH_PEM.slice(0, 3), '$'], secrets: [OPENSSH_PEM[2]!] },
  { kind: 'key-block', name: 'sed -n 5,8p id_rsa (body only)', lines: ['$ sed -n 5,8p id_rsa', ...RSA_PEM.slice(4, 8), '$'], secrets: RSA_PEM.slice(4, 8) },
  {
    kind: 'key-block',
    name: 'key in a JSON string with \\n escapes',
    lines: [`  "private_key": "${RSA_PEM.slice(0, 6).join('\\n')}\\n...",`],
    secrets: RSA_PEM.slice(2, 6),
  },
  {
    kind: 'key-block',
    name: 'git diff of a key file',
    lines: ['diff --git a/deploy.pem b/deploy.pem', '@@ -1,3 +1,3 @@', ...RSA_PEM.slice(0, 5).map((l) => `+${l}`), ...RSA_PEM.slice(5, 9).map((l) => ` ${l}`)],
    secrets: RSA_PEM.slice(2, 9),
  },
];

const DOCKER_JSON = `{"auths":{"registry.example.test":{"auth":"${b64(`deploy:${pw(301)}`)}"}}}`;
const KUBE_KEY_DATA = b64(RSA_FILE);
const ENCODINGS: LeakCase[] = [
  { kind: 'encoding', name: 'base64 -w0 id_rsa', lines: ['$ base64 -w0 ~/.ssh/id_rsa', b64(RSA_FILE)], secrets: wrap(b64(RSA_FILE), 40).slice(1, -1) },
  { kind: 'encoding', name: 'base64 id_ed25519 (76 columns)', lines: wrap(b64(OPENSSH_FILE), 76), secrets: wrap(b64(OPENSSH_FILE), 76).slice(1) },
  { kind: 'encoding', name: 'base64 of the DER key, one line', lines: [RSA_DER.toString('base64')], secrets: wrap(RSA_DER.toString('base64'), 40).slice(1) },
  { kind: 'encoding', name: 'xxd id_rsa', lines: xxd(Buffer.from(RSA_FILE)).slice(0, 60), secrets: xxd(Buffer.from(RSA_FILE)).slice(3, 60).map((l) => l.slice(10)) },
  { kind: 'encoding', name: 'xxd -p id_ed25519', lines: wrap(Buffer.from(OPENSSH_FILE).toString('hex'), 60), secrets: wrap(Buffer.from(OPENSSH_FILE).toString('hex'), 60).slice(2) },
  { kind: 'encoding', name: 'hexdump -C id_rsa', lines: hexdumpC(Buffer.from(RSA_FILE)).slice(0, 40), secrets: hexdumpC(Buffer.from(RSA_FILE)).slice(3, 40).map((l) => l.slice(10)) },
  {
    kind: 'encoding',
    name: 'openssl rsa -text -noout',
    lines: ['Private-Key: (2048 bit, 2 primes)', 'modulus:', ...colonHex(fakeBytes(64, 9100)), 'publicExponent: 65537 (0x10001)', 'privateExponent:', ...colonHex(fakeBytes(256, 9101)), 'prime1:', ...colonHex(fakeBytes(128, 9102)), 'prime2:', ...colonHex(fakeBytes(128, 9103))],
    secrets: [...colonHex(fakeBytes(256, 9101)), ...colonHex(fakeBytes(128, 9102)), ...colonHex(fakeBytes(128, 9103))].map((l) => l.trim()),
  },
  {
    kind: 'encoding',
    name: 'kubectl config view --raw (client-key-data)',
    lines: ['users:', '- name: admin', '  user:', `    client-certificate-data: ${b64('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n')}`, `    client-key-data: ${KUBE_KEY_DATA}`, `    token: ${fakeText(LOWER_NUM, 6, 302)}.${fakeText(LOWER_NUM, 16, 303)}`],
    secrets: [...wrap(KUBE_KEY_DATA, 40).slice(1, -1), fakeText(LOWER_NUM, 16, 303)],
  },
  {
    kind: 'encoding',
    name: '.dockerconfigjson in a secret manifest',
    lines: ['apiVersion: v1', 'kind: Secret', 'type: kubernetes.io/dockerconfigjson', 'data:', `  .dockerconfigjson: ${b64(DOCKER_JSON)}`],
    secrets: wrap(b64(DOCKER_JSON), 16).slice(1, -1),
  },
  { kind: 'encoding', name: 'docker config.json auth', lines: [DOCKER_JSON], secrets: [b64(`deploy:${pw(301)}`).slice(8)] },
  { kind: 'encoding', name: 'npmrc _auth', lines: [`//registry.npmjs.org/:_auth=${b64(`ci:${pw(304)}`)}`, 'always-auth=true'], secrets: [b64(`ci:${pw(304)}`)] },
  { kind: 'encoding', name: 'npmrc _authToken', lines: [`//npm.pkg.github.com/:_authToken=${fakeText(ALNUM, 36, 305)}`], secrets: [fakeText(ALNUM, 36, 305)] },
  { kind: 'encoding', name: 'Basic auth header value', lines: [`> Authorization: Basic ${b64(`admin:${pw(306)}`)}`], secrets: [b64(`admin:${pw(306)}`)] },
  { kind: 'encoding', name: 'kubectl get secret -o yaml', lines: ['apiVersion: v1', 'data:', `  password: ${b64(pw(307))}`, `  username: ${b64('admin')}`, 'kind: Secret'], secrets: [b64(pw(307))] },
];

const COMMAND_LINES: [string, string, string][] = [
  ['docker login -p', `$ docker login -u deploy -p `, ' registry.example.test'],
  ['docker login --password', `$ docker login --username deploy --password `, ' ghcr.io'],
  ['redis-cli -a', `$ redis-cli -h cache.internal -a `, ' ping'],
  ['redis-cli -a --no-auth-warning', `$ redis-cli --no-auth-warning -a `, ' INFO'],
  ['mongosh -p', `$ mongosh --host db.internal -u admin -p `, ' --authenticationDatabase admin'],
  ['mongo --password', `$ mongo admin --username root --password `, ''],
  ['openssl -passin pass:', `$ openssl rsa -in enc.key -passin pass:`, ' -out plain.key'],
  ['openssl -passout pass:', `$ openssl pkcs12 -export -in c.pem -passout pass:`, ' -out c.p12'],
  ['openssl enc -k', `$ openssl enc -aes-256-cbc -k `, ' -in a -out b'],
  ['keytool -storepass', `$ keytool -list -keystore ks.jks -storepass `, ''],
  ['keytool -keypass', `$ keytool -genkey -alias a -keypass `, ' -keystore k.jks'],
  ['ldapsearch -w', `$ ldapsearch -x -D cn=admin,dc=corp -w `, ' -b dc=corp'],
  ['sqlcmd -P', `$ sqlcmd -S db -U sa -P `, ' -Q "select 1"'],
  ['htpasswd -b', `$ htpasswd -b /etc/nginx/.htpasswd alice `, ''],
  ['htpasswd -bc', `$ htpasswd -bc .htpasswd bob `, ''],
  ['smbclient -U user%pw', `$ smbclient //fs/share -U alice%`, ''],
  ['mysql -pX', `$ mysql -h db -u root -p`, ' app'],
  ['mysqldump --password=', `$ mysqldump --password=`, ' app > dump.sql'],
  ['psql with PGPASSWORD', `$ PGPASSWORD=`, ' psql -h db -U app'],
  ['sshpass -p', `$ sshpass -p `, ' ssh deploy@web1'],
  ['ipmitool -P', `$ ipmitool -I lanplus -H bmc -U admin -P `, ' power status'],
  ['xfreerdp /p:', `$ xfreerdp /v:win1 /u:admin /p:`, ''],
  ['net use /user', `C:\\> net use \\\\fs\\share /user:corp\\alice `, ''],
  ['wget --http-password', `$ wget --http-user=a --http-password=`, ' https://x.test/f'],
  ['curl -u', `$ curl -u admin:`, ' https://api.example.test'],
  ['az login -p', `$ az login --service-principal -u app -p `, ' --tenant t'],
  ['vault login with a password', `$ vault login -method=userpass username=alice password=`, ''],
  ['rabbitmqctl add_user', `$ rabbitmqctl add_user app `, ''],
  ['sqlplus user/pw@db', `$ sqlplus scott/`, '@orcl'],
  ['zip -P', `$ zip -P `, ' backup.zip data/*'],
  ['7z -p', `$ 7z a -p`, ' archive.7z secret/'],
  ['gpg --passphrase', `$ gpg --batch --passphrase `, ' -d file.gpg'],
  ['nmcli wifi password', `$ nmcli dev wifi connect corp-wifi password `, ''],
  ['git clone with token in url', `$ git clone https://x-access-token:`, '@github.com/org/repo.git'],
  ['redis url, empty user', `$ redis-cli -u redis://:`, '@cache.internal:6379/0'],
  ['mongodb+srv url', `$ mongosh "mongodb+srv://app:`, '@cluster0.example.net/db"'],
  ['jdbc password param', `url=jdbc:mysql://db:3306/app?user=app&password=`, '&useSSL=true'],
  ['odbc connection string', `Server=db;Database=app;User Id=sa;Password=`, ';Encrypt=true'],
];

const KEY_VALUES: [string, string, string][] = [
  ['log prose, db password', '2026-07-01 12:00:01 INFO connected, db password: ', ''],
  ['DEBUG client_secret', 'DEBUG client_secret: ', ''],
  ['DB_PASSWORD_PROD=', 'DB_PASSWORD_PROD=', ''],
  ['API_KEY_2=', 'API_KEY_2=', ''],
  ['DB_PW=', 'DB_PW=', ''],
  ['BASIC_AUTH=u:X', 'BASIC_AUTH=admin:', ''],
  ['php define', "define('DB_PASSWORD', '", "');"],
  ['php define, no space', "define('AUTH_KEY','", "');"],
  ['.netrc', 'machine api.example.test login deploy password ', ''],
  ['.netrc multi-line', '  password ', ''],
  ['.pgpass', 'db.internal:5432:app:app:', ''],
  ['yaml password', '  password: ', ''],
  ['yaml nested secret', '    clientSecret: ', ''],
  ['json pwd', '{"user": "app", "pwd": "', '"}'],
  ['json passphrase', '  "passphrase": "', '",'],
  ['toml token', 'token = "', '"'],
  ['ini secret_key', 'secret_key = ', ''],
  ['powershell env', '$env:DB_PASSWORD = "', '"'],
  ['set -x trace', '+ export SERVICE_TOKEN=', ''],
  ['aws_session_token', 'aws_session_token = ', ''],
  ['X-Api-Key header', '> X-Api-Key: ', ''],
  ['Proxy-Authorization', '> Proxy-Authorization: Bearer ', ''],
  ['url api_key param', 'GET /v1/data?api_key=', '&page=2 200'],
  ['env dump MYSQL_ROOT_PASSWORD', 'MYSQL_ROOT_PASSWORD=', ''],
  ['SMTP_PASS', 'SMTP_PASS=', ''],
  ['sudo password echoed', '[sudo] password for alice: ', ''],
  ['k8s env value', '        - name: DB_PASSWORD\n          value: ', ''],
  ['docker inspect Env', '"Env": ["PATH=/usr/bin", "APP_SECRET=', '"],'],
  ['terraform output', 'db_admin_password = "', '"'],
  ['spring properties', 'spring.datasource.password=', ''],
  ['ansible vault pass', 'ansible_become_pass: ', ''],
  ['wifi psk', 'psk="', '"'],
  ['lowercase dotted key', 'app.auth.secret=', ''],
  ['key after a comma', 'user=app, passwd=', ', host=db'],
  ['MASTER_KEY', 'RAILS_MASTER_KEY=', ''],
  ['encryption key', 'ENCRYPTION_KEY: ', ''],
  ['signing secret', 'SLACK_SIGNING_SECRET=', ''],
  ['webhook secret', 'STRIPE_WEBHOOK_SECRET=whsec_', ''],
  ['auth_token', 'TWILIO_AUTH_TOKEN=', ''],
  ['credentials', 'credentials: ', ''],
];

const TOKENS: [string, string][] = [
  ['slack app token', `xapp-1-A0${fakeText('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', 9, 401)}-${fakeText('0123456789', 13, 402)}-${fakeText(HEX, 64, 403)}`],
  ['google oauth access token', `ya29.${fakeText(URLSAFE, 150, 404)}`],
  ['pypi upload token', `pypi-AgEIcHlwaS5vcmc${fakeText(URLSAFE, 120, 405)}`],
  ['vault service token', `hvs.${fakeText(URLSAFE, 95, 406)}`],
  ['sendgrid key', `SG.${fakeText(URLSAFE, 22, 407)}.${fakeText(URLSAFE, 43, 408)}`],
  ['age secret key', `AGE-SECRET-KEY-1${fakeText(BECH32, 58, 409)}`],
  ['github pat', `ghp_${fakeText(ALNUM, 36, 410)}`],
  ['github fine-grained pat', `github_pat_${fakeText(ALNUM, 22, 411)}_${fakeText(ALNUM, 59, 412)}`],
  ['gitlab pat', `glpat-${fakeText(URLSAFE, 20, 413)}`],
  ['openai project key', `sk-proj-${fakeText(URLSAFE, 74, 414)}T3BlbkFJ${fakeText(URLSAFE, 74, 415)}`],
  ['anthropic key', `sk-ant-api03-${fakeText(URLSAFE, 93, 416)}AA`],
  ['slack bot token', `xoxb-${fakeText('0123456789', 12, 417)}-${fakeText('0123456789', 13, 418)}-${fakeText(ALNUM, 24, 419)}`],
  ['aws access key id', `AKIA${fakeText('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16, 420)}`],
  ['aws temporary key id', `ASIA${fakeText('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16, 421)}`],
  ['stripe live key', `sk_live_${fakeText(ALNUM, 40, 422)}`],
  ['shopify token', `shpat_${fakeText(HEX, 32, 423)}`],
  ['digitalocean token', `doo_v1_${fakeText(HEX, 64, 424)}`],
  ['doppler token', `dp.pt.${fakeText(ALNUM, 43, 425)}`],
  ['databricks token', `dapi${fakeText(HEX, 32, 426)}`],
  ['linear key', `lin_api_${fakeText(ALNUM, 40, 427)}`],
  ['grafana service account', `glsa_${fakeText(ALNUM, 32, 428)}_${fakeText(HEX, 8, 429)}`],
  ['pulumi token', `pul-${fakeText(HEX, 40, 430)}`],
  ['npm token', `npm_${fakeText(ALNUM, 36, 431)}`],
  ['hugging face token', `hf_${fakeText(ALNUM, 34, 432)}`],
  ['twilio api key', `SK${fakeText(HEX, 32, 433)}`],
  ['square token', `EAAA${fakeText(URLSAFE, 60, 434)}`],
  ['jwt', `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6ImNvcnB1cyJ9.${fakeText(URLSAFE, 43, 435)}`],
  ['fly.io token', `fo1_${fakeText(URLSAFE, 43, 436)}`],
  ['dynatrace token', `dt0c01.${fakeText('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', 24, 437)}.${fakeText('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', 64, 438)}`],
  ['terminal-mcp token', `tmcp_at_${fakeText(URLSAFE, 43, 439)}`],
];

/** The part of a token after its public prefix (the prefix is no secret). */
function tokenSecret(token: string): string {
  const m = /^(?:[a-z]+[_-](?:[a-z]+[_-])?|[A-Z]{2,4}(?=[A-Z0-9]{16})|ya29\.|hvs\.|SG\.|dp\.pt\.|AGE-SECRET-KEY-1|pypi-AgEIcHlwaS5vcmc|dt0c01\.|sk-ant-api03-|sk-proj-|eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9\.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6ImNvcnB1cyJ9\.)/.exec(token);
  return token.slice(m?.[0].length ?? 0);
}

const TOKEN_CONTEXTS = [(t: string) => `$ echo ${t}`, (t: string) => `  "key": "${t}",`, (t: string) => `Using token ${t} for upload`];

export const LEAK_CORPUS: readonly LeakCase[] = [
  ...KEY_BLOCKS,
  ...ENCODINGS,
  ...COMMAND_LINES.map(([name, before, after], i): LeakCase => ({ kind: 'command-line', name, lines: [`${before}${pw(500 + i)}${after}`], secrets: [pw(500 + i)] })),
  ...KEY_VALUES.map(([name, before, after], i): LeakCase => ({ kind: 'key-value', name, lines: `${before}${pw(600 + i)}${after}`.split('\n'), secrets: [pw(600 + i)] })),
  ...TOKENS.flatMap(([name, token]) =>
    TOKEN_CONTEXTS.map((context, c): LeakCase => ({ kind: 'token', name: `${name} (${['echoed', 'json', 'prose'][c]})`, lines: [context(token)], secrets: [tokenSecret(token)] })),
  ),
  // Issue 46's cases, a group per form (leak-corpus-forms.ts).
  ...FORM_CASES,
];

/** Files as they sit in a home directory, for the known-secret fingerprint tests. */
export const HOME_SECRET_FILES = {
  rsa: RSA_FILE,
  openssh: OPENSSH_FILE,
  rsaDer: RSA_DER,
  opensshSecretLines: OPENSSH_SECRET_LINES,
  rsaSecretLines: RSA_SECRET_LINES,
} as const;

/** How many cases of each kind. */
export function corpusSizeByKind(corpus: readonly LeakCase[] = LEAK_CORPUS): Record<LeakKind, number> {
  const sizes: Record<LeakKind, number> = { 'key-block': 0, encoding: 0, 'command-line': 0, 'key-value': 0, token: 0 };
  for (const c of corpus) sizes[c.kind] += 1;
  return sizes;
}
