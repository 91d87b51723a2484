// Both message catalogues have exactly the same keys and placeholders, and language negotiation follows the browser.
import { describe, expect, it } from 'vitest';
import { en } from './en.js';
import { vi } from './vi.js';
import { negotiateLang, translate } from './index.js';

const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('message catalogues', () => {
  it('have the same keys', () => {
    expect(Object.keys(vi).sort()).toEqual(Object.keys(en).sort());
  });

  it('use the same placeholders for each key', () => {
    for (const key of Object.keys(en) as (keyof typeof en)[]) {
      expect({ key, p: placeholders(vi[key]) }).toEqual({ key, p: placeholders(en[key]) });
    }
  });

  it('have no empty message', () => {
    for (const [key, text] of [...Object.entries(en), ...Object.entries(vi)]) expect({ key, empty: text.trim() === '' }).toEqual({ key, empty: false });
  });
});

describe('negotiateLang', () => {
  it.each([
    ['vi-VN,vi;q=0.9,en;q=0.8', 'vi'],
    ['en-US,en;q=0.9', 'en'],
    ['fr-FR,vi;q=0.5', 'vi'],
    ['fr-FR', 'en'],
    ['', 'en'],
    ['en;q=0.1,vi;q=0.9', 'vi'],
  ])('%s -> %s', (header, lang) => {
    expect(negotiateLang(header)).toBe(lang);
  });

  it('accepts a navigator.languages list', () => {
    expect(negotiateLang(['vi-VN', 'en'])).toBe('vi');
  });

  it('fills placeholders', () => {
    expect(translate('en', 'error.RATE_LIMITED', { seconds: 8 })).toBe('Too many failed attempts. Try again in 8 s.');
    expect(translate('vi', 'error.RATE_LIMITED', { seconds: 8 })).toContain('8 giây');
  });
});
