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
 * - Private key blocks cut by the capture window: BEGIN without END is redacted up to the
 *   first line after it that is not key material (a key cut short does not blank the
 *   output after it); END without BEGIN takes the run of base64 lines above it.
 * - Key material without markers: a run of base64 lines of key-block width (64, 70 or
 *   76 characters: PEM, OpenSSH, MIME), at least two of them, or one touching the top or
 *   bottom of the text (a window cut it), or one line of exactly 64 or 70 (`sed -n 5p
 *   key`), with upper case, lower case and digits in the
 *   run (so hex digests are not keys), or any line starting with `b3BlbnNzaC1rZXktdjE`
 *   (base64 of `openssh-key-v1`). A run right under a `BEGIN CERTIFICATE` (or other
 *   non-private) marker is public and kept. `base64` output (76 columns) of anything is
 *   redacted too: a deliberate false positive.
 * - Command-line passwords: `--password X`, `--password=X` (any flag whose name ends in
 *   a secret word, as for assignments) for every command; `-pX` and `-p X` only after
 *   `mysql`/`mysqldump`/`mysqladmin`/`mariadb*` and `sshpass` (for every other tool `-p`
 *   is a port or a path: `docker run -p 8080:80`, `ssh -p 22`, `mkdir -p x`); `-u
 *   user:pass` / `--user user:pass` (curl) keep the user; `redis-cli -a X`.
 * - `user:pass@host` without a scheme counts when the host looks like a host name.
 * - `*_KEY=value` (a key name ending in `_key`/`-key`/`.key`) counts when the value looks
 *   like a token (8+ characters with a digit, mixed case or `+/=`): `SORT_KEY=name`,
 *   `PRIMARY_KEY=id` are left alone.
 * - Unquoted `password: x` / `api-key: x` also count after a log prefix (a timestamp, a
 *   level word, `]`, `)`, `|`, `:`, `,`), not only at the start of a line.
 * - Zero-width and other default-ignorable characters are invisible to matching (like
 *   escape codes), so `ghp_abc\u200bdef...` is still one token, removed whole.
 */
import { findCommandLineSecrets } from './command-line-secrets.js';
import { findEncodedSecrets } from './encoded-secrets.js';
import { findGapSplitTokens, gapCandidatePattern, prepareGapSplitRules, type GapSplitRule } from './gap-split-tokens.js';
import { findKeyValueSecrets } from './key-value-secrets.js';
import { findStructuralSecrets } from './structural-secrets.js';
import { knownSecrets } from './known-secrets.js';
import { MAINTAINED_RULES, OWN_MAINTAINED_RULES } from './maintained-rules.js';
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
  'google_oauth_token',
  'stripe_key',
  'npm_token',
  'huggingface_token',
  'aws_access_key_id',
  'jwt',
  'url_password',
  'webhook_url',
  'azure_key',
  'cookie',
  'docker_auth',
  'authorization',
  'bearer_token',
  'aws_secret_access_key',
  'password',
  'api_key',
  'token',
  'secret',
] as const;

/** Our own kinds; the maintained rules add theirs (their rule ids, maintained-rules.ts). */
export type OwnSecretKind = (typeof SECRET_KINDS)[number];
export type SecretKind = string;

