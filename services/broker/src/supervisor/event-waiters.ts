/** Everyone blocked in supervisor_wait_events: woken together on every recorded event,
 * and on stop. */
export interface EventWaiters {
  /** Wakes every waiter. */
  fire(): void;
  /** Resolves on the next fire(), the deadline (epoch ms) or the abort. */
  next(untilMs: number, now: () => number, signal?: AbortSignal): Promise<void>;
}

export function createEventWaiters(): EventWaiters {
  const waiters = new Set<() => void>();
  return {
    fire() {
      for (const w of [...waiters]) w();
    },
    next: (untilMs, now, signal) =>
      new Promise<void>((resolveWait) => {
        if (signal?.aborted) return resolveWait();
        const done = () => {
          clearTimeout(timer);
          waiters.delete(done);
          signal?.removeEventListener('abort', done);
          resolveWait();
        };
        const timer = setTimeout(done, Math.max(0, untilMs - now()));
        waiters.add(done);
        signal?.addEventListener('abort', done, { once: true });
      }),
  };
}
