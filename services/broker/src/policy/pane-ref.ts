/**
 * A caller's `pane` (shared/contract sessions.ts `paneRefSchema`), parsed again here: the
 * broker never trusts an edge's validation. The value only ever selects among the panes
 * tmux lists for the named session (access/gate.ts); it is never handed to tmux as a
 * target, so tmux's own target syntax (names, prefixes, `{marked}`, formats) cannot be
 * reached through it.
 */
import { AppError, PANE_REF_HINT, PANE_REF_PATTERN } from '@terminal-mcp/contract';

export type PaneRef = { kind: 'id'; paneId: string } | { kind: 'index'; window: number; pane: number };

/** The parsed reference, or INVALID_ARGUMENT with the accepted forms as its hint. */
export function parsePaneRef(value: string): PaneRef {
  if (typeof value !== 'string' || value.length > 16 || !PANE_REF_PATTERN.test(value)) {
    throw new AppError('INVALID_ARGUMENT', 'pane is not a pane id or window.pane', `Give pane as ${PANE_REF_HINT}.`);
  }
  if (value.startsWith('%')) return { kind: 'id', paneId: value };
  const [window, pane] = value.split('.').map(Number) as [number, number];
  return { kind: 'index', window, pane };
}

/** Whether a listed pane is the one `ref` names. */
export function paneMatches(ref: PaneRef, pane: { paneId: string; windowIndex: number; paneIndex: number }): boolean {
  return ref.kind === 'id' ? pane.paneId === ref.paneId : pane.windowIndex === ref.window && pane.paneIndex === ref.pane;
}
