/**
 * Replace secrets in terminal text with `[REDACTED:<kind>]` before the text leaves the
 * broker. Pure.
 *
 * ANSI-aware: matching runs on the VISIBLE text (escape sequences and controls removed,
 * see sanitize.ts), with an index map back to the original, and each secret's whole
 * original span is replaced, escape codes inside it included. So a key coloured half
 * red (`sk-ant-api03-\x1b[31mABCD\x1b[0mEFG`) is still found, and nothing of it survives.
 *
 * Linear time: every pattern starts with a look-behind boundary (so a long run of token
 * characters is tried from its first position only), uses bounded or terminator-free
 * quantifiers, and never nests quantifiers that can match the same text two ways.
 * Tests run each rule on 200 KB of adversarial text.
 *
 * Deliberate choices (false positives vs misses):
 * - Assignments count only when the KEY ends in a secret word (`password`, `passwd`,
 *   `passphrase`, `token`, `secret`, `api_key`/`apikey`, `access_key`, `secret_key`,
 *   `private_key`, `credential(s)`, `secret_access_key`, and `pass`/`pwd` after a
 *   separator as in `DB_PASS`): `token_count = 5`, `max_tokens: 1000`, `tokenizer=...`,
 *   `bypass=1`, `PWD=/home/x` and `password_min_length = 8` are left alone.
 * - `key: value` with an UNQUOTED value counts only at the start of a line (YAML, HTTP
 *   headers, `- item`, diff `+`): prose such as "the password: it must be long" is left
 *   alone. Quoted values (`"password": "x"`, `{ token: 'x' }`) and `=` / `:=` / `=>`
 *   assignments count anywhere.
 * - Values that are evidently not secrets are kept: empty, `true`/`false`/`null`/...,
 *   type names (`password: string`), placeholders (`$TOKEN`, `${X}`, `<token>`, `***`,
 *   `%s`), code (`getenv(...)`, `self.password`, `os.environ[`), the key's own name.
 * - `Bearer xyz` outside an Authorization header needs a token-looking value (a digit,
 *   or 20+ characters of mixed case) so "Bearer authentication" is prose.
 * - OpenAI and Slack keys need a digit in the body, so kebab-case words after `sk-`
 *   (`sk-learn-...`) are not keys.
 * - Private key blocks cut by the capture window: BEGIN without END is redacted to the
 *   end of the text; END without BEGIN takes the run of base64 lines above it.
 */
import { terminalControlLengthAt } from './sanitize.js';

export const SECRET_KINDS = [
  'private_key',
  'anthropic_api_key',
  'terminal_mcp_token',
  'openai_api_key',
  'github_token',
  'gitlab_token',
  'slack_token',
  'google_api_key',
  'stripe_key',
  'npm_token',
  'huggingface_token',
  'aws_access_key_id',
  'jwt',
  'url_password',
  'authorization',
  'bearer_token',
  'aws_secret_access_key',
  'password',
  'api_key',
  'token',
  'secret',
] as const;

export type SecretKind = (typeof SECRET_KINDS)[number];

export interface RedactionResult {
  readonly text: string;
  /** Number of redacted spans (overlapping findings count once). */
  readonly count: number;
  /** Distinct kinds found, sorted. */
  readonly kinds: string[];
}

/** A finding in visible-text coordinates, [start, end). */
interface Span {
  start: number;
  end: number;
  kind: SecretKind;
}

type Emit = (start: number, end: number, kind: SecretKind) => void;

/** Not preceded by a token character: a pattern is tried at the start of a token only. */
const TOKEN_START = '(?<![A-Za-z0-9_-])';

interface TokenRule {
  readonly kind: SecretKind;
  readonly pattern: RegExp;
  /** Extra check on the whole match; rejects are skipped. */
  readonly accept?: (match: string) => boolean;
}

const hasDigit = (s: string): boolean => /[0-9]/.test(s);