/** A marker the redactor writes, for counting them in redacted text. */
export const REDACTION_MARKER = /\[REDACTED:[a-z0-9_]+\]/g;

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
  // Google OAuth access tokens: no gitleaks rule (2026-07); printed by `gcloud auth print-access-token`.
  { kind: 'google_oauth_token', pattern: new RegExp(`${TOKEN_START}ya29\\.[A-Za-z0-9_-]{20,}`, 'g') },
  { kind: 'stripe_key', pattern: /(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { kind: 'npm_token', pattern: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{30,}/g },
  { kind: 'huggingface_token', pattern: /(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,}/g },
  { kind: 'aws_access_key_id', pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/g },
  {
    kind: 'jwt',
    pattern: new RegExp(`${TOKEN_START}eyJ[A-Za-z0-9_-]{5,}\\.eyJ[A-Za-z0-9_-]{5,}\\.[A-Za-z0-9_-]{10,}`, 'g'),
  },
];

/** The token rules again, for tokens split by blank cells (gap-split-tokens.ts): each
 * kind's literal starts and the letters its alphabet has. */
const GAP_SPLIT_SHAPES: ReadonlyMap<string, Pick<GapSplitRule, 'prefixes' | 'letters'>> = new Map<string, Pick<GapSplitRule, 'prefixes' | 'letters'>>([
  ['terminal_mcp_token', { prefixes: ['tmcp_'], letters: 'mixed' }],
  ['anthropic_api_key', { prefixes: ['sk-ant-'], letters: 'mixed' }],
  ['openai_api_key', { prefixes: ['sk-'], letters: 'mixed' }],
  ['github_token', { prefixes: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'], letters: 'mixed' }],
  ['gitlab_token', { prefixes: ['glpat-'], letters: 'mixed' }],
  ['slack_token', { prefixes: ['xoxa-', 'xoxb-', 'xoxp-', 'xoxo-', 'xoxs-', 'xoxr-'], letters: 'lower' }],
  ['google_api_key', { prefixes: ['AIza'], letters: 'mixed' }],
  ['google_oauth_token', { prefixes: ['ya29.'], letters: 'mixed' }],
  ['stripe_key', { prefixes: ['sk_live_', 'sk_test_', 'rk_live_', 'rk_test_'], letters: 'mixed' }],
  ['npm_token', { prefixes: ['npm_'], letters: 'mixed' }],
  ['huggingface_token', { prefixes: ['hf_'], letters: 'mixed' }],
  ['aws_access_key_id', { prefixes: ['AKIA', 'ASIA'], letters: 'upper' }],
  ['jwt', { prefixes: ['eyJ'], letters: 'mixed' }],
]);
const GAP_SPLIT_RULES: readonly GapSplitRule[] = prepareGapSplitRules(
  TOKEN_RULES.map((rule) => ({ kind: rule.kind, pattern: rule.pattern, accept: rule.accept, ...(GAP_SPLIT_SHAPES.get(rule.kind) as Pick<GapSplitRule, 'prefixes' | 'letters'>) })),
);
const GAP_CANDIDATES = gapCandidatePattern(GAP_SPLIT_RULES);

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
      // No END: the bottom of a capture cut the block, or the key was cut short
      // (`head -n 5 key`). The block is the key material after BEGIN, up to the first
      // line that is not key material; blanking everything after it hid ordinary output.
      const blockEnd = keyMaterialEnd(visible, begin.index + begin[0].length);
      blocks.push([begin.index, blockEnd]);
      KEY_BEGIN.lastIndex = Math.max(blockEnd, begin.index + begin[0].length);
      continue;
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
      cachedRunStart = base64RunStartAbove(visible, lineStart, visible.slice(lineStart, end.index));
    }
    emit(Math.min(cachedRunStart, end.index), end.index + end[0].length, 'private_key');
  }
}

/** Encrypted PEM headers (`Proc-Type: 4,ENCRYPTED`, `DEK-Info: ...`) inside a block. */
const PEM_HEADER_LINE = /^[ \t]*[A-Za-z-]{1,32}: /;
/** A body line this long (or longer) continues a block; a shorter one ends it. */
const MIN_BLOCK_LINE = 16;

/**
 * Where the key material that follows a BEGIN line (its rest starting at `from`) ends:
 * lines of a key body (base64 runs with the same prefix, `grep -H`/`cat -n` style, and
 * the suffixes bodyOfLine knows), PEM headers and blank lines continue it; a short body
 * line (the last of a block) ends it; any other line stops it before that line.
 */
function keyMaterialEnd(visible: string, from: number): number {
  let lineStart = visible.indexOf('\n', from);
  if (lineStart < 0) return visible.length;
  let end = lineStart;
  let offset = -1;
  lineStart += 1;
  while (lineStart <= visible.length) {
    const newline = visible.indexOf('\n', lineStart);
    const lineEnd = newline < 0 ? visible.length : newline;
    const line = visible.slice(lineStart, lineEnd);
    const found = bodyOfLine(line);
    if (found !== null && found.body.length >= MIN_BLOCK_LINE && (offset < 0 || found.offset === offset)) {
      offset = found.offset;
      end = lineEnd;
    } else if (found !== null && found.offset === offset) {
      return lineEnd; // the short last line of the body
    } else if (line.trim() === '' || (offset < 0 && PEM_HEADER_LINE.test(line))) {
      // A blank line or a header continues the block without extending what is redacted.
    } else {
      return end;
    }
    if (newline < 0) return visible.length;
    lineStart = newline + 1;
  }
  return end;
}

/** Start of the run of base64-only lines directly above the line starting at `lineStart`. */
function base64RunStartAbove(visible: string, lineStart: number, prefix = ''): number {
  // The END line's prefix (`grep -H`'s file name, `cat -n`'s number when it repeats) is on
  // every line of the block: the run is of lines with that prefix and a base64 rest.
  const samePrefix = prefix.length <= MAX_BODY_PREFIX && !/[A-Za-z0-9+/=]$/.test(prefix) ? prefix : '';
  let start = lineStart;
  while (start > 0) {
    const prevEnd = start - 1; // the '\n' ending the previous line
    const prevStart = visible.lastIndexOf('\n', prevEnd - 1) + 1;
    const line = visible.slice(prevStart, prevEnd);
    if (!(BASE64_LINE.test(line) || (samePrefix !== '' && line.startsWith(samePrefix) && BASE64_LINE.test(line.slice(samePrefix.length))))) break;
    start = prevStart;
  }
  return start === lineStart ? Number.MAX_SAFE_INTEGER : start;
}

