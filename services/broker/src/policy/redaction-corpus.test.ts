// Guards the redaction corpus itself: the redactor removes every secret of every entry,
// alone, all together, line by line in context, and the leak check sees an unredacted one.
import { describe, expect, it } from 'vitest';
import { corpusText, leakedFragments, REDACTION_CORPUS } from './redaction-corpus.js';
import { redactSecrets } from './redact.js';

describe('the redaction corpus', () => {
  it.each(REDACTION_CORPUS.map((e) => [e.name, e] as const))('%s is redacted alone', (_name, entry) => {
    expect(leakedFragments(redactSecrets(entry.lines.join('\n')).text, entry.secrets)).toEqual([]);
  });

  it('is redacted as a whole, also keeping lines', () => {
    expect(leakedFragments(redactSecrets(corpusText()).text)).toEqual([]);
    expect(leakedFragments(redactSecrets(corpusText(), { keepLines: true }).text)).toEqual([]);
  });

  it('has secrets of 8+ characters, and the check finds them when they are not redacted', () => {
    for (const entry of REDACTION_CORPUS) for (const s of entry.secrets) expect(s.length).toBeGreaterThanOrEqual(8);
    expect(leakedFragments(corpusText()).length).toBeGreaterThan(100);
  });
});
