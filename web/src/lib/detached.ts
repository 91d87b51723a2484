/** Sessions the operator detached from the main page: kept in this browser's
 * localStorage (shared by `/` and `/sessions`, and across tabs through the storage event).
 * Purely a view preference: it grants or hides nothing on the server. */
import { writable, type Readable } from 'svelte/store';

export const DETACHED_STORAGE_KEY = 'terminal-mcp.detached';
const MAX_ENTRIES = 1000;

function read(): string[] {
  try {
    const v: unknown = JSON.parse(localStorage.getItem(DETACHED_STORAGE_KEY) ?? '[]');
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string').slice(0, MAX_ENTRIES) : [];
  } catch {
    return [];
  }
}

function write(names: ReadonlySet<string>): void {
  try {
    localStorage.setItem(DETACHED_STORAGE_KEY, JSON.stringify([...names].slice(0, MAX_ENTRIES)));
  } catch {
    /* storage full or disabled: the choice lasts for this page only */
  }
}

export interface DetachedStore extends Readable<ReadonlySet<string>> {
  /** Loads from storage and follows other tabs; call from onMount (browser only). */
  start(): () => void;
  setDetached(name: string, detached: boolean): void;
}

export function createDetachedStore(): DetachedStore {
  const store = writable<ReadonlySet<string>>(new Set());
  let current: ReadonlySet<string> = new Set();
  store.subscribe((v) => (current = v));
  return {
    subscribe: store.subscribe,
    start() {
      store.set(new Set(read()));
      const onStorage = (e: StorageEvent) => {
        if (e.key === DETACHED_STORAGE_KEY) store.set(new Set(read()));
      };
      window.addEventListener('storage', onStorage);
      return () => window.removeEventListener('storage', onStorage);
    },
    setDetached(name, detached) {
      const next = new Set(current);
      if (detached) next.add(name);
      else next.delete(name);
      write(next);
      store.set(next);
    },
  };
}
