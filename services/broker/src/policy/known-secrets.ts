/**
 * Known-secret fingerprints (issue 25, 46): the secrets that exist on this host — the
 * operator's SSH keys, cloud and registry credentials, `.env` files — are caught in
 * formats nobody wrote a rule for (as printed, base64, hex, and the accidental encodings
 * normalizedText undoes), because the broker knows them; not in transformations only a
 * shell user makes (`rev`, `rot13`, compression, encryption: docs/redaction.md). It
 * keeps only keyed hashes of their overlapping windows
 * (effects/known-secrets/fingerprint-index.ts builds them; never the secret itself), and
 * any output holding KNOWN_SECRET_WINDOW or more consecutive characters of one is
 * redacted; values of 8-15 characters as whole tokens.
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
  /** Where the end of `text` starts to spell a known secret (its first 3 to 15
   * characters, too few for a window), or -1: an unfinished line holds that back. */
  prefixStart?(text: string): number;
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
/** `"key": "value"` anywhere (one-line JSON: gcloud, terraform, docker configs). */
const JSON_PAIR = /"([A-Za-z0-9_.@:-]{1,128})"[ \t]*:[ \t]*"((?:[^"\\\n]|\\.){1,4096})"/g;
/** `.netrc`: `password X` anywhere; `.pgpass`: the fifth field. */
const NETRC_PASSWORD = /(?:^|\s)(?:password|passwd|account)\s+(\S+)/g;
const PGPASS = /^[^\s:#]+:[^\s:]+:[^\s:]+:[^\s:]+:(\S+)$/gm;
/** Any long run that is not plainly a word, a path or a name (for unknown formats). */
const LONG_RUN = /[A-Za-z0-9+/=_.~%-]{16,}/g;
/**
 * A key whose value is a secret (issue 46 A.6: only these are fingerprinted; ordinary
 * settings such as `registry=`, `server:`, `LOG_PATH` or `IMAGE` in the same files are
 * not, so output that prints them is not redacted and cannot confirm a guess).
 */
const SECRET_KEY = /pass|pwd|secret|token|auth|credential|private|api[_.-]?key|access[_.-]?key|key[_.-]?data|signing|cookie|session|dsn|(?:^|[_.-])key$/i;
/** Shortest value indexed when its key or file says it is a secret; 8..15 characters are
 * matched as whole tokens only (short-values.ts), 16 and more by window. */
export const MIN_KNOWN_SECRET = 8;

function looksSecret(value: string): boolean {
  if (value.length < KNOWN_SECRET_WINDOW / 2) return false;
  if (/^(?:https?|ssh|git|file):\/\//.test(value) && !/:[^/@]+@/.test(value)) return false;
  const classes = (/[a-z]/.test(value) ? 1 : 0) + (/[A-Z]/.test(value) ? 1 : 0) + (/[0-9]/.test(value) ? 1 : 0) + (/[^A-Za-z0-9]/.test(value) ? 1 : 0);
  return classes >= 2 && !/^[a-z_.-]+$/i.test(value);
}

/** A value under a secret key (or in a password field): any character class counts. */
function keyedSecret(value: string): boolean {
  const v = value.trim();
  if (v.length < MIN_KNOWN_SECRET || /^(?:true|false|null|none|yes|no)$/i.test(v) || /^\$\{?\w+\}?$/.test(v)) return false;
  return !(/^(?:https?|ssh|git|file):\/\//.test(v) && !/:[^/@]+@/.test(v));
}

/**
 * The secret values of a credential file's text: PEM/OpenSSH bodies (joined, and the
 * DER bytes they encode, as hex), values under secret-looking keys (any character
 * class), `.netrc` and `.pgpass` passwords, and long token-like runs on lines that are
 * not assignments (a format we do not know still holds its secret that way). Base64
 * values that decode to `user:password` (Docker `auth`, npm `_auth`) give the password
 * too. A file that is one token (`~/.vault-token`) is that token.
 */
export function secretValuesOf(text: string): string[] {
  const values = new Set<string>();
  const add = (v: string) => {
    const value = v.trim();
    if (looksSecret(value)) values.add(value);
  };
  const addKeyed = (v: string) => {
    if (keyedSecret(v)) values.add(v.trim());
  };
  let rest = text;
  for (const m of text.matchAll(PEM_BLOCK)) {
    const body = m[2]!.split(/\r?\n/).filter((l) => !/^[A-Za-z-]+:/.test(l)).join('').replace(/\s+/g, '');
    if (!/PRIVATE/.test(m[1]!) && m[1] !== 'OPENSSH PRIVATE KEY') continue;
    values.add(body);
    values.add(Buffer.from(body, 'base64').toString('hex'));
    rest = rest.replace(m[0], '');
  }
  const whole = rest.trim();
  // A file that is one token and nothing else (`~/.vault-token`), not one setting.
  if (/^[A-Za-z0-9._~+/-]{8,4096}={0,2}$/.test(whole)) addKeyed(whole);
  for (const m of rest.matchAll(ASSIGNMENT)) if (SECRET_KEY.test(m[1]!)) addKeyed(m[2]!);
  for (const m of rest.matchAll(JSON_PAIR)) if (SECRET_KEY.test(m[1]!)) addKeyed(m[2]!);
  for (const m of rest.matchAll(NETRC_PASSWORD)) addKeyed(m[1]!);
  for (const m of rest.matchAll(PGPASS)) addKeyed(m[1]!);
  // Long runs only outside assignments: an ordinary setting's value is no secret.
  const unassigned = rest.replace(ASSIGNMENT, '');
  for (const m of unassigned.matchAll(LONG_RUN)) add(m[0]);
  for (const v of [...values]) {
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(v) || v.length % 4 !== 0) continue;
    const decoded = Buffer.from(v, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0 && /^[\x20-\x7e]+$/.test(decoded)) addKeyed(decoded.slice(colon + 1));
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

const HEX_DIGIT = /^[0-9a-fA-F]+$/;

/** The escape at `i` (`%XX`, `\uXXXX`, `\xXX`, `&#xHH;`, `&#DD;`): its character and length. */
export function escapeAt(text: string, i: number): [string, number] | null {
  const c = text[i];
  if (c === '%' && HEX_DIGIT.test(text.slice(i + 1, i + 3)) && i + 3 <= text.length) return [String.fromCharCode(parseInt(text.slice(i + 1, i + 3), 16)), 3];
  if (c === '\\') {
    const kind = text[i + 1];
    if (kind === 'u' && HEX_DIGIT.test(text.slice(i + 2, i + 6)) && i + 6 <= text.length) return [String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16)), 6];
    if (kind === 'x' && HEX_DIGIT.test(text.slice(i + 2, i + 4)) && i + 4 <= text.length) return [String.fromCharCode(parseInt(text.slice(i + 2, i + 4), 16)), 4];
    return null;
  }
  if (c === '&' && text[i + 1] === '#') {
    const semi = text.indexOf(';', i + 2);
    if (semi < 0 || semi - i > 10) return null;
    const body = text.slice(i + 2, semi);
    const code = body[0] === 'x' || body[0] === 'X' ? (HEX_DIGIT.test(body.slice(1)) ? parseInt(body.slice(1), 16) : NaN) : /^\d+$/.test(body) ? Number(body) : NaN;
    if (!Number.isInteger(code) || code > 0xffff) return null;
    return [String.fromCharCode(code), semi - i + 1];
  }
  return null;
}

/**
 * A secret's form as the index holds it, and printed text as the matcher compares it
 * (fingerprint-index.ts scans text the same way without building this string): URL
 * `%XX`, JSON `\\u`, `\\x` and HTML `&#x;` escapes decoded, blanks dropped (groups of N,
 * `od -c`, `od -An -tx1` and `hexdump -C` byte columns become runs), case folded.
 * Newlines stay: a window never spans lines.
 */
export function normalizedText(text: string): string {
  let out = '';
  let runStart = 0;
  // Copies runs that need no change; lowers, decodes or drops only where needed.
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    const blank = c === 0x20 || c === 0x09;
    const upper = (c >= 0x41 && c <= 0x5a) || c >= 0x80;
    const esc = c === 0x25 || c === 0x5c || c === 0x26 ? escapeAt(text, i) : null;
    if (!blank && !upper && esc === null) {
      i += 1;
      continue;
    }
    out += text.slice(runStart, i);
    if (esc !== null) {
      out += esc[0].toLowerCase();
      i += esc[1];
    } else {
      if (!blank) out += text[i]!.toLowerCase();
      i += 1;
    }
    runStart = i;
  }
  return out + text.slice(runStart);
}