/** Self-identifying tokens: the prefix says what they are. Order is priority. */
const TOKEN_RULES: readonly TokenRule[] = [
  // Our own OAuth codes, access/refresh tokens and client secrets (oauth/secrets.ts).
  { kind: 'terminal_mcp_token', pattern: /(?<![A-Za-z0-9_])tmcp_(?:ac|at|rt|cs)_[A-Za-z0-9_-]{20,}/g },
  { kind: 'anthropic_api_key', pattern: new RegExp(`${TOKEN_START}sk-ant-[A-Za-z0-9_-]{20,}`, 'g') },
  {
    kind: 'openai_api_key',
    pattern: new RegExp(`${TOKEN_START}sk-(?!ant-)[A-Za-z0-9_-]{20,}`, 'g'),
    accept: (m) => hasDigit(m.slice(3)),
  },
  { kind: 'github_token', pattern: /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})/g },
  { kind: 'gitlab_token', pattern: new RegExp(`${TOKEN_START}glpat-[A-Za-z0-9_-]{20,}`, 'g') },
  {
    kind: 'slack_token',
    pattern: new RegExp(`${TOKEN_START}xox[abposr]-[A-Za-z0-9-]{10,}`, 'g'),
    accept: (m) => hasDigit(m.slice(5)),
  },
  { kind: 'google_api_key', pattern: new RegExp(`${TOKEN_START}AIza[A-Za-z0-9_-]{35}`, 'g') },
  { kind: 'stripe_key', pattern: /(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { kind: 'npm_token', pattern: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{30,}/g },
  { kind: 'huggingface_token', pattern: /(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,}/g },
  { kind: 'aws_access_key_id', pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/g },
  {
    kind: 'jwt',
    pattern: new RegExp(`${TOKEN_START}eyJ[A-Za-z0-9_-]{5,}\\.eyJ[A-Za-z0-9_-]{5,}\\.[A-Za-z0-9_-]{10,}`, 'g'),
  },
];

function runTokenRule(rule: TokenRule, visible: string, emit: Emit): void {
  rule.pattern.lastIndex = 0;
  for (let m = rule.pattern.exec(visible); m !== null; m = rule.pattern.exec(visible)) {
    if (rule.accept === undefined || rule.accept(m[0])) emit(m.index, m.index + m[0].length, rule.kind);
  }
}

// ---------------------------------------------------------------------------------
// Private key blocks

const KEY_BEGIN = /-----BEGIN (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY(?: BLOCK)?-----/g;
const KEY_END = /-----END (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY(?: BLOCK)?-----/g;
const BASE64_LINE = /^[ \t]*[A-Za-z0-9+/=]{4,}[ \t]*$/;

function findPrivateKeys(visible: string, emit: Emit): void {
  const blocks: [number, number][] = [];
  KEY_BEGIN.lastIndex = 0;
  for (let begin = KEY_BEGIN.exec(visible); begin !== null; begin = KEY_BEGIN.exec(visible)) {
    KEY_END.lastIndex = begin.index + begin[0].length;
    const end = KEY_END.exec(visible);
    if (end === null) {
      // Cut off by the bottom of the capture: everything after BEGIN may be key material.
      blocks.push([begin.index, visible.length]);
      break;
    }
    blocks.push([begin.index, end.index + end[0].length]);
    KEY_BEGIN.lastIndex = end.index + end[0].length;
  }
  for (const [start, end] of blocks) emit(start, end, 'private_key');

  // END markers outside any block: the BEGIN scrolled off the top of the capture.
  const lines = new LineStarts(visible);
  let cachedLineStart = -1;
  let cachedRunStart = 0;
  KEY_END.lastIndex = 0;
  let blockIndex = 0;
  for (let end = KEY_END.exec(visible); end !== null; end = KEY_END.exec(visible)) {
    while (blockIndex < blocks.length && (blocks[blockIndex] as [number, number])[1] <= end.index) blockIndex += 1;
    const block = blocks[blockIndex];
    if (block !== undefined && block[0] <= end.index) continue;
    const lineStart = lines.startOf(end.index);
    if (lineStart !== cachedLineStart) {
      cachedLineStart = lineStart;
      cachedRunStart = base64RunStartAbove(visible, lineStart);
    }
    emit(Math.min(cachedRunStart, end.index), end.index + end[0].length, 'private_key');
  }
}

/** Start of the run of base64-only lines directly above the line starting at `lineStart`. */
function base64RunStartAbove(visible: string, lineStart: number): number {
  let start = lineStart;
  while (start > 0) {
    const prevEnd = start - 1; // the '\n' ending the previous line
    const prevStart = visible.lastIndexOf('\n', prevEnd - 1) + 1;
    if (!BASE64_LINE.test(visible.slice(prevStart, prevEnd))) break;
    start = prevStart;
  }
  return start === lineStart ? Number.MAX_SAFE_INTEGER : start;
}

// ---------------------------------------------------------------------------------
// URL credentials, Authorization headers, Bearer tokens

const URL_CREDENTIALS = /(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,31}:\/\/[^\s:/@]{1,256}:([^\s/?#]{1,256})(?=@)/g;

const AUTHORIZATION =
  /(?<![A-Za-z0-9_-])(?:proxy-)?authorization["']?[ \t]*[:=][ \t]*["']?(?:(bearer|basic|token|digest|bot|negotiate|ntlm|apikey)[ \t]+)?([^\s"'`]{1,2048})/gi;
const AUTH_SCHEMES = new Set(['bearer', 'basic', 'token', 'digest', 'bot', 'negotiate', 'ntlm', 'apikey']);

const BEARER = /(?<![A-Za-z0-9_-])bearer[ \t]+([A-Za-z0-9._~+/=-]{8,4096})/gi;

function looksLikeToken(value: string): boolean {
  return hasDigit(value) || (value.length >= 20 && /[a-z]/.test(value) && /[A-Z]/.test(value));
}

/** Emit the last capture group of each match (it must end the match) when `accept` agrees. */
function runValueRule(
  pattern: RegExp,
  kind: SecretKind,
  visible: string,
  emit: Emit,
  accept: (value: string, match: RegExpExecArray) => boolean,
): void {
  pattern.lastIndex = 0;
  for (let m = pattern.exec(visible); m !== null; m = pattern.exec(visible)) {
    const value = m[m.length - 1];
    if (value === undefined || !accept(value, m)) continue;
    const end = m.index + m[0].length;
    emit(end - value.length, end, kind);
  }
}

/**
 * An Authorization header's credentials. With a scheme (`Bearer`, `Basic`, ...) any
 * non-placeholder value counts; without one the value must look like a token, so a
 * prose line "Authorization: the process of ..." is left alone.
 */
function acceptAuthorization(value: string, match: RegExpExecArray): boolean {
  if (AUTH_SCHEMES.has(value.toLowerCase()) || isPlaceholder(value)) return false;
  return match[1] !== undefined || looksLikeToken(value);
}

// ---------------------------------------------------------------------------------
// Assignments: password=..., "token": "...", export API_KEY=..., passwd: ...

const ASSIGNMENT_KEY = /(?<![A-Za-z0-9_.])(["']?)([A-Za-z_][A-Za-z0-9_.-]{0,63})\1[ \t]*(:=|=>|=(?!=)|:(?![:/]))[ \t]*/g;
const ASSIGNMENT_VALUE = /"((?:[^"\\\n]|\\.){1,512})"?|'([^'\n]{1,512})'?|`([^`\n]{1,512})`?|([^\s"'`,;&)}\]]{1,512})/y;
/** What may precede a `key:` with an unquoted value on its line: indentation, a list or diff marker. */
const LINE_START_PREFIX = /^[ \t]*(?:[-+*>|#][ \t]*)?(?:export[ \t]+)?$/;
const MAX_LINE_START_PREFIX = 80;

function atLineStart(visible: string, lineStart: number, index: number): boolean {
  // Bounded, so a 200 KB line of `password: x` costs O(1) per match, not O(line).
  return index - lineStart <= MAX_LINE_START_PREFIX && LINE_START_PREFIX.test(visible.slice(lineStart, index));
}

/** The kind of secret a key names, or null when it names none. */
function sensitiveKeyKind(key: string): SecretKind | null {
  const norm = key.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (norm.endsWith('secretaccesskey')) return 'aws_secret_access_key';
  if (/(?:password|passwd|passphrase)$/.test(norm) || /[_.-](?:pass|pwd)$/i.test(key) || /^pass$/i.test(key)) {
    return 'password';
  }
  if (norm.endsWith('apikey')) return 'api_key';
  if (norm.endsWith('token')) return 'token';
  if (/(?:secret|secretkey|privatekey|accesskey|signingkey|encryptionkey|credentials?)$/.test(norm)) return 'secret';
  return null;
}

const NON_SECRET_WORDS = new Set([
  'true', 'false', 'null', 'nil', 'none', 'undefined', 'yes', 'no', 'on', 'off', 'required', 'optional',
  'string', 'str', 'number', 'int', 'integer', 'bool', 'boolean', 'bytes', 'any', 'unknown', 'object', 'secret',
  'password', 'token', 'redacted', 'hidden', 'masked', 'empty', 'n/a',
]);

/** Values that stand for a secret rather than being one: empty, literals, $VAR, <token>, ***. */
function isPlaceholder(value: string): boolean {
  const v = value.trim();
  if (v === '') return true;
  if (NON_SECRET_WORDS.has(v.toLowerCase())) return true;
  if (/^(?:\$|%[sdv]$|\{\{|<[^<>]*>$)/.test(v)) return true; // $VAR, ${VAR}, %s, {{tpl}}, <token>
  if (/^([*xX•.#])\1{2,}$/.test(v)) return true; // *** masks
  return v.startsWith('[REDACTED');
}

/** Unquoted values that are code, not data: getenv("X"), z.string(), self.password, os.environ[. */
function looksLikeCode(value: string): boolean {
  return value.includes('(') || value.endsWith('[') || /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(value);
}

/** Drop trailing full stops (end of a sentence), without a backtracking regex. */
function trimTrailingDots(value: string): string {
  let end = value.length;
  while (end > 0 && value.charCodeAt(end - 1) === 0x2e) end -= 1;
  return value.slice(0, end);
}

/** Tracks line starts while indexes only grow, so looking up a line start is amortised O(1). */
class LineStarts {
  private lineStart = 0;
  private scanned = 0;
  constructor(private readonly text: string) {}
  startOf(index: number): number {
    for (; this.scanned < index; this.scanned += 1) {
      if (this.text.charCodeAt(this.scanned) === 0x0a) this.lineStart = this.scanned + 1;
    }
    return this.lineStart;
  }
}

function findAssignments(visible: string, emit: Emit): void {
  const lines = new LineStarts(visible);
  ASSIGNMENT_KEY.lastIndex = 0;
  for (let m = ASSIGNMENT_KEY.exec(visible); m !== null; m = ASSIGNMENT_KEY.exec(visible)) {
    const key = m[2] as string;
    const separator = m[3] as string;
    const kind = sensitiveKeyKind(key);
    if (kind === null) continue;
    const valueAt = m.index + m[0].length;
    ASSIGNMENT_VALUE.lastIndex = valueAt;
    const v = ASSIGNMENT_VALUE.exec(visible);
    if (v === null) continue;
    const quoted = v[4] === undefined;
    const value = (v[1] ?? v[2] ?? v[3] ?? v[4]) as string;
    if (!quoted && separator === ':' && !atLineStart(visible, lines.startOf(m.index), m.index)) continue;
    const secret = quoted ? value : trimTrailingDots(value);
    if (isPlaceholder(secret) || secret.toLowerCase() === key.toLowerCase()) continue;
    if (!quoted && looksLikeCode(secret)) continue;
    const start = quoted ? valueAt + 1 : valueAt;
    emit(start, start + secret.length, kind);
    ASSIGNMENT_KEY.lastIndex = start + secret.length;
  }
}

// ---------------------------------------------------------------------------------
// Visible text, span merging, replacement

/** The text without escape sequences and controls, and for each of its indexes the original index. */
function visibleWithMap(text: string): { visible: string; map: Uint32Array } {
  const map = new Uint32Array(text.length);
  const parts: string[] = [];
  let length = 0;
  let runStart = 0;
  let i = 0;
  while (i < text.length) {
    const control = terminalControlLengthAt(text, i);
    if (control === 0) {
      map[length] = i;
      length += 1;
      i += 1;
      continue;
    }
    if (i > runStart) parts.push(text.slice(runStart, i));
    i += control;
    runStart = i;
  }
  if (runStart < text.length) parts.push(text.slice(runStart));
  return { visible: parts.join(''), map };
}

const KIND_PRIORITY = new Map<SecretKind, number>(SECRET_KINDS.map((kind, index) => [kind, index]));

/** Merge overlapping spans; a merged span takes the most specific (highest-priority) kind. */
function mergeSpans(spans: Span[]): Span[] {
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: Span[] = [];
  for (const span of spans) {
    const last = merged.at(-1);
    if (last !== undefined && span.start < last.end) {
      last.end = Math.max(last.end, span.end);
      if ((KIND_PRIORITY.get(span.kind) as number) < (KIND_PRIORITY.get(last.kind) as number)) last.kind = span.kind;
    } else {
      merged.push({ ...span });
    }
  }
  return merged;
}

/** Find secrets in `text` and replace each with `[REDACTED:<kind>]`. */
export function redactSecrets(text: string): RedactionResult {
  const { visible, map } = visibleWithMap(text);
  const spans: Span[] = [];
  const emit: Emit = (start, end, kind) => {
    if (end > start) spans.push({ start, end, kind });
  };

  findPrivateKeys(visible, emit);
  for (const rule of TOKEN_RULES) runTokenRule(rule, visible, emit);
  runValueRule(URL_CREDENTIALS, 'url_password', visible, emit, (v) => !isPlaceholder(v));
  runValueRule(AUTHORIZATION, 'authorization', visible, emit, acceptAuthorization);
  runValueRule(BEARER, 'bearer_token', visible, emit, (v) => looksLikeToken(v) && !isPlaceholder(v));
  findAssignments(visible, emit);

  if (spans.length === 0) return { text, count: 0, kinds: [] };
  const merged = mergeSpans(spans);
  let out = '';
  let cursor = 0;
  for (const span of merged) {
    const start = map[span.start] as number;
    const end = (map[span.end - 1] as number) + 1;
    out += `${text.slice(cursor, start)}[REDACTED:${span.kind}]`;
    cursor = end;
  }
  out += text.slice(cursor);
  const kinds = [...new Set(merged.map((span) => span.kind))].sort();
  return { text: out, count: merged.length, kinds };
}
