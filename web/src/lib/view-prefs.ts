/** How the operator likes terminals drawn, remembered in this browser's localStorage: the
 * font size (never below MIN_FONT_PX: the old fit-to-columns scaling made 6 px text) and
 * whether cards take the full width so wide panes fit. A view preference only. */
import { writable, type Readable } from 'svelte/store';

export const VIEW_STORAGE_KEY = 'terminal-mcp.view';
export const MIN_FONT_PX = 12;
export const MAX_FONT_PX = 22;

export interface ViewPrefs {
  /** Card terminals. */
  cardFontPx: number;
  /** The full view. */
  fullFontPx: number;
  /** One card per row, so a wide pane is shown whole instead of scrolled. */
  wide: boolean;
}

export const DEFAULT_VIEW_PREFS: ViewPrefs = { cardFontPx: 12, fullFontPx: 15, wide: false };

export function clampFont(px: unknown, fallback: number): number {
  const n = typeof px === 'number' && Number.isFinite(px) ? Math.round(px) : fallback;
  return Math.min(MAX_FONT_PX, Math.max(MIN_FONT_PX, n));
}

export function parseViewPrefs(raw: string | null): ViewPrefs {
  try {
    const v = JSON.parse(raw ?? '{}') as Partial<Record<keyof ViewPrefs, unknown>>;
    return {
      cardFontPx: clampFont(v.cardFontPx, DEFAULT_VIEW_PREFS.cardFontPx),
      fullFontPx: clampFont(v.fullFontPx, DEFAULT_VIEW_PREFS.fullFontPx),
      wide: v.wide === true,
    };
  } catch {
    return { ...DEFAULT_VIEW_PREFS };
  }
}

export interface ViewPrefsStore extends Readable<ViewPrefs> {
  /** Loads from storage and follows other tabs; call from onMount (browser only). */
  start(): () => void;
  update(change: Partial<ViewPrefs>): void;
}

function createViewPrefs(): ViewPrefsStore {
  const store = writable<ViewPrefs>({ ...DEFAULT_VIEW_PREFS });
  let current = { ...DEFAULT_VIEW_PREFS };
  store.subscribe((v) => (current = v));
  const read = () => {
    try {
      return parseViewPrefs(localStorage.getItem(VIEW_STORAGE_KEY));
    } catch {
      return { ...DEFAULT_VIEW_PREFS };
    }
  };
  return {
    subscribe: store.subscribe,
    start() {
      store.set(read());
      const onStorage = (e: StorageEvent) => {
        if (e.key === VIEW_STORAGE_KEY) store.set(read());
      };
      window.addEventListener('storage', onStorage);
      return () => window.removeEventListener('storage', onStorage);
    },
    update(change) {
      const next = parseViewPrefs(JSON.stringify({ ...current, ...change }));
      try {
        localStorage.setItem(VIEW_STORAGE_KEY, JSON.stringify(next));
      } catch {
        /* storage disabled: lasts for this page */
      }
      store.set(next);
    },
  };
}

/** One per page load, shared by every terminal on it. */
export const viewPrefs = createViewPrefs();
