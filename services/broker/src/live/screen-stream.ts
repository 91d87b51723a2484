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
import { readAppErrorData, type AppError, type PaneLiveEvent, type PaneScreenFrame } from '@terminal-mcp/contract';
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

/** A frame is sent only when the screen (or the pane, or its size) changed since the last one sent. */
function changedSince(previous: Frame | null, frame: Frame): boolean {
  return previous === null || frame.data !== previous.data || frame.paneId !== previous.paneId || frame.width !== previous.width || frame.height !== previous.height;
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
      if (changedSince(previous, frame)) {
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

/** A host whose panes are followed by looking at them on a tick (a node: no output watcher
 * there, see nodes/node-live.ts), and that can be out of reach for a while. */
export interface PolledHost {
  /** How often the pane is captured while the host is reachable. */
  tickMs: number;
  /** null while the host is reachable; else why not (NODE_UNAVAILABLE with its hint). */
  unavailable(): AppError | null;
  /** A failed capture as the host's outage (NODE_UNAVAILABLE) when the host went down under it. */
  outageOf(err: unknown): unknown;
  /** The frame as the caller names things (the node in `session` and `sessionId`). */
  label(frame: PaneScreenFrame): PaneScreenFrame;
}

export interface PolledScreenStreamOptions {
  /** The host's own reader: its gate on every capture, the stream recorded once in its read audit. */
  reader: Pick<SessionReader, 'follow'>;
  caller: ReadCallerId;
  /** The session's name on its host (what the host's gate decides on). */
  name: string;
  /** How the caller named it (for the outage events). */
  shownAs: string;
  pane?: string | undefined;
  host: PolledHost;
  signal?: AbortSignal | undefined;
  now?: () => number;
}

/**
 * The live view of a session on a host that is looked at on a tick (a node): a frame when
 * the screen changed since the last one sent, none while it stays the same. Every capture
 * asks the host's gate (the reader's `follow`), and the session is pinned at the first one
 * (the host's tmux server pid, session id and creation time): a session recreated under
 * the name, or a new tmux server, ends the stream with IDENTITY_CHANGED. While the host is
 * out of reach the stream sends one `unavailable` event (again when its reason changes),
 * captures nothing, and resumes with a fresh frame once the host is back; the pin holds
 * across the outage. Any other error ends the stream.
 */
export async function* pollScreenFrames(opts: PolledScreenStreamOptions): AsyncGenerator<PaneLiveEvent, void, undefined> {
  const now = opts.now ?? Date.now;
  const { signal, host } = opts;
  const read = opts.reader.follow(opts.caller, 'dashboard_live', { session: opts.name, pane: opts.pane }, { pin: 'first' });
  let seq = 0;
  let previous: Frame | null = null;
  /** The outage last told (message and hint), or null while the host is up. */
  let told: string | null = null;
  const outage = (err: AppError): PaneLiveEvent | null => {
    const key = `${err.message}\n${err.hint ?? ''}`;
    // The next frame after an outage is sent even when the screen is unchanged: it ends the outage on screen.
    previous = null;
    if (key === told) return null;
    told = key;
    return { type: 'unavailable', code: 'NODE_UNAVAILABLE', session: opts.shownAs, message: err.message, hint: err.hint ?? '', at: new Date(now()).toISOString() };
  };
  for (;;) {
    if (signal?.aborted) return;
    const down = host.unavailable();
    let event: PaneLiveEvent | null = null;
    if (down !== null) {
      event = outage(down);
    } else {
      try {
        const frame = await captureFrame(read, now);
        told = null;
        if (changedSince(previous, frame)) {
          event = host.label({ ...frame, seq: seq++ });
          previous = frame;
        }
      } catch (err) {
        const mapped = host.outageOf(err);
        if (readAppErrorData(mapped)?.code !== 'NODE_UNAVAILABLE') throw mapped;
        event = outage(mapped as AppError);
      }
    }
    if (signal?.aborted) return;
    if (event !== null) yield event;
    await sleepUntil(now() + host.tickMs, signal, now);
  }
}
