// Which input review mode holds for a person (policy/review.ts): off, always, a listed session, and what risky means for keys and lines (parsed text: effects/shell-syntax/review-corpus.test.ts).
import { describe, expect, it } from 'vitest';
import { reviewReason, type ReviewRules } from './review.js';

const rules = (review: ReviewRules['review'], always: string[] = []): ReviewRules => ({ review, review_always_session_patterns: always, guarded_commands: ['ssh', 'sudo', 'kubectl'] });
const text = (t: string) => ({ kind: 'text', text: t }) as const;
const keys = (...k: string[]) => ({ kind: 'keys', keys: k, confirmSensitive: true }) as const;

describe('reviewReason', () => {
  it('off reviews nothing, always everything, a listed session always', () => {
    expect(reviewReason(rules('off'), 's', text('rm -rf /'), null)).toBeNull();
    expect(reviewReason(rules('always'), 's', text('ls'), null)).toMatch(/always/);
    expect(reviewReason(rules('off', ['prod-*']), 'prod-db', text('ls'), null)).toMatch(/review_always_session_patterns/);
  });

  it('risky: control keys and several lines; not Enter; every text when no parser is loaded', () => {
    const r = rules('risky');
    expect(reviewReason(r, 's', keys('Enter'), null)).toBeNull();
    expect(reviewReason(r, 's', keys('C-c'), null)).toMatch(/C-c/);
    expect(reviewReason(r, 's', text('echo a\necho b'), null)).toMatch(/more than one line/);
    expect(reviewReason(r, 's', text('y'), null)).toMatch(/parser is not available/);
  });
});
