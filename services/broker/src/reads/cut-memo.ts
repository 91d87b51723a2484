/**
 * The last redacted cut of each pane window, so re-reading a pane that has not changed
 * does not redact the same text again.
 *
 * Why: redaction and the window cut are most of the broker's own work on a read (about
 * 0.5 ms of 1.3 ms CPU for a 200-line tail, measured with `--cpu-prof`), and the common
 * read is a repeat: an agent polling a terminal that waits, a dashboard reopening a pane.
 *
 * Why it is safe: `cutPaneWindow` is a pure function of the captured text, the request and
 * the installed host-secret index, and an entry is used only when ALL are exactly equal (the whole captured
 * string is compared, not a hash), so a read returns what a fresh cut would return, byte
 * for byte; a pane whose text changed by one character is redacted afresh. Entries are
 * frozen: a caller that tried to edit a shared result would throw, not leak its edit into
 * the next read. Bounded by entries and by characters, so it never holds more than a
 * few pane windows' worth of text (`npm run bench` section scale reports the RSS).
 */
import { knownSecrets, type KnownSecretFinder } from '../policy/known-secrets.js';
import type { PaneWindow, PaneWindowRequest } from '../policy/pane-window.js';

/** Entries kept (least recently used dropped first) and the text they may hold in all. */
export const CUT_MEMO_ENTRIES = 64;
export const CUT_MEMO_CHARS = 2_000_000;

interface Entry {
  readonly captured: string;
  /** The host-secret index the cut was redacted with: a rebuilt index (a secret added to
   * `~/.aws/credentials`, say) must judge text already on screen again, or a pane that did
   * not change would keep showing that secret from a cut made before it was known. */
  readonly index: KnownSecretFinder | null;
  readonly window: PaneWindow;
  readonly chars: number;
}

export interface CutMemo {
  /** The cut of `captured` for `request` in the pane `paneId`: remembered when the same
   * pane was last cut from the same text with the same request, else `cut()` (kept). */
  cut(paneId: string, request: PaneWindowRequest, captured: string, cut: () => PaneWindow): PaneWindow;
  /** Entries held (for tests). */
  readonly size: number;
}

function requestKey(paneId: string, r: PaneWindowRequest): string {
  return `${paneId} ${r.width} ${r.start} ${r.end} ${r.bottomRow} ${r.fromHistoryStart ? 1 : 0}${r.toScreenBottom ? 1 : 0}${r.escapes ? 1 : 0}`;
}

function frozen(window: PaneWindow): PaneWindow {
  Object.freeze(window.lines);
  Object.freeze(window.lineRedactions);
  return Object.freeze(window);
}

export function createCutMemo(maxEntries = CUT_MEMO_ENTRIES, maxChars = CUT_MEMO_CHARS): CutMemo {
  const entries = new Map<string, Entry>();
  let chars = 0;

  const drop = (key: string, entry: Entry) => {
    entries.delete(key);
    chars -= entry.chars;
  };

  return {
    cut(paneId, request, captured, cut) {
      const key = requestKey(paneId, request);
      const held = entries.get(key);
      if (held !== undefined) {
        drop(key, held);
        if (held.captured === captured && held.index === knownSecrets()) {
          entries.set(key, held);
          chars += held.chars;
          return held.window;
        }
      }
      const index = knownSecrets();
      const window = frozen(cut());
      // The result's lines are about as long as the text they came from.
      const entry: Entry = { captured, index, window, chars: captured.length * 2 };
      if (entry.chars > maxChars) return window;
      entries.set(key, entry);
      chars += entry.chars;
      for (const [oldKey, old] of entries) {
        if (entries.size <= maxEntries && chars <= maxChars) break;
        drop(oldKey, old);
      }
      return window;
    },
    get size() {
      return entries.size;
    },
  };
}