/** Widths of the base64 lines in key blocks: PEM (64), OpenSSH (70), MIME/PGP (76). */
const KEY_BODY_WIDTHS: ReadonlySet<number> = new Set([64, 70, 76]);
/** Widths only key files use (76 is any `base64` output). */
const PRIVATE_LINE_WIDTHS: ReadonlySet<number> = new Set([64, 70]);
/** What may follow a body line: `cat -A`/`cat -e` line ends, the `>` a pager (`less -S`)
 * puts on a line it chops, a table border, blanks. */
const BODY_LINE_SUFFIX = /(?:\^M\$|\$|>|[ \t]*[│|┃][ \t]*|[ \t]+)$/;
const MAX_BODY_PREFIX = 160;

function isBase64Char(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2f;
}

/** The base64 run a line ends with (after a `cat -A` or table suffix), whatever comes
 * before it: indentation, a line number (`cat -n`), a file name (`grep -H`), a diff or
 * table marker. Null when the line does not end in 4+ base64 characters. */
function bodyOfLine(line: string): { offset: number; body: string } | null {
  const suffix = BODY_LINE_SUFFIX.exec(line);
  const end = suffix === null ? line.length : suffix.index;
  let start = end;
  while (start > end - 2 && start > 0 && line.charCodeAt(start - 1) === 0x3d) start -= 1; // `=` padding
  const padEnd = start;
  if (padEnd !== end && !isBase64Char(line.charCodeAt(padEnd - 1))) return null;
  // A `+` in the first column is a diff's added-line marker, not part of the body.
  while (start > 0 && isBase64Char(line.charCodeAt(start - 1)) && !(start === 1 && line.charCodeAt(0) === 0x2b)) start -= 1;
  if (padEnd - start < 4 || start > MAX_BODY_PREFIX || end - start > 128) return null;
  return { offset: start, body: line.slice(start, end) };
}

/** A run of this many body lines of one width (any width) is key material: a key cut
 * sideways by a narrow pager (`less -S`) or wrapped at an unusual width. */
const SAME_WIDTH_LINES = 3;
const MIN_SAME_WIDTH = 16;
const OPENSSH_BODY_START = 'b3BlbnNzaC1rZXktdjE';
const PUBLIC_BEGIN = /-----BEGIN (?![A-Z0-9 ]*PRIVATE)[A-Z0-9 ]{1,40}-----/;

interface BodyRun {
  start: number;
  /** Where the body starts in its line: every line of one key block has the same prefix
   * (`grep -H`, `cat -n`, a diff marker), so a line whose body starts elsewhere is not
   * part of the run (`done-printing` after three same-width tokens is not a last line). */
  offset: number;
  end: number;
  width: number;
  fullLines: number;
  classes: number;
  openssh: boolean;
  touchesTop: boolean;
  closed: boolean;
  public: boolean;
}

const UPPER = 1;
const LOWER = 2;
const DIGIT = 4;

function charClasses(body: string): number {
  let classes = 0;
  for (let i = 0; i < body.length && classes !== 7; i += 1) {
    const c = body.charCodeAt(i);
    if (c >= 0x41 && c <= 0x5a) classes |= UPPER;
    else if (c >= 0x61 && c <= 0x7a) classes |= LOWER;
    else if (c >= 0x30 && c <= 0x39) classes |= DIGIT;
  }
  return classes;
}

/**
 * Key material without BEGIN/END markers in view: a pane scrolled into the middle of a
 * key (`less id_rsa`), a capture of rows strictly inside a block, a diff hunk of a key
 * file. See the header for the rule.
 */
