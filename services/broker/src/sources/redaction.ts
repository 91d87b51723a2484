/**
 * Redaction for source text, on top of policy/redact.ts. Pure.
 *
 * `redactSecrets` works on whole texts and may fold a multi-line secret (a private key
 * block) into one `[REDACTED:private_key]`. Where lines must keep their numbers (blame)
 * and where single lines are shown out of context (search hits), these helpers keep the
 * line structure and refuse to show key material a single line cannot be judged by.
 */
import { redactSecrets } from '../policy/redact.js';

export interface RedactedText {
  text: string;
  count: number;
}

export function redactText(text: string): RedactedText {
  const r = redactSecrets(text);
  return { text: r.text, count: r.count };
}

const PEM_BEGIN = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----/;
const PEM_END = /-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----/;
/** A line that is nothing but a long base64 run: key material out of context. */
export const BARE_BASE64_LINE = /^[\s+-]*[A-Za-z0-9+/]{40,}={0,2}\s*$/;

/**
 * Redact lines and return exactly as many lines. The whole text is redacted at once so
 * multi-line secrets are seen; if that changed the line count, each line is redacted on
 * its own, and every line of a private key block and every bare base64 line is replaced.
 */
export function redactLines(lines: readonly string[]): { lines: string[]; count: number } {
  const whole = redactSecrets(lines.join('\n'));
  const split = whole.text.split('\n');
  if (split.length === lines.length) return { lines: split, count: whole.count };

  let count = 0;
  let inBlock = false;
  const out = lines.map((line) => {
    const begins = PEM_BEGIN.test(line);
    const ends = PEM_END.test(line);
    if (begins || ends || inBlock || BARE_BASE64_LINE.test(line)) {
      if (begins) inBlock = true;
      if (ends) inBlock = false;
      count += 1;
      return '[REDACTED:private_key]';
    }
    const r = redactSecrets(line);
    count += r.count;
    return r.text;
  });
  return { lines: out, count };
}
