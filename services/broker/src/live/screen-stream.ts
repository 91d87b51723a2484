/**
 * The live view of one session: redacted screen frames, first the current screen, then
 * a new one whenever the session's panes write output — at most one per
 * `minIntervalMs` (default 100 ms, ~10 frames per second), none while the pane is quiet.
 * Pane output only WAKES this loop; what is sent is always a fresh capture of the active
 * pane's (or the named pane's) visible screen, redacted (see policy/screen-frame.ts for why raw output is never
 * streamed).
 *
 * Every frame goes through the read gate again (`resolveReadable`: whitelist or a grant
 * pinned to this very session), so a revoked grant stops the stream at the next frame,
 * and the session must still be the one the stream started on (same server, id and
 * creation time). The loop ends when the caller's signal aborts; `finally` unsubscribes
 * the watcher, which detaches after its grace period if nobody else watches.
 */
import type { AppError, PaneScreenFrame } from '@terminal-mcp/contract';
import type { PaneWatcher } from '../effects/tmux/pane-watch.js';
import { renderScreenFrame } from '../policy/screen-frame.js';
import type { ContinuedRead, ReadCallerId, SessionReader } from '../reads/session-reader.js';
import { assertSameSession } from '../access/target.js';
import { sessionIdentityOf } from '../policy/identity.js';
import { sleepUntil, unlessAborted, Wake } from './wake.js';

export interface ScreenStreamOptions {
  /** THE reader: every frame through the gate, the stream recorded once in the read audit. */
  reader: Pick<SessionReader, 'follow'>;
  /** Who watches (recorded in the read audit). */
  caller: ReadCallerId;
  paneWatch: PaneWatcher;
  /** Exact session name; the read gate decides on it for every frame. */
  name: string;
  /** A pane of the session (`%id` or `window.pane`) instead of its active one; resolved
   * by the gate on every frame, like the session. */
  pane?: string | undefined;
  signal?: AbortSignal | undefined;
  minIntervalMs?: number;
  now?: () => number;
}

type Frame = Omit<PaneScreenFrame, 'seq'>;

async function captureFrame(read: ContinuedRead, now: () => number): Promise<Frame> {
  const { target, window, facts } = await read.frame();
  const frame = renderScreenFrame(window, facts);
  return {
    type: 'screen',
    session: target.sessionName,
    sessionId: target.identity.sessionId,
    paneId: facts.paneId,
    width: facts.width,
    height: facts.height,
    cursor: facts.cursor,
    data: frame.data,
    redactions: frame.redactions,
    capturedAt: new Date(now()).toISOString(),
  };
}

export async function* streamScreenFrames(opts: ScreenStreamOptions): AsyncGenerator<PaneScreenFrame, void, undefined> {
  const now = opts.now ?? Date.now;
  const minIntervalMs = opts.minIntervalMs ?? 100;
  const { signal } = opts;
  // Pinned at the first look: a session recreated under the name ends the stream.
  const read = opts.reader.follow(opts.caller, 'dashboard_live', { session: opts.name, pane: opts.pane }, { pin: 'first' });
  const pinned = sessionIdentityOf((await read.target()).identity);

  const wake = new Wake();
  let ended: AppError | null = null;
  const subscription = opts.paneWatch.watch(pinned.sessionId, {
    onOutput: () => wake.fire(),
    onEnd: (error) => {
      ended = error;
      wake.fire();
    },
  });
  try {
    // Attached before the first capture: output written after it wakes the loop.
    const attached = await unlessAborted(subscription.ready, signal, null);
    if (attached === null) return;
    assertSameSession(pinned, attached);

    let seq = 0;
    let previous: Frame | null = null;
    for (;;) {
      const frameAt = now();
      const frame = await captureFrame(read, now);
      if (signal?.aborted) return;
      const changed =
        previous === null ||
        frame.data !== previous.data ||
        frame.paneId !== previous.paneId ||
        frame.width !== previous.width ||
        frame.height !== previous.height;
      if (changed) {
        yield { ...frame, seq: seq++ };
        previous = frame;
      }
      // The watcher is gone (someone killed our client, or tmux restarted) but the session
      // passed the checks above: end with the watcher's error; the client resubscribes.
      if (ended !== null) throw ended;
      if ((await wake.wait(Infinity, signal, now)) === 'aborted') return;
      // Coalesce bursts: one frame per interval, however much output arrived.
      await sleepUntil(frameAt + minIntervalMs, signal, now);
      if (signal?.aborted) return;
    }
  } finally {
    subscription.unsubscribe();
  }
}
