/**
 * Known-secret fingerprints (issue 25): the secrets that exist on this host — the
 * operator's SSH keys, cloud and registry credentials, `.env` files — are caught in ANY
 * format nobody wrote a rule for, because the broker knows them. It keeps only keyed
 * hashes of their overlapping windows (effects/known-secrets/fingerprint-index.ts builds
 * them; never the secret itself), and any output holding KNOWN_SECRET_WINDOW or more
 * consecutive characters of one — as printed, in base64 or in hex — is redacted.
 *
 * This module is the pure part: which values of a file are secrets (by its format), the
 * encoded forms each is indexed under, and the process-wide index every redaction
 * consults (installed by the broker at start; one index so no read path can forget it).
 */

export const KNOWN_SECRET_WINDOW = 16;
export const KNOWN_SECRET_KIND = 'known_secret';

/** Finds indexed secrets in visible text. */
export interface KnownSecretFinder {
  find(visible: string, emit: (start: number, end: number, kind: string) => void): void;
}

// eslint-disable-next-line terminal-mcp/no-module-state -- the host-secret index every redaction consults; installed by its owner (createBroker's watchHostSecrets, stopped in reverse order); moving it into a Redactor passed to each of ~46 redaction calls is left to a later change
let installed: KnownSecretFinder | null = null;

/** The broker installs its index once it is built (and again after each refresh). */
export function installKnownSecrets(finder: KnownSecretFinder | null): void {
  installed = finder;
}

export function knownSecrets(): KnownSecretFinder | null {
  return installed;
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]*)-----\r?\n([\s\S]*?)-----END \1-----/g;
/** `key = value`, `key: value`, `"key": "value"`, `export KEY=value`. */
const ASSIGNMENT = /^[ \t]*(?:export[ \t]+)?["']?([A-Za-z0-9_./@:-]{1,128}?)["']?[ \t]*[=:][ \t]*["']?([^\s"'#][^\n"']*?)["']?[ \t]*,?[ \t]*$/gm;
/** `.netrc`: `password X` anywhere; `.pgpass`: the fifth field. */
const NETRC_PASSWORD = /(?:^|\s)(?:password|passwd|account)\s+(\S+)/g;
const PGPASS = /^[^\s:#]+:[^\s:]+:[^\s:]+:[^\s:]+:(\S+)$/gm;
/** Any long run that is not plainly a word, a path or a name (for unknown formats). */
const LONG_RUN = /[A-Za-z0-9+/=_.~%-]{16,}/g;

function looksSecret(value: string): boolean {
  if (value.length < KNOWN_SECRET_WINDOW / 2) return false;
  if (/^(?:https?|ssh|git|file):\/\//.test(value) && !/:[^/@]+@/.test(value)) return false;
  const classes = (/[a-z]/.test(value) ? 1 : 0) + (/[A-Z]/.test(value) ? 1 : 0) + (/[0-9]/.test(value) ? 1 : 0) + (/[^A-Za-z0-9]/.test(value) ? 1 : 0);
  return classes >= 2 && !/^[a-z_.-]+$/i.test(value);
}

/**
 * The secret values of a credential file's text: PEM/OpenSSH bodies (joined, and the
 * DER bytes they encode, as hex), assigned values, `.netrc` and `.pgpass` passwords, and
 * long token-like runs (a format we do not know still holds its secret that way).
 * Base64 values that decode to `user:password` (Docker `auth`, npm `_auth`) give the
 * password too.
 */
export function secretValuesOf(text: string): string[] {
  const values = new Set<string>();
  const add = (v: string) => {
    const value = v.trim();
    if (looksSecret(value)) values.add(value);
  };
  let rest = text;
  for (const m of text.matchAll(PEM_BLOCK)) {
    const body = m[2]!.split(/\r?\n/).filter((l) => !/^[A-Za-z-]+:/.test(l)).join('').replace(/\s+/g, '');
    if (!/PRIVATE/.test(m[1]!) && m[1] !== 'OPENSSH PRIVATE KEY') continue;
    values.add(body);
    values.add(Buffer.from(body, 'base64').toString('hex'));
    rest = rest.replace(m[0], '');
  }
  for (const m of rest.matchAll(ASSIGNMENT)) add(m[2]!);
  for (const m of rest.matchAll(NETRC_PASSWORD)) add(m[1]!);
  for (const m of rest.matchAll(PGPASS)) add(m[1]!);
  for (const m of rest.matchAll(LONG_RUN)) add(m[0]);
  for (const v of [...values]) {
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(v) || v.length % 4 !== 0) continue;
    const decoded = Buffer.from(v, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0 && /^[\x20-\x7e]+$/.test(decoded)) add(decoded.slice(colon + 1));
  }
  return [...values];
}

/**
 * The forms a value is indexed under: as is, base64 at each of the three byte
 * alignments it can take inside a longer encoded text (the characters that depend on
 * neighbouring bytes dropped), and hex in both cases.
 */
export function encodedForms(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const forms = [value, bytes.toString('hex'), bytes.toString('hex').toUpperCase()];
  for (let shift = 0; shift < 3; shift += 1) {
    const padded = Buffer.concat([Buffer.alloc(shift), bytes]);
    const b64 = padded.toString('base64').replace(/=+$/, '');
    // The first ceil(shift*8/6) characters mix in the padding; the last one may mix in
    // whatever follows the value.
    const lead = Math.ceil((shift * 8) / 6);
    forms.push(b64.slice(lead, b64.length - 1));
  }
  return forms.filter((f) => f.length >= KNOWN_SECRET_WINDOW);
}
