/**
 * What the audit log keeps of a text instead of the text: a keyed HMAC-SHA256 (equal texts
 * give equal values under one key; without the key a short text cannot be guessed back
 * from it, unlike a plain SHA-256) and a redacted preview of at most 120 characters on
 * one line. Redaction runs on the whole text BEFORE it is cut, so a secret that straddles
 * the cut is still found. Pure apart from hashing.
 */
import { createHmac } from 'node:crypto';
import { INPUT_LIMITS } from '@terminal-mcp/contract';
import { redactSecrets } from '../policy/redact.js';
import { stripTerminalControls } from '../policy/sanitize.js';

export function hmacText(key: Buffer, text: string): string {
  return createHmac('sha256', key).update(text, 'utf8').digest('hex');
}

/** One line, controls removed, secrets redacted, cut to `max` characters (code points). */
export function previewText(text: string, max: number = INPUT_LIMITS.previewChars): string {
  const visible = stripTerminalControls(text.replaceAll('\r\n', '\n'));
  const redacted = redactSecrets(visible).text;
  const oneLine = redacted.replace(/\n/g, '⏎').replace(/\t/g, ' ');
  const chars = Array.from(oneLine);
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : oneLine;
}
