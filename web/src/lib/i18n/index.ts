/**
 * Two languages, chosen without a reload: the server picks one from the remembered
 * choice (cookie) or Accept-Language; the browser keeps it in a store, so switching
 * re-renders text in place and live terminals stay connected. The store lives in a
 * Svelte context (never a module-level store: on the server that would be shared by
 * concurrent requests).
 */
import { getContext, setContext } from 'svelte';
import { derived, writable, type Readable, type Writable } from 'svelte/store';
import { en, type MessageKey, type Messages } from './en.js';
import { vi } from './vi.js';

export const LANGS = ['en', 'vi'] as const;
export type Lang = (typeof LANGS)[number];
export const CATALOGUES: Record<Lang, Messages> = { en, vi };
export const LANG_COOKIE = 'tmcp_lang';
export const LANG_STORAGE_KEY = 'terminal-mcp.lang';
export type { MessageKey };

export function isLang(value: unknown): value is Lang {
  return typeof value === 'string' && (LANGS as readonly string[]).includes(value);
}

/** The best language for an Accept-Language header or a list like navigator.languages. */
export function negotiateLang(preferences: string | readonly string[] | null | undefined): Lang {
  const list = typeof preferences === 'string'
    ? preferences
        .split(',')
        .map((part) => {
          const [tag = '', ...params] = part.trim().split(';');
          const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
          return { tag: tag.trim().toLowerCase(), q: q ? Number(q.slice(2)) || 0 : 1 };
        })
        .filter((p) => p.tag && p.q > 0)
        .sort((a, b) => b.q - a.q)
        .map((p) => p.tag)
    : (preferences ?? []).map((p) => p.toLowerCase());
  for (const tag of list) {
    const primary = tag.split('-')[0];
    if (isLang(primary)) return primary;
  }
  return 'en';
}

export type Params = Record<string, string | number>;
export type Translate = (key: MessageKey, params?: Params) => string;

export function translate(lang: Lang, key: MessageKey, params?: Params): string {
  const template = CATALOGUES[lang][key] ?? en[key] ?? key;
  if (!params) return template;
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

export interface I18n {
  lang: Writable<Lang>;
  t: Readable<Translate>;
}

const KEY = Symbol('terminal-mcp.i18n');

export function createI18n(initial: Lang): I18n {
  const lang = writable<Lang>(initial);
  const t = derived(lang, ($lang): Translate => (key, params) => translate($lang, key, params));
  return { lang, t };
}

export function provideI18n(initial: Lang): I18n {
  return setContext(KEY, createI18n(initial));
}

export function useI18n(): I18n {
  const i18n = getContext<I18n | undefined>(KEY);
  if (!i18n) throw new Error('i18n context missing: useI18n() outside the root layout');
  return i18n;
}

/** Remembers the choice for the next visit (cookie for the server's first render,
 * localStorage for the browser) and updates <html lang>. Browser only. */
export function rememberLang(lang: Lang): void {
  document.cookie = `${LANG_COOKIE}=${lang}; Path=/; Max-Age=31536000; SameSite=Strict`;
  try {
    localStorage.setItem(LANG_STORAGE_KEY, lang);
  } catch {
    /* storage disabled: the cookie still remembers */
  }
  document.documentElement.lang = lang;
}
