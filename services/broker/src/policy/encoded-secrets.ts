/**
 * Secrets shown encoded: `base64 -w0 id_rsa`, `kubectl config view --raw`
 * (client-key-data), `.dockerconfigjson`, `xxd`, `xxd -p`, `hexdump -C`, and the
 * hex-with-colons of `openssl rsa -text`. Like gitleaks' decoders, an encoded run is
 * decoded and the decoded bytes are judged: a private key (PEM markers, an OpenSSH key,
 * the DER header of a PKCS#1/PKCS#8/SEC1 private key) or, for decoded text, anything the
 * redactor finds in it (one level deep). Then the whole encoded run is redacted. Pure.
 *
 * Runs: a token of 32+ base64 or hex characters; consecutive lines that are nothing but
 * base64 or hex (wrapped output), joined; consecutive hex-dump lines (their bytes
 * rebuilt from the hex columns). Hex-colon runs (`3a:f2:...`) under a private key's
 * field name (`privateExponent:`, `prime1:`, `priv:`...), or touching the top of the
 * text (a window cut the field name off), are redacted without decoding.
 */

export type EncodedSink = (start: number, end: number, kind: string) => void;
/** The redactor, for decoded text: whether it finds anything and the first kind. */
export type InnerScan = (decoded: string) => string | null;

const MAX_DECODED = 256 * 1024;
/** Decoded text scanned by the whole redactor again: at most this much per text, and in
 * all (the cheap key checks run on everything decoded). */
const MAX_INNER_TEXT = 8 * 1024;
const MAX_INNER_TOTAL = 64 * 1024;

/** The kind of private key these bytes start with, or null. */
function privateKeyBytes(bytes: Uint8Array): boolean {
  if (bytes.length < 8) return false;
  const ascii = String.fromCharCode(...bytes.subarray(0, 15));
  if (ascii.startsWith('openssh-key-v1')) return true;
  if (bytes[0] !== 0x30) return false;
  // SEQUENCE with a definite length, then INTEGER version 0 (PKCS#1, PKCS#8) or 1 (SEC1 EC).
  let at = 1;
  const len = bytes[at]!;
  at += len & 0x80 ? 1 + (len & 0x7f) : 1;
  return bytes[at] === 0x02 && bytes[at + 1] === 0x01 && (bytes[at + 2] === 0x00 || bytes[at + 2] === 0x01) && (bytes[at + 3] === 0x02 || bytes[at + 3] === 0x30 || bytes[at + 3] === 0x04);
}

/** Mostly printable text (UTF-8 or ASCII), worth scanning as text. */
function asText(bytes: Uint8Array): string | null {
  let printable = 0;
  const n = Math.min(bytes.length, 4096);
  for (let i = 0; i < n; i += 1) {
    const b = bytes[i]!;
    if ((b >= 0x20 && b < 0x7f) || b === 0x0a || b === 0x0d || b === 0x09 || b >= 0x80) printable += 1;
  }
  if (n === 0 || printable / n < 0.95) return null;
  try {
    return UTF8.decode(bytes);
  } catch {
    return null; // random bytes are almost never valid UTF-8
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Judges decoded bytes: a kind when they hold a secret. */
function judge(bytes: Uint8Array, inner: InnerScan | null, innerBudget: { left: number }): string | null {
  if (privateKeyBytes(bytes)) return 'private_key';
  const text = asText(bytes);
  if (text === null) return null;
  if (/PRIVATE KEY(?: BLOCK)?-----/.test(text)) return 'private_key';
  // Base64 text under an encoding (a hex dump of a key file's body lines): key material.
  if (text.length >= 32 && /^[A-Za-z0-9+/=\r\n-]+$/.test(text) && /[A-Z]/.test(text) && /[a-z]/.test(text) && /[0-9]/.test(text)) return 'private_key';
  if (inner === null || text.length > MAX_INNER_TEXT || innerBudget.left < text.length) return null;
  innerBudget.left -= text.length;
  return inner(text);
}

const fromBase64 = (s: string): Uint8Array => Buffer.from(s.replace(/[^A-Za-z0-9+/=_-]/g, ''), s.includes('-') || s.includes('_') ? 'base64url' : 'base64');
const fromHex = (s: string): Uint8Array => Buffer.from(s.length % 2 === 0 ? s : s.slice(0, -1), 'hex');

const BASE64_TOKEN = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{32,}={0,2}/g;
const HEX_ONLY = /^[0-9a-fA-F]+$/;
/** A line that is nothing but base64 or hex (wrapped `base64`, `xxd -p`), maybe indented. */
const ENCODED_LINE = /^[ \t]*([A-Za-z0-9+/]{16,}={0,2})[ \t]*$/;
/** `xxd`: `00000010: 2d2d 2d2d 2d45 4e44  -----END` and `hexdump -C`: `00000010  2d 2d ... |...|`. */
const XXD_LINE = /^[0-9a-f]{7,16}: ((?:[0-9a-f]{2,4} ){0,15}[0-9a-f]{2,4}) {1,40}.{0,64}$/;
const HEXDUMP_C_LINE = /^[0-9a-f]{8,16} {2}((?:[0-9a-f]{2} {1,2}){0,15}[0-9a-f]{2}) {1,60}\|.{0,16}\|$/;
/** `openssl rsa -text`: indented bytes with colons. */
const HEX_COLON_LINE = /^[ \t]+(?:[0-9a-f]{2}:){4,}(?:[0-9a-f]{2})?$/;
const PRIVATE_FIELD = /^[ \t]*(?:privateExponent|prime[12]|exponent[12]|coefficient|priv|private-key|x|d|p|q|dmp1|dmq1|iqmp)\s*:\s*$/i;

interface Line {
  start: number;
  end: number;
  text: string;
}

function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    const end = nl < 0 ? text.length : nl;
    lines.push({ start, end, text: text.slice(start, end).replace(/\r$/, '') });
    if (nl < 0) return lines;
    start = nl + 1;
  }
}