function findKeyBodies(visible: string, emit: Emit): void {
  let run: BodyRun | null = null;
  let previousLine = '';
  const flush = (atBottom: boolean) => {
    if (run === null) return;
    const edge = run.touchesTop || (atBottom && !run.closed);
    const mixed = run.classes === 7;
    const keyWidth = KEY_BODY_WIDTHS.has(run.width);
    const sameWidth = run.fullLines >= SAME_WIDTH_LINES;
    // One line of exactly PEM or OpenSSH width is enough (`sed -n 5p key`): digests are
    // hex (one case), images and public keys are lines far longer than 128.
    const lone = PRIVATE_LINE_WIDTHS.has(run.width) && run.fullLines >= 1;
    if (!run.public && (run.openssh || (mixed && ((keyWidth && (run.fullLines >= 2 || edge || lone)) || sameWidth)))) {
      emit(run.start, run.end, 'private_key');
    }
    run = null;
  };
  let lineStart = 0;
  while (lineStart <= visible.length) {
    const newline = visible.indexOf('\n', lineStart);
    const lineEnd = newline < 0 ? visible.length : newline;
    const line = visible.slice(lineStart, lineEnd);
    let found = bodyOfLine(line);
    if (found !== null && run !== null && !run.closed) {
      // A body line that starts with `+` has it taken for a diff marker (bodyOfLine):
      // inside a run of whole lines at the line start it is the body's first character.
      if (found.offset === 1 && line.charCodeAt(0) === 0x2b && run.offset === 0 && found.body.length + 1 <= run.width) {
        found = { offset: 0, body: line.slice(0, found.body.length + 1) };
      } else if (run.fullLines === 1 && found.offset !== run.offset) {
        // The run's one line was that `+` case, or a pager's prompt glued to the first line
        // it draws (`:` then the line, `less +8 key`): it joins a next line of its width.
        if (run.offset === 1 && found.offset === 0 && found.body.length === run.width + 1 && visible.charCodeAt(run.start - 1) === 0x2b) {
          run.start -= 1;
          run.width += 1;
          run.offset = 0;
        } else if (found.body.length === run.width) {
          run.offset = found.offset;
        }
      }
    }
    const body = found?.body ?? '';
    const isBase64 = found !== null;
    const bodyOffset = found?.offset ?? 0;
    const bodyStart = lineStart + bodyOffset;
    const bodyEnd = bodyStart + body.length;
    if (isBase64 && run !== null && !run.closed && body.length <= run.width && bodyOffset === run.offset) {
      run.end = bodyEnd;
      run.classes |= charClasses(body);
      if (body.length === run.width) run.fullLines += 1;
      else run.closed = true; // the short last line of a block
    } else {
      flush(false);
      const openssh = isBase64 && body.startsWith(OPENSSH_BODY_START);
      if (isBase64 && (body.length >= MIN_SAME_WIDTH || openssh)) {
        run = {
          start: bodyStart,
          offset: bodyOffset,
          end: bodyEnd,
          width: body.length,
          fullLines: 1,
          classes: charClasses(body),
          openssh,
          touchesTop: lineStart === 0,
          closed: false,
          public: PUBLIC_BEGIN.test(previousLine),
        };
      }
    }
    previousLine = line;
    if (newline < 0) break;
    lineStart = newline + 1;
  }
  flush(true);
}

// ---------------------------------------------------------------------------------
// URL credentials, Authorization headers, Bearer tokens

