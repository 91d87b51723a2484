/**
 * Runs an async job for a stream of requests with at most one run in flight and at most
 * one queued: requests that arrive while a run is in flight merge into the single queued
 * one. A burst of N requests therefore costs at most 2 runs beyond the one already
 * running, however fast they come, and every request is covered by a run that STARTED
 * after it arrived (so it sees the state the request announced).
 *
 * Used for tmux's session notifications (adapter.ts `onSessionsChanged`) and the session
 * registry's passes: 50 `new-session` in a row must not become 50 overlapping listings.
 */

export interface Coalescer<T, R> {
  /** Asks for a run with `arg`; resolves with the result of a run that started after this
   * call, or undefined when that run failed (the error went to `onError`) or the
   * coalescer was stopped first. */
  request(arg: T): Promise<R | undefined>;
  /** Drops the queued run and refuses later requests; resolves once the run in flight
   * (if any) has ended. */
  stop(): Promise<void>;
}

export interface CoalesceOptions<T> {
  /** How a queued request absorbs a newer one; default: the newer one wins. */
  merge?: (queued: T, next: T) => T;
  onError: (err: unknown) => void;
}

export function coalesce<T, R = unknown>(run: (arg: T) => Promise<R> | R, options: CoalesceOptions<T>): Coalescer<T, R> {
  const merge = options.merge ?? ((_queued: T, next: T) => next);
  let inFlight: Promise<R | undefined> | null = null;
  let queued: { arg: T; done: Promise<R | undefined>; resolve: (r: R | undefined) => void } | null = null;
  let stopped = false;

  const runOnce = async (arg: T): Promise<R | undefined> => {
    try {
      return await run(arg);
    } catch (err) {
      options.onError(err);
      return undefined;
    }
  };

  const start = (arg: T): Promise<R | undefined> => {
    const current = runOnce(arg).then((result) => {
      const next = queued;
      queued = null;
      if (next === null || stopped) {
        inFlight = null;
        next?.resolve(undefined);
      } else {
        void start(next.arg).then(next.resolve);
      }
      return result;
    });
    inFlight = current;
    return current;
  };

  return {
    request(arg: T): Promise<R | undefined> {
      if (stopped) return Promise.resolve(undefined);
      if (inFlight === null) return start(arg);
      if (queued !== null) {
        queued.arg = merge(queued.arg, arg);
        return queued.done;
      }
      let resolve!: (r: R | undefined) => void;
      const done = new Promise<R | undefined>((r) => (resolve = r));
      queued = { arg, done, resolve };
      return done;
    },
    async stop(): Promise<void> {
      stopped = true;
      const q = queued;
      queued = null;
      q?.resolve(undefined);
      while (inFlight !== null) await inFlight;
    },
  };
}
