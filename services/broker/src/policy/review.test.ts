// Which input review mode holds for a person (policy/review.ts): off, always, a listed session, and what risky means.
import { describe, expect, it } from 'vitest';
import { reviewReason, type ReviewRules } from './review.js';

const rules = (review: ReviewRules['review'], always: string[] = []): ReviewRules => ({ review, review_always_session_patterns: always, guarded_commands: ['ssh', 'sudo', 'kubectl'] });
const text = (t: string) => ({ kind: 'text', text: t }) as const;
const keys = (...k: string[]) => ({ kind: 'keys', keys: k, confirmSensitive: true }) as const;

describe('reviewReason', () => {
  it('off reviews nothing, always everything, a listed session always', () => {
    expect(reviewReason(rules('off'), 's', text('rm -rf /'))).toBeNull();
    expect(reviewReason(rules('always'), 's', text('ls'))).toMatch(/always/);
    expect(reviewReason(rules('off', ['prod-*']), 'prod-db', text('ls'))).toMatch(/review_always_session_patterns/);
  });

  it('risky: control keys, several lines, guarded and destructive command words; not plain text or Enter', () => {
    const r = rules('risky');
    expect(reviewReason(r, 's', text('please summarise the failing test'))).toBeNull();
    expect(reviewReason(r, 's', text('ls -la\n'))).toBeNull();
    expect(reviewReason(r, 's', keys('Enter'))).toBeNull();
    expect(reviewReason(r, 's', keys('C-c'))).toMatch(/C-c/);
    expect(reviewReason(r, 's', text('echo a\necho b'))).toMatch(/more than one line/);
    expect(reviewReason(r, 's', text('sudo reboot'))).toMatch(/guarded command sudo/);
    expect(reviewReason(r, 's', text('rm -rf build'))).toMatch(/destructive command rm/);
    expect(reviewReason(r, 's', text('cd x && Kubectl delete ns a'))).toMatch(/kubectl/);
    // A word inside another word is not the command.
    expect(reviewReason(r, 's', text('form the summary'))).toBeNull();
  });
});
