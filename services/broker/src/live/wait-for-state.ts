/**
 * Waits until a session's status (classifyPaneStatus over the visible screen, exactly as
 * `sessions.status` computes it) is one of the wanted states, or the timeout passes.
 *
 * Woken by the pane's output, not by a fixed sleep: the status is evaluated once at the
 * start, once more as soon as the output watcher is attached (output written between
 * the two is not missed), after every burst of output (coalesced: at most one
 * evaluation per `minIntervalMs`), and at the deadline. A slow fallback tick
 * (`fallbackTickMs`, 2 s) exists only because the status also depends on how long the
 * pane has been quiet (a command that stops writing turns from RUNNING to UNKNOWN
 * without printing anything). If the watcher cannot be attached (too many watched
 * sessions) the wait still works on that tick alone.
 *
 * Every evaluation goes through the read gate again and checks that the session is the
 * one the wait started on. An aborted signal (the client went away) ends the wait at
 * once and unsubscribes the watcher: no work is left behind.
 */
import { AppError, readAppErrorData, type SessionStatus, type SessionStatusResult } from '@terminal-mcp/contract';
import type { PaneWatcher, PaneWatchSubscription } from '../effects/tmux/pane-watch.js';
import type { ReadCallerId, SessionReader } from '../reads/session-reader.js';
import { assertSameSession } from '../access/target.js';
import { sessionIdentityOf, type SessionIdentity } from '../policy/identity.js';
import { sleepUntil, unlessAborted, Wake } from './wake.js';

/** What to wait on. Today a session name; a binding will resolve to the same shape: its
 * session name plus the identity it pins (so a recreated session is IDENTITY_CHANGED). */
export interface WaitTarget {
  readonly name: string;
  /** A pane of the session (`%id` or `window.pane`) instead of its active one, resolved by
   * the gate on every evaluation. */
  readonly pane?: string | undefined;
  /** When set, the session must still be this one; otherwise it is pinned at the start. */
  readonly identity?: SessionIdentity;
}

export interface WaitForStateOptions {
  /** THE reader: the same gate and the same status as terminal_status. */
  reader: Pick<SessionReader, 'follow'>;
  /** Who waits (the wait is recorded once in the read audit, under `tool`). */
  caller: ReadCallerId;
  tool?: string;
  paneWatch: PaneWatcher;
  target: WaitTarget;
  states: readonly SessionStatus[];
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  now?: () => number;
  minIntervalMs?: number;
  fallbackTickMs?: number;
}

export interface WaitOutcome {
  readonly matched: boolean;
  readonly status: SessionStatusResult;
  readonly identity: SessionIdentity;
  readonly waitedMs: number;
}

/** A wait re-attaches a watcher that ended under it at most this often. */
const MAX_REWATCH = 3;

/** A secret prompt (WAITING_HUMAN) is a prompt too: a wait for WAITING_INPUT ends on it, so
 * an agent waiting for its program to ask learns at once that a person must answer. */
export function statusMatches(states: readonly SessionStatus[], status: SessionStatus): boolean {
  return states.includes(status) || (status === 'WAITING_HUMAN' && states.includes('WAITING_INPUT'));
}

export async function waitForState(opts: WaitForStateOptions): Promise<WaitOutcome> {
  const now = opts.now ?? Date.now;
  const minIntervalMs = opts.minIntervalMs ?? 100;
  const fallbackTickMs = opts.fallbackTickMs ?? 2_000;
  const { signal } = opts;
  const started = now();
  const deadline = started + Math.max(0, opts.timeoutMs);
  // Pinned at the first evaluation unless the target names its session already.
  const read = opts.reader.follow(opts.caller, opts.tool ?? 'terminal_wait_for_state', { session: opts.target.name, pane: opts.target.pane }, { pin: opts.target.identity ?? 'first' });

  const evaluate = async (): Promise<{ status: SessionStatusResult; identity: SessionIdentity }> => {
    const { target, status } = await read.status();
    return { status, identity: sessionIdentityOf(target.identity) };
  };
  const cancelled = () => new AppError('TIMEOUT', 'the wait was cancelled by the caller');
  const outcome = (matched: boolean, status: SessionStatusResult, identity: SessionIdentity): WaitOutcome => ({
    matched,
    status,
    identity,
    waitedMs: Math.max(0, now() - started),
  });

  let last = await evaluate();
  if (statusMatches(opts.states, last.status.status)) return outcome(true, last.status, last.identity);
  if (now() >= deadline) return outcome(false, last.status, last.identity);
  if (signal?.aborted) throw cancelled();

  const wake = new Wake();
  let watchEnded = false;
  let rewatches = 0;
  let subscription: PaneWatchSubscription | null = null;
  const watch = async (): Promise<void> => {
    watchEnded = false;
    try {
      subscription = opts.paneWatch.watch(last.identity.sessionId, {
        onOutput: () => wake.fire(),
        onEnd: () => {
          watchEnded = true;
          wake.fire();
        },
      });
      const attached = await unlessAborted(subscription.ready, signal, null);
      if (attached !== null) assertSameSession(last.identity, attached);
    } catch (err) {
      if (readAppErrorData(err)?.code === 'IDENTITY_CHANGED') throw err;
      // No watcher (limit reached, attach failed): the fallback tick still evaluates, and
      // the evaluation reports a session that is gone.
      watchEnded = true;
    }
  };

  try {
    await watch();
    let lastEvaluation = -Infinity;
    // The first pass evaluates at once: output may have come before the watcher attached.
    let reason: 'fired' | 'timeout' | 'aborted' = 'fired';
    for (;;) {
      if (reason === 'aborted' || signal?.aborted) throw cancelled();
      if (reason === 'fired') await sleepUntil(Math.min(deadline, lastEvaluation + minIntervalMs), signal, now);
      if (signal?.aborted) throw cancelled();
      lastEvaluation = now();
      last = await evaluate();
      if (statusMatches(opts.states, last.status.status)) return outcome(true, last.status, last.identity);
      if (now() >= deadline) return outcome(false, last.status, last.identity);
      if (watchEnded && rewatches < MAX_REWATCH) {
        rewatches++;
        (subscription as PaneWatchSubscription | null)?.unsubscribe();
        await watch();
      }
      reason = await wake.wait(Math.min(deadline, now() + fallbackTickMs), signal, now);
    }
  } finally {
    (subscription as PaneWatchSubscription | null)?.unsubscribe();
  }
}