const URL_CREDENTIALS = /(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,31}:\/\/[^\s:/@]{1,256}:([^\s/?#]{1,256})(?=@)/g;

const AUTHORIZATION =
  /(?<![A-Za-z0-9_-])(?:proxy-)?authorization["']?[ \t]*[:=][ \t]*["']?(?:(bearer|basic|token|digest|bot|negotiate|ntlm|apikey)[ \t]+)?([^\s"'`]{1,2048})/gi;
const AUTH_SCHEMES: ReadonlySet<string> = new Set(['bearer', 'basic', 'token', 'digest', 'bot', 'negotiate', 'ntlm', 'apikey']);

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

/** `user:pass@host` without a scheme (`mysql://` is handled above): git remotes, proxies,
 * `sshpass`-less scripts. The host must look like a host name. */
const BARE_CREDENTIALS =
  /(?<![A-Za-z0-9._%+:/@-])(?!(?:mailto|to|from|cc|bcc|reply-to|sender):)[A-Za-z0-9._%+-]{1,64}:([^\s:@/'"`]{1,256})(?=@[A-Za-z0-9][A-Za-z0-9-]{0,62}(?:\.[A-Za-z0-9-]{1,63}){0,8}(?:[:/\s'"`]|$))/gi;

/** Incoming-webhook URLs carry their credential in the path. */
const WEBHOOK_URL =
  /https?:\/\/(?:hooks\.slack\.com\/(?:services|workflows|triggers)\/|(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/)([A-Za-z0-9_/-]{8,256})/g;

/** Azure storage / service-bus connection strings and SAS tokens. */
const AZURE_KEY =
  /(?:(?<![A-Za-z0-9_])(?:AccountKey|SharedAccessKey|SharedAccessSignature)[ \t]*=[ \t]*|[?&]sig=)([^;&\s"'`]{1,1024})/gi;

/** `Cookie:` / `Set-Cookie:` header values, to the end of the line or the closing quote. */
const COOKIE_HEADER = /(?<![A-Za-z0-9_-])(?:set-)?cookie["']?[ \t]*:[ \t]*([^\r\n"'`]{1,4096})/gi;

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

/** The end of a log line's prefix: a timestamp, a level word, a closing bracket, a
 * separator. `the password: it must be long` is prose and does not match. */
const LOG_PREFIX_END = /(?:[\])|>,;:=]|\d[Zz]?|\b(?:INFO|DEBUG|WARN|WARNING|ERROR|ERR|TRACE|FATAL|NOTICE|CRIT|CRITICAL|info|debug|warn|warning|error|trace|fatal))[ \t]+$/;
const MAX_LOG_PREFIX = 200;

function afterLogPrefix(visible: string, lineStart: number, index: number): boolean {
  return LOG_PREFIX_END.test(visible.slice(Math.max(lineStart, index - MAX_LOG_PREFIX), index));
}

/** A generic `*_KEY` value that looks like key material, not a name: 8+ characters with a
 * digit, mixed case or base64 punctuation. */
function looksLikeKeyValue(value: string): boolean {
  return value.length >= 8 && (hasDigit(value) || /[+/=]/.test(value) || (/[a-z]/.test(value) && /[A-Z]/.test(value)));
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
  if (/(?:secret|secretkey|secretkeybase|privatekey|accesskey|signingkey|encryptionkey|credentials?)$/.test(norm)) return 'secret';
  return null;
}

/**
 * Keys that name a secret anywhere in them, not only at the end (issue 25: any case,
 * prefix or suffix): `DB_PASSWORD_PROD`, `API_KEY_2`, `DB_PW`, `BASIC_AUTH`, `SECRET_ID`,
 * `client-key-data`, `pwd`, `psk`. Weaker evidence than a suffix (`token_count`,
 * `max_tokens`, `keyboard_layout`), so the value must look like key material
 * (looksLikeKeyValue) and not be a path.
 */
function weakSecretKeyKind(key: string): SecretKind | null {
  const k = key.toLowerCase();
  if (/pass(?:word|wd|phrase)|(?:^|[_.-])(?:pw|pwd|psk|pass)(?:$|[_.-])/.test(k)) return 'password';
  if (k.includes('secret')) return 'secret';
  if (k.includes('token')) return 'token';
  if (/api[_.-]?key/.test(k)) return 'api_key';
  // Not `auth` alone: a Docker config's `"auth"` has its own rule (docker_auth).
  if (/(?:^|[_.-])key(?:$|[_.-]|data)|[_.-]auth$/.test(k)) return 'secret';
  return null;
}

/** A log line: starts with a timestamp or carries a level word before `index`. */
const LOG_LINE = /^(?:\S{0,40}\d{2}:\d{2}:\d{2}|.{0,120}\b(?:INFO|DEBUG|WARN|WARNING|ERROR|TRACE|FATAL|NOTICE)\b)/;
function isLogLine(visible: string, lineStart: number, index: number): boolean {
  return LOG_LINE.test(visible.slice(lineStart, Math.min(index, lineStart + MAX_LOG_PREFIX)));
}

const NON_SECRET_WORDS: ReadonlySet<string> = new Set([
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
  // What each key names, once per text: a pane repeats its keys (`name:` on every line).
  const keyKinds = new Map<string, { named: SecretKind | null; genericKey: boolean }>();
  ASSIGNMENT_KEY.lastIndex = 0;
  for (let m = ASSIGNMENT_KEY.exec(visible); m !== null; m = ASSIGNMENT_KEY.exec(visible)) {
    const key = m[2] as string;
    const separator = m[3] as string;
    let classified = keyKinds.get(key);
    if (classified === undefined) {
      const kind = sensitiveKeyKind(key);
      const weak = kind === null ? weakSecretKeyKind(key) : null;
      classified = { named: kind ?? weak, genericKey: weak !== null || (kind === null && /[_.-]key$/i.test(key)) };
      keyKinds.set(key, classified);
    }
    const { named, genericKey } = classified;
    const dockerAuth = named === null && m[1] !== '' && key.toLowerCase() === 'auth';
    if (named === null && !genericKey && !dockerAuth) continue;
    const kind: SecretKind = named ?? (dockerAuth ? 'docker_auth' : 'secret');
    const valueStart = m.index + m[0].length;
    ASSIGNMENT_VALUE.lastIndex = valueStart;
    const v = ASSIGNMENT_VALUE.exec(visible);
    if (v === null) continue;
    const quoted = v[4] === undefined;
    const value = (v[1] ?? v[2] ?? v[3] ?? v[4]) as string;
    if (genericKey && (!looksLikeKeyValue(value) || /^[/~.]/.test(value))) continue;
    if (dockerAuth && !(quoted && /^[A-Za-z0-9+/]{8,}={0,2}$/.test(value))) continue;
    if (!quoted && separator === ':') {
      const lineStart = lines.startOf(m.index);
      const strong = !genericKey && (kind === 'password' || kind === 'api_key' || kind === 'secret' || kind === 'token');
      if (!atLineStart(visible, lineStart, m.index) && !(strong && (afterLogPrefix(visible, lineStart, m.index) || isLogLine(visible, lineStart, m.index)))) continue;
    }
    const secret = quoted ? value : trimTrailingDots(value);
    if (isPlaceholder(secret) || secret.toLowerCase() === key.toLowerCase()) continue;
    if (!quoted && looksLikeCode(secret)) continue;
    const start = quoted ? valueStart + 1 : valueStart;
    emit(start, start + secret.length, kind);
    ASSIGNMENT_KEY.lastIndex = start + secret.length;
  }
}

// ---------------------------------------------------------------------------------
// Command-line passwords: --password X, mysql -pX, sshpass -p X, curl -u user:pass

/** A value starting at `at`: quoted (to the closing quote) or a bare word. */
function valueAt(visible: string, at: number): { start: number; end: number; quoted: boolean } | null {
  ASSIGNMENT_VALUE.lastIndex = at;
  const v = ASSIGNMENT_VALUE.exec(visible);
  if (v === null) return null;
  const quoted = v[4] === undefined;
  const value = (v[1] ?? v[2] ?? v[3] ?? v[4]) as string;
  const start = quoted ? at + 1 : at;
  return { start, end: start + value.length, quoted };
}

/** A long flag and the value after it, `=` or blanks between: `--password hunter2`. */
const LONG_FLAG = /(?<![A-Za-z0-9_-])--?([A-Za-z][A-Za-z0-9_-]{1,40})(=|[ \t]+)(?=[^\s-])/g;
/** Programs whose `-p` takes a password, not a port or a path. */
const PASSWORD_P_PROGRAMS = /(?<![A-Za-z0-9_.-])(?:mysql(?:dump|admin|import|show|check)?|mariadb(?:-dump|-admin|dump|admin)?|sshpass)(?![A-Za-z0-9_.-])/g;
const SHORT_P = /(?<=[ \t])-p(?=[^ \t\n]|[ \t]+[^\s-])[ \t]*/g;
const USER_PASS_FLAG = /(?<![A-Za-z0-9_-])(?:-u[ \t]*|-U[ \t]*|--user[ \t=]+|--proxy-user[ \t=]+)(["']?)[^\s:'"`]{1,128}:([^\s'"`]{1,256})/g;
const MAX_COMMAND_LINE = 512;

function findCommandLinePasswords(visible: string, emit: Emit): void {
  LONG_FLAG.lastIndex = 0;
  for (let m = LONG_FLAG.exec(visible); m !== null; m = LONG_FLAG.exec(visible)) {
    const flag = m[1] as string;
    const kind = /^cookie$/i.test(flag) ? 'cookie' : sensitiveKeyKind(flag);
    if (kind === null) continue;
    const v = valueAt(visible, m.index + m[0].length);
    if (v === null) continue;
    const value = visible.slice(v.start, v.end);
    if (isPlaceholder(value) || value.toLowerCase() === flag.toLowerCase() || (!v.quoted && looksLikeCode(value))) continue;
    emit(v.start, v.end, kind);
  }

  PASSWORD_P_PROGRAMS.lastIndex = 0;
  for (let m = PASSWORD_P_PROGRAMS.exec(visible); m !== null; m = PASSWORD_P_PROGRAMS.exec(visible)) {
    // The rest of this command: to the end of the line or a shell separator, bounded.
    const from = m.index + m[0].length;
    let to = Math.min(visible.length, from + MAX_COMMAND_LINE);
    for (let i = from; i < to; i += 1) {
      const c = visible[i];
      if (c === '\n' || c === '|' || c === ';' || c === '&') to = i;
    }
    // Matched on the command's own text: a search of the whole rest would be quadratic.
    const command = visible.slice(from, to);
    SHORT_P.lastIndex = 0;
    for (let p = SHORT_P.exec(command); p !== null; p = SHORT_P.exec(command)) {
      const v = valueAt(visible, from + p.index + p[0].length);
      if (v === null || v.start >= to) continue;
      const value = visible.slice(v.start, Math.min(v.end, to));
      if (isPlaceholder(value)) continue;
      emit(v.start, Math.min(v.end, to), 'password');
    }
    PASSWORD_P_PROGRAMS.lastIndex = Math.max(PASSWORD_P_PROGRAMS.lastIndex, to);
  }

  USER_PASS_FLAG.lastIndex = 0;
  for (let m = USER_PASS_FLAG.exec(visible); m !== null; m = USER_PASS_FLAG.exec(visible)) {
    const value = m[2] as string;
    // `docker run -u 1000:1000` is a uid:gid.
    if (/^\d+$/.test(value) || isPlaceholder(value)) continue;
    const end = m.index + m[0].length;
    emit(end - value.length, end, 'password');
  }
}

// ---------------------------------------------------------------------------------
// Visible text, span merging, replacement

/** Zero-width and other default-ignorable code points (BMP) that a terminal draws as
 * nothing: soft hyphen, combining grapheme joiner, Hangul fillers, Mongolian vowel
 * separator, zero-width space/joiners, bidi marks and isolates, word joiner and
 * invisible operators, variation selectors, BOM. Matching skips them. */
function isInvisibleFormatCode(c: number): boolean {
  if (c < 0xad) return false;
  return (
    c === 0xad ||
    c === 0x34f ||
    c === 0x61c ||
    c === 0x115f ||
    c === 0x1160 ||
    c === 0x17b4 ||
    c === 0x17b5 ||
    c === 0x180e ||
    (c >= 0x200b && c <= 0x200f) ||
    (c >= 0x202a && c <= 0x202e) ||
    (c >= 0x2060 && c <= 0x206f) ||
    c === 0x3164 ||
    (c >= 0xfe00 && c <= 0xfe0f) ||
    c === 0xfeff ||
    c === 0xffa0
  );
}

/** A tag character (U+E0000..U+E007F, default-ignorable, drawn as nothing) at `i`: its
 * surrogate pair, which splits a token for a matcher and not for a reader (issue 46). */
function tagCharacterAt(text: string, i: number): boolean {
  if (text.charCodeAt(i) !== 0xdb40) return false;
  const low = text.charCodeAt(i + 1);
  return low >= 0xdc00 && low <= 0xdc7f;
}

/** The text without escape sequences and controls, and for each of its indexes the
 * original index; `map` is null when nothing was dropped (the indexes are the same).
 * That is the common case on the read path, so the first pass only looks for the first
 * character to drop, with the same two tests as the copying pass below. */
function visibleWithMap(text: string): { visible: string; map: Uint32Array | null } {
  let first = 0;
  while (first < text.length) {
    const c = text.charCodeAt(first);
    // Printable ASCII, newline and tab are never dropped (see terminalControlLengthAt).
    if (!((c >= 0x20 && c < 0x7f) || c === 0x0a || c === 0x09) && (terminalControlLengthAt(text, first) !== 0 || isInvisibleFormatCode(c) || tagCharacterAt(text, first))) break;
    first += 1;
  }
  if (first === text.length) return { visible: text, map: null };
  const map = new Uint32Array(text.length);
  for (let k = 0; k < first; k += 1) map[k] = k;
  const parts: string[] = [];
  let length = first;
  let runStart = 0;
  let i = first;
  while (i < text.length) {
    const control = terminalControlLengthAt(text, i) || (isInvisibleFormatCode(text.charCodeAt(i)) ? 1 : tagCharacterAt(text, i) ? 2 : 0);
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

const KIND_PRIORITY: ReadonlyMap<SecretKind, number> = new Map<SecretKind, number>(SECRET_KINDS.map((kind, index) => [kind, index]));
const LAST_TOKEN_KIND = KIND_PRIORITY.get('jwt') as number;
/** Lower is more specific: a key block and our self-identifying tokens first (their names
 * are stable), then a maintained rule's named token, then our context kinds in list
 * order, then gitleaks' catch-all `generic_api_key`. */
function priorityOf(kind: SecretKind): number {
  const own = KIND_PRIORITY.get(kind);
  if (own !== undefined) return own <= LAST_TOKEN_KIND ? own : own + 1;
  return kind === 'generic_api_key' ? SECRET_KINDS.length + 1 : LAST_TOKEN_KIND + 1;
}

/** Merge overlapping spans; a merged span takes the most specific (highest-priority) kind. */
function mergeSpans(spans: Span[]): Span[] {
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: Span[] = [];
  for (const span of spans) {
    const last = merged.at(-1);
    if (last !== undefined && span.start < last.end) {
      last.end = Math.max(last.end, span.end);
      if (priorityOf(span.kind) < priorityOf(last.kind)) last.kind = span.kind;
    } else {
      merged.push({ ...span });
    }
  }
  return merged;
}

export interface RedactOptions {
  /** Keep the number of lines: a secret spanning lines (a key block) becomes one marker
   * per line, so line N of the result is line N of the input, redacted. Callers that cut
   * a range of lines out of a redacted whole (source reads, pane windows) need this. */
  readonly keepLines?: boolean;
}

/** The replacement for `original` (the text of one span): one marker, or with
 * `keepLines` one marker per non-empty line piece, newlines kept. */
function replacementFor(original: string, kind: SecretKind, keepLines: boolean): string {
  const marker = `[REDACTED:${kind}]`;
  if (!keepLines || !original.includes('\n')) return marker;
  return original
    .split('\n')
    .map((piece) => (piece.replace(/\r$/, '') === '' ? '' : marker))
    .join('\n');
}

/** How deep decoded text is scanned again (base64 of a file holding base64 of a key...). */
const MAX_DECODE_DEPTH = 1;

/** Every finding in visible text. `depth`: how many decodings led here. */
function collectSpans(visible: string, depth: number, emit: Emit): void {
  findPrivateKeys(visible, emit);
  findKeyBodies(visible, emit);
  for (const rule of TOKEN_RULES) runTokenRule(rule, visible, emit);
  findGapSplitTokens(visible, GAP_SPLIT_RULES, GAP_CANDIDATES, emit);
  MAINTAINED_RULES.find(visible, emit);
  OWN_MAINTAINED_RULES.find(visible, emit);
  findStructuralSecrets(visible, emit);
  // Cheap guards first: the read path is hot, and most text has no `@` or `cookie`.
  if (visible.includes('@')) {
    runValueRule(URL_CREDENTIALS, 'url_password', visible, emit, (v) => !isPlaceholder(v));
    runValueRule(BARE_CREDENTIALS, 'url_password', visible, emit, (v) => !isPlaceholder(v) && !/^\d+$/.test(v));
  }
  if (visible.includes('://')) runValueRule(WEBHOOK_URL, 'webhook_url', visible, emit, () => true);
  if (/accountkey|sharedaccess|sig=/i.test(visible)) runValueRule(AZURE_KEY, 'azure_key', visible, emit, (v) => !isPlaceholder(v));
  if (/cookie/i.test(visible)) runValueRule(COOKIE_HEADER, 'cookie', visible, emit, (v) => v.includes('=') && !isPlaceholder(v));
  findCommandLinePasswords(visible, emit);
  runValueRule(AUTHORIZATION, 'authorization', visible, emit, acceptAuthorization);
  runValueRule(BEARER, 'bearer_token', visible, emit, (v) => looksLikeToken(v) && !isPlaceholder(v));
  findAssignments(visible, emit);
  findCommandLineSecrets(visible, emit);
  findKeyValueSecrets(visible, emit);

  findEncodedSecrets(visible, emit, depth < MAX_DECODE_DEPTH ? (decoded) => firstKind(decoded, depth + 1) : null);
  knownSecrets()?.find(visible, emit);
}

/** The most specific kind found in decoded text, or null. */
function firstKind(decoded: string, depth: number): string | null {
  let best: string | null = null;
  collectSpans(decoded, depth, (start, end, kind) => {
    if (end > start && (best === null || priorityOf(kind) < priorityOf(best))) best = kind;
  });
  return best;
}

/**
 * The example credentials AWS publishes in its documentation (IAM user guide, CLI
 * configuration pages), exactly: they are public, printed by every tutorial and test
 * suite, and grant nothing, so a reader of docs sees them as written (issue 46 A.6).
 * Only these exact strings as whole tokens; anything longer, shorter or merely ending
 * in `EXAMPLE` is judged as usual.
 */
const PUBLISHED_EXAMPLES: readonly string[] = [
  'AKIAIOSFODNN7EXAMPLE',
  'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  'AKIAI44QH8DHBEXAMPLE',
  'je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY',
];

/** A character that would make the example part of a longer token (`=` only after it: padding). */
const isExampleTokenChar = (c: number): boolean => isBase64Char(c) || c === 0x5f || c === 0x2d;

/** Where the published examples stand in `visible` as whole tokens. */
function publishedExampleRanges(visible: string): [number, number][] {
  const ranges: [number, number][] = [];
  if (!visible.includes('EXAMPLE')) return ranges;
  for (const example of PUBLISHED_EXAMPLES) {
    for (let at = visible.indexOf(example); at >= 0; at = visible.indexOf(example, at + 1)) {
      const end = at + example.length;
      const after = visible.charCodeAt(end);
      if ((at === 0 || !isExampleTokenChar(visible.charCodeAt(at - 1))) && (end === visible.length || !(isExampleTokenChar(after) || after === 0x3d))) ranges.push([at, end]);
    }
  }
  return ranges;
}

/** Find secrets in `text` and replace each with `[REDACTED:<kind>]`. */
export function redactSecrets(text: string, options: RedactOptions = {}): RedactionResult {
  const keepLines = options.keepLines === true;
  const { visible, map } = visibleWithMap(text);
  const examples = publishedExampleRanges(visible);
  const spans: Span[] = [];
  const emit: Emit = (start, end, kind) => {
    // A finding wholly inside a published example is that example; one reaching past it is kept.
    if (end > start && !examples.some(([a, b]) => start >= a && end <= b)) spans.push({ start, end, kind });
  };

  collectSpans(visible, 0, emit);

  if (spans.length === 0) return { text, count: 0, kinds: [] };
  const merged = mergeSpans(spans);
  let out = '';
  let cursor = 0;
  for (const span of merged) {
    const start = map === null ? span.start : (map[span.start] as number);
    const end = (map === null ? span.end - 1 : (map[span.end - 1] as number)) + 1;
    out += `${text.slice(cursor, start)}${replacementFor(text.slice(start, end), span.kind, keepLines)}`;
    cursor = end;
  }
  out += text.slice(cursor);
  const kinds = [...new Set(merged.map((span) => span.kind))].sort();
  return { text: out, count: merged.length, kinds };
}
