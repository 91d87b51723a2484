// Both message catalogues have exactly the same keys and placeholders, and language negotiation follows the browser.
import { describe, expect, it } from 'vitest';
import { en } from './en.js';
import { vi } from './vi.js';
import { ERROR_CODES } from '@terminal-mcp/contract';
import { errorMessage } from '../ui-error.js';
import { negotiateLang, translate, type Lang } from './index.js';

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

describe('error messages', () => {
  it.each(['en', 'vi'] as Lang[])('every contract error code has a %s message with its placeholders filled', (lang) => {
    const t = (key: Parameters<typeof translate>[1], params?: Parameters<typeof translate>[2]) => translate(lang, key, params);
    for (const code of ERROR_CODES) {
      const text = errorMessage(t, { code, retryAfterSeconds: 30, detail: 'the password must be at least 12 characters long', correlationId: 'abc' });
      expect({ code, ok: text.length > 0 && !/\{\w+\}/.test(text) }).toEqual({ code, ok: true });
    }
    expect(errorMessage(t, { code: 'RATE_LIMITED', retryAfterSeconds: 30 })).toContain('30');
  });
});
