// A transcript's lines never carry a secret however the output is chunked, slowed, coloured or spread over a key block; partial lines are never emitted.
import { describe, expect, it } from 'vitest';
import { createTranscriptLineRedactor, LINE_CAP } from './transcript-redaction.js';

const AWS = 'AKIAQ7ZK2M5RWX3TLNB4';
const KEY_BODY = [
  'MIIEowIBAAKCAQEA0Zl9mXh7cQJr4n3Jp0Qb5xYw9L2kH8sVtR1uE6fC3aD7gB4iZ2',
  'c8mP1nO5qT0rS9vU3wX6yA2bC5dE8fG1hI4jK7lM0nO3pQ6rS9tU2vW5xY8zA1bC4',
  'dE7fG0hI3jK6lM9nO2pQ5rS8tU1vW4xY7zA0bC3dE6fG9hI2jK5lM8nO1pQ4rS7tU',
  'q2Zs9P8wLr',
];

/** Feeds the chunks, then ends the stream; returns everything emitted. */
function run(chunks: readonly (string | Buffer)[]): string {
  const r = createTranscriptLineRedactor();
  const out: string[] = [];
  for (const c of chunks) out.push(...r.push(c).lines);
  out.push(...r.end().lines);
  return out.join('\n');
}

describe('transcript line redaction', () => {
  it('finds a key split across chunks', () => {
    const text = run(['export X=AKIAQ7ZK', '2M5RWX3TLNB4\n']);
    expect(text).not.toContain('Q7ZK');
    expect(text).toContain('[REDACTED:aws_access_key_id]');
  });

  it('finds a key echoed one character per chunk, even split inside a UTF-8 character', () => {
    const bytes = Buffer.from(`é ${AWS}\n`, 'utf8');
    const text = run([...bytes].map((b) => Buffer.from([b])));
    expect(text).not.toContain('Q7ZK2M5RW');
    expect(text).toContain('é [REDACTED:aws_access_key_id]');
  });

  it('finds a key interleaved with SGR and other escapes, cut anywhere', () => {
    const raw = 'AKIA\x1b[0mQ7ZK\x1b]0;title\x072M5R\x1b[31;1mWX3TLNB4\r\n';
    for (let cut = 1; cut < raw.length; cut += 1) {
      const text = run([raw.slice(0, cut), raw.slice(cut)]);
      expect(text, `cut at ${cut}`).toBe('[REDACTED:aws_access_key_id]');
    }
  });

  it('redacts every body line of a PEM block until its END line, including the short last one', () => {
    const text = run(['-----BEGIN RSA PRIVATE KEY-----\n', ...KEY_BODY.map((l) => `${l}\n`), '-----END RSA PRIVATE KEY-----\nafter\n']);
    for (const l of KEY_BODY) expect(text).not.toContain(l.slice(0, 12));
    expect(text.split('\n').at(-1)).toBe('after');
  });

  it('never emits a partial line until the stream ends, and shows it redacted as pending', () => {
    const r = createTranscriptLineRedactor();
    expect(r.push(`prompt ${AWS.slice(0, 10)}`).lines).toEqual([]);
    expect(r.push(AWS.slice(10)).lines).toEqual([]);
    expect(r.pending()).toBe('prompt [REDACTED:aws_access_key_id]');
    expect(r.end().lines).toEqual(['prompt [REDACTED:aws_access_key_id]']);
  });

  it('cuts an overlong line at whitespace so a token at the cut survives whole', () => {
    const filler = 'x '.repeat((LINE_CAP - 10) / 2);
    const text = run([`${filler}${AWS} tail\n`]);
    expect(text).not.toContain('Q7ZK2M5RW');
    expect(text).toContain('[REDACTED:aws_access_key_id]');
  });
});