export function findEncodedSecrets(visible: string, emit: EncodedSink, inner: InnerScan | null): void {
  let budget = MAX_DECODED;
  const innerBudget = { left: MAX_INNER_TOTAL };
  const tryDecode = (bytes: () => Uint8Array): string | null => {
    if (budget <= 0) return null;
    const b = bytes();
    budget -= b.length;
    return judge(b, inner, innerBudget);
  };

  // Single tokens.
  // matchAll copies the pattern: the inner scan runs this function again.
  for (const m of visible.matchAll(BASE64_TOKEN)) {
    const token = m[0];
    const kind = HEX_ONLY.test(token) ? tryDecode(() => fromHex(token)) : tryDecode(() => fromBase64(token));
    if (kind !== null) emit(m.index, m.index + token.length, kind);
  }

  const lines = splitLines(visible);
  // Runs of wrapped encoded lines, joined (a run of one line was judged as a token).
  for (let i = 0; i < lines.length; ) {
    if (!ENCODED_LINE.test(lines[i]!.text)) {
      i += 1;
      continue;
    }
    let j = i;
    while (j + 1 < lines.length && ENCODED_LINE.test(lines[j + 1]!.text)) j += 1;
    if (j > i) {
      const joined = lines
        .slice(i, j + 1)
        .map((l) => l.text.trim())
        .join('');
      const kind = HEX_ONLY.test(joined) ? tryDecode(() => fromHex(joined)) : tryDecode(() => fromBase64(joined));
      if (kind !== null) emit(lines[i]!.start, lines[j]!.end, kind);
    }
    i = j + 1;
  }

  // Hex dumps: bytes rebuilt from the hex columns of consecutive dump lines.
  for (const pattern of [XXD_LINE, HEXDUMP_C_LINE]) {
    for (let i = 0; i < lines.length; ) {
      const first = pattern.exec(lines[i]!.text);
      if (first === null) {
        i += 1;
        continue;
      }
      const hex: string[] = [first[1]!.replace(/ /g, '')];
      let j = i;
      for (let m = pattern.exec(lines[j + 1]?.text ?? ''); j + 1 < lines.length && m !== null; m = pattern.exec(lines[j + 1]?.text ?? '')) {
        hex.push(m[1]!.replace(/ /g, ''));
        j += 1;
      }
      const kind = tryDecode(() => fromHex(hex.join('')));
      if (kind !== null) emit(lines[i]!.start, lines[j]!.end, kind);
      i = j + 1;
    }
  }

  // Hex-colon runs of a private key's fields.
  for (let i = 0; i < lines.length; ) {
    if (!HEX_COLON_LINE.test(lines[i]!.text)) {
      i += 1;
      continue;
    }
    let j = i;
    while (j + 1 < lines.length && HEX_COLON_LINE.test(lines[j + 1]!.text)) j += 1;
    if (i === 0 || PRIVATE_FIELD.test(lines[i - 1]!.text)) emit(lines[i]!.start, lines[j]!.end, 'private_key');
    i = j + 1;
  }
}
