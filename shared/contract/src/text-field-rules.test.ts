// Guards two field rules the schemas promise (issue 45 LOW): notify_user's message is one line (no line break of any kind), and no note field keeps a NUL.
import { describe, expect, it } from 'vitest';
import { noteCreateInputSchema, noteUpdateInputSchema } from './notes.js';
import { notifyUserInputSchema } from './human.js';

describe('notify_user message', () => {
  it.each(['first\nsecond', 'first\r\nsecond', 'first\rsecond', 'first\u2028second', 'first\u0085second'])('refuses a line break: %j', (message) => {
    expect(notifyUserInputSchema.safeParse({ message }).success).toBe(false);
  });
  it('takes one line, trimmed', () => {
    expect(notifyUserInputSchema.parse({ message: '  build finished  ' }).message).toBe('build finished');
  });
});

describe('note fields', () => {
  it('refuse a NUL in the title, body and analysis', () => {
    expect(noteCreateInputSchema.safeParse({ title: 'deploy\u0000 notes' }).success).toBe(false);
    expect(noteCreateInputSchema.safeParse({ title: 'deploy', body: 'a\u0000b' }).success).toBe(false);
    expect(noteCreateInputSchema.safeParse({ title: 'deploy', analysis: 'a\u0000b' }).success).toBe(false);
    expect(noteUpdateInputSchema.safeParse({ id: 1, title: 'x\u0000' }).success).toBe(false);
    expect(noteCreateInputSchema.safeParse({ title: 'deploy notes', body: 'tabs\tand\nlines are fine' }).success).toBe(true);
  });
});
