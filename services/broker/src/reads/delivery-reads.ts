/**
 * The reads input delivery makes of the pane it types into (input/attempt.ts, task.ts,
 * run.ts), kept here beside THE reader so that reads/ and the gate (access/) are the only
 * code of the broker that calls tmux's capture and identity reads (eslint.config.js's
 * reader zone; test/src/architecture.test.ts derives every caller from the source).
 *
 * They serve a pane the input gate admitted: the attempt resolved its target through the
 * gate (inputTarget, decideInput) and holds the pane's lock, and every identity read here
 * is compared with that target by the caller before anything is acted on. What leaves the
 * broker goes through `outputLines` (redacted like every read); `view` is raw text, used
 * only to find the typed text at the cursor and never returned to a caller.
 */
import type { PaneIdentityFacts } from '../effects/tmux/pane-identity.js';
import type { PaneFacts, TmuxAdapter } from '../effects/tmux/types.js';
import { cleanPaneText, type CleanText } from './pane-text.js';

/** The delivery's identity read (effects/tmux/deliver.ts PaneDelivery.readIdentity): this
 * host's control client, or a node's over ssh. */
export interface IdentityReader {
  readIdentity(paneId: string): Promise<PaneIdentityFacts | null>;
}

export interface DeliveryView {
  /** The raw rows ending at the cursor (`rows` of them), as tmux joined them. */
  rows: string[];
  /** The visible screen, control sequences stripped and secrets redacted. */
  screen: string[];
}

export interface DeliveryReads {
  /** The pane's identity and input facts now (through the control client where it can);
   * null when the pane is gone. */
  identity(paneId: string): Promise<PaneIdentityFacts | null>;
  /** The pane's facts now (history size, cursor), through the control client. */
  facts(paneId: string): Promise<PaneFacts | null>;
  /** The rows ending at the cursor and the visible screen, read in one turn. */
  view(live: PaneIdentityFacts, rows: number): Promise<DeliveryView>;
  /** Rows `start`..`end` (relative to the screen's top; negative: history) as whole
   * logical lines, control sequences stripped and secrets redacted: the text a caller
   * may be shown. A pane gone under the read gives no lines. */
  outputLines(paneId: string, start: number, end: number): Promise<CleanText>;
  /** The pane's facts and `outputLines(paneId, start, end)` read in one write, which tmux
   * runs in one turn of its loop: the rows' numbers are relative to the screen and history
   * these facts describe. null when the pane is gone; `output` null when the capture
   * failed. Absent where the adapter cannot read both at once. */
  factsWithOutput?(paneId: string, start: number, end: number): Promise<{ facts: PaneFacts; output: CleanText | null } | null>;
}

export function createDeliveryReads(deps: { tmux: Pick<TmuxAdapter, 'capturePane' | 'capturePaneWithFacts' | 'paneFacts'>; delivery: IdentityReader }): DeliveryReads {
  const { tmux, delivery } = deps;
  const withFacts = tmux.capturePaneWithFacts?.bind(tmux);
  return {
    identity: (paneId) => delivery.readIdentity(paneId),
    facts: (paneId) => tmux.paneFacts(paneId),
    async view(live, rows) {
      const [cursorRaw, screenRaw] = await Promise.all([
        tmux.capturePane(live.paneId, { start: live.cursorY - (rows - 1), end: live.cursorY }),
        tmux.capturePane(live.paneId, { start: 0, end: '-' }),
      ]);
      return { rows: cursorRaw.split('\n'), screen: cleanPaneText(screenRaw, true).lines };
    },
    async outputLines(paneId, start, end) {
      return cleanPaneText(await tmux.capturePane(paneId, { start, end }).catch(() => ''), true);
    },
    ...(withFacts
      ? {
          async factsWithOutput(paneId: string, start: number, end: number) {
            const read = await withFacts(paneId, { start, end });
            return read && { facts: read.facts, output: read.text === null ? null : cleanPaneText(read.text, true) };
          },
        }
      : {}),
  };
}
