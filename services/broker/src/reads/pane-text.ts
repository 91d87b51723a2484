/** Pane text as callers see it: control sequences stripped (unless raw is asked for),
 * trailing screen padding removed, secrets redacted. Redaction always runs on the whole
 * logical unit before the requested rows are cut (policy/pane-window.ts): wrapped rows
 * joined (-J), with rows of context above and below. */
import type { PaneFacts, TmuxAdapter } from '../effects/tmux/types.js';
import { cutPaneWindow, planPaneCapture, type PaneWindow, type PaneWindowRequest } from '../policy/pane-window.js';
import { redactSecrets } from '../policy/redact.js';
import { stripTerminalControls } from '../policy/sanitize.js';
import type { CutMemo } from './cut-memo.js';

export interface CleanText {
  lines: string[];
  redactions: number;
}

/** Lines read from a window, with the markers redaction added to each. */
export interface WindowText extends CleanText {
  lineRedactions: number[];
}

/** The last `count` lines, with `redactions` counting only the markers inside them. */
export function lastLines(text: WindowText, count: number): WindowText {
  const lineRedactions = count > 0 ? text.lineRedactions.slice(-count) : [];
  return { lines: count > 0 ? text.lines.slice(-count) : [], lineRedactions, redactions: lineRedactions.reduce((a, b) => a + b, 0) };
}

export function toLines(captured: string): string[] {
  const lines = captured.split('\n');
  // capture-pane ends with a newline and pads the screen with blank rows.
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  return lines;
}

/** Cleans text captured as a whole (nothing cut after it). */
export function cleanPaneText(captured: string, stripAnsi: boolean): CleanText {
  const visible = stripAnsi ? stripTerminalControls(captured) : captured;
  const redacted = redactSecrets(visible);
  return { lines: toLines(redacted.text), redactions: redacted.count };
}

/** A capture sent to tmux before the pane's facts were confirmed, planned from a hint
 * (session-reader.ts `tail`): `readPaneWindow` uses it only for exactly this pane, plan
 * and escapes, else it captures again. Its text is null when the capture failed. */
export interface EarlyCapture {
  paneId: string;
  start: number | '-';
  end: number | '-';
  escapes: boolean;
  text: Promise<string | null>;
}

export function startEarlyCapture(
  tmux: Pick<TmuxAdapter, 'capturePane'>,
  hint: Pick<PaneFacts, 'paneId' | 'height' | 'historySize'>,
  start: number,
  end: number | '-',
  escapes: boolean,
): EarlyCapture {
  const plan = planPaneCapture(hint, start, end === '-' ? Math.max(0, hint.height - 1) : end, false);
  const text = tmux.capturePane(hint.paneId, { start: plan.start, end: plan.end, escapes }).catch(() => null);
  return { paneId: hint.paneId, start: plan.start, end: plan.end, escapes, text };
}

/**
 * The redacted logical lines touching physical rows `start`..`end` (`'-'`: the bottom of
 * the screen) of a pane: one capture with context, a second of the whole history only
 * when a line in the window may have been cut by the first one's edge. `early`: a
 * capture already on its way (see EarlyCapture).
 */
/** `cuts`: the broker's memo of cut windows (built by the composition root and handed to
 * every reader: tail, capture, batch, status, live screens, the supervisor); it only ever
 * returns what `cutPaneWindow` returns for the same text and request (cut-memo.ts), so
 * sharing it shares no state between callers. */
export async function readPaneWindow(
  cuts: CutMemo,
  tmux: Pick<TmuxAdapter, 'capturePane'>,
  pane: Pick<PaneFacts, 'paneId' | 'width' | 'height' | 'historySize'>,
  start: number,
  end: number | '-',
  escapes: boolean,
  early?: EarlyCapture,
): Promise<PaneWindow> {
  const endRow = end === '-' ? Math.max(0, pane.height - 1) : end;
  const read = async (whole: boolean) => {
    const plan = planPaneCapture(pane, start, endRow, whole);
    const fits = early !== undefined && !whole && early.paneId === pane.paneId && early.start === plan.start && early.end === plan.end && early.escapes === escapes;
    const captured = (fits ? await early.text : null) ?? (await tmux.capturePane(pane.paneId, { start: plan.start, end: plan.end, escapes }));
    const request: PaneWindowRequest = {
      width: pane.width,
      start,
      end: endRow,
      escapes,
      bottomRow: plan.bottomRow,
      fromHistoryStart: plan.fromHistoryStart,
      toScreenBottom: plan.toScreenBottom,
    };
    return cuts.cut(pane.paneId, request, captured, () => cutPaneWindow(captured, request));
  };
  const first = await read(false);
  return first.needsWhole ? read(true) : first;
}

/** `readPaneWindow` as caller-facing lines: trailing blank rows dropped. */
export async function readPaneLines(
  cuts: CutMemo,
  tmux: Pick<TmuxAdapter, 'capturePane'>,
  pane: Pick<PaneFacts, 'paneId' | 'width' | 'height' | 'historySize'>,
  start: number,
  end: number | '-',
  stripAnsi: boolean,
  early?: EarlyCapture,
): Promise<WindowText> {
  const window = await readPaneWindow(cuts, tmux, pane, start, end, !stripAnsi, early);
  const lines = toLines(window.lines.join('\n'));
  // toLines only drops trailing blank lines, which hold no marker.
  const lineRedactions = window.lineRedactions.slice(0, lines.length);
  return { lines, lineRedactions, redactions: lineRedactions.reduce((a, b) => a + b, 0) };
}
