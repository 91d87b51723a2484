/**
 * Secrets in config-file and prose forms the assignment rule (redact.ts) does not see,
 * because their key and value are not joined by `=` or `:`: `.netrc` (`machine h login u
 * password X`, or `password X` on its own line), `.pgpass` (`host:port:db:user:X`), PHP
 * `define('DB_PASSWORD', 'X')` and other calls naming a secret key then its value, a
 * Kubernetes env pair (`- name: DB_PASSWORD` then `value: X`), a sudo-style prompt echoed
 * (`password for alice: X`) and `password X` in a command (`nmcli ... password X`). Pure.
 */

export type KeyValueSink = (start: number, end: number, kind: string) => void;

/** A key naming a secret, for the forms below. */
const SECRET_KEY_WORD = '[A-Za-z0-9_.-]*(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_-]?key|auth[_-]?key|private[_-]?key|credentials?)[A-Za-z0-9_.-]*';

/** `password X` / `passwd X` separated by blanks, the value token-like (see below). */
const SPACED_PASSWORD = /(?<![\w.-])(?:password|passwd|passphrase)[ \t]+("[^"\n]{1,256}"|'[^'\n]{1,256}'|[^\s"'`]{1,256})/gi;
/** `.pgpass`: hostname:port:database:username:password, the whole line. */
const PGPASS_LINE = /^[ \t]*[^\s:#]{1,255}:(?:\d{1,5}|\*):[^\s:]{1,255}:[^\s:]{1,255}:(\S{1,512})[ \t]*$/gm;
/** `define('KEY', 'value')`, `setenv("KEY", "value")`, `config.set('KEY', value)`. */
const CALL_PAIR = new RegExp(`(["'])(${SECRET_KEY_WORD})\\1[ \\t]*,[ \\t]*(["'])([^"'\\n]{1,512})\\3`, 'gi');
/** A Kubernetes/compose env pair over two lines. */
const NAME_VALUE_PAIR = new RegExp(`name:[ \\t]*["']?(${SECRET_KEY_WORD})["']?[ \\t]*\\n[ \\t]*-?[ \\t]*value:[ \\t]*("[^"\\n]{1,512}"|'[^'\\n]{1,512}'|[^\\s"']{1,512})`, 'gi');
/** An echoed prompt: `[sudo] password for alice: X`, `Enter password for db: X`. */
const PROMPT_ANSWER = /(?:password|passphrase|passcode|pin) for [^\n:]{1,64}:[ \t]+(\S{1,256})/gi;

/** Quoted: the inside. */
function unquote(value: string, start: number): [number, number] {
  const q = value[0];
  return q === '"' || q === "'" ? [start + 1, start + value.length - (value.endsWith(q) && value.length > 1 ? 1 : 0)] : [start, start + value.length];
}

/** A word that is plainly not a password: prose (`password is required`), a
 * placeholder, a flag. Passwords have a digit, a symbol or mixed case, or are long. */
function plausibleSecret(value: string): boolean {
  const v = value.replace(/^["']|["']$/g, '');
  if (v.length < 6 || /^[-$<{%]/.test(v) || /^(?:required|optional|protected|authentication|changed|reset|policy|prompt|manager|field|file|hash|length|store)$/i.test(v)) return false;
  return /\d/.test(v) || /[^A-Za-z0-9]/.test(v) || (/[a-z]/.test(v) && /[A-Z]/.test(v)) || v.length >= 20;
}

export function findKeyValueSecrets(visible: string, emit: KeyValueSink): void {
  const lower = visible.toLowerCase();
  if (lower.includes('pass') || lower.includes('pin for')) {
    for (const m of visible.matchAll(SPACED_PASSWORD)) {
      if (!plausibleSecret(m[1]!)) continue;
      const [s, e] = unquote(m[1]!, m.index + m[0].length - m[1]!.length);
      emit(s, e, 'password');
    }
    for (const m of visible.matchAll(PROMPT_ANSWER)) {
      if (!plausibleSecret(m[1]!)) continue;
      emit(m.index + m[0].length - m[1]!.length, m.index + m[0].length, 'password');
    }
  }
  if (visible.includes(':')) {
    for (const m of visible.matchAll(PGPASS_LINE)) {
      const value = m[1]!;
      // `a:1:b:c:d` lines that are times or addresses are not .pgpass lines.
      if (!plausibleSecret(value) || /^\d+$/.test(value)) continue;
      emit(m.index + m[0].trimEnd().length - value.length, m.index + m[0].trimEnd().length, 'password');
    }
  }
  if (visible.includes(',')) {
    for (const m of visible.matchAll(CALL_PAIR)) {
      const value = m[4]!;
      const end = m.index + m[0].length - 1;
      if (value.trim() !== '' && !/^\$|^\{\{/.test(value)) emit(end - value.length, end, 'password');
    }
  }
  if (lower.includes('value:')) {
    for (const m of visible.matchAll(NAME_VALUE_PAIR)) {
      const value = m[2]!;
      if (/^["']?\$|valueFrom/.test(value)) continue;
      const [s, e] = unquote(value, m.index + m[0].length - value.length);
      if (e > s) emit(s, e, 'password');
    }
  }
}
