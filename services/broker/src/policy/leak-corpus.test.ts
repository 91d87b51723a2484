// Guards issue 25 at the redactor itself: every case of the attack corpus (policy/leak-corpus.ts), redacted as a whole text and as a transcript stream fed in small chunks, keeps no 8-character fragment of its secrets; the read paths get the same corpus in reads/leak-corpus.test.ts.
import { describe, expect, it } from 'vitest';
import { corpusSizeByKind, LEAK_CORPUS } from './leak-corpus.js';
import { redactSecrets } from './redact.js';
import { leakedFragments } from './redaction-corpus.js';
import { createTranscriptLineRedactor } from './transcript-redaction.js';

const cases = LEAK_CORPUS.map((c) => [`${c.kind}: ${c.name}`, c] as const);

describe('the leak corpus', () => {
  it('has hundreds of secrets over every kind', () => {
    const sizes = corpusSizeByKind();
    expect(Object.values(sizes).every((n) => n >= 10)).toBe(true);
    expect(LEAK_CORPUS.length).toBeGreaterThanOrEqual(190);
  });

  it.each(cases)('%s: redacted whole, nothing leaks', (_name, c) => {
    const text = `$ prompt\n${c.lines.join('\n')}\n$ `;
    expect(leakedFragments(redactSecrets(text).text, c.secrets)).toEqual([]);
  });

  it.each(cases)('%s: as a transcript stream in 7-byte chunks, nothing leaks', (_name, c) => {
    const stream = createTranscriptLineRedactor();
    const text = `$ prompt\r\n${c.lines.join('\r\n')}\r\n$ `;
    const out: string[] = [];
    for (let i = 0; i < text.length; i += 7) out.push(...stream.push(text.slice(i, i + 7)).lines);
    out.push(stream.pending());
    out.push(...stream.end().lines);
    expect(leakedFragments(out.join('\n'), c.secrets)).toEqual([]);
  });
});
