/**
 * One sender per pane: a FIFO async mutex per pane key, in memory. Built once by the
 * composition root (start-broker.ts `createBroker`) and handed to the input services, so
 * every attempt of this broker queues on the same locks.
 *
 * In memory is enough: the broker's single-instance lock (effects/socket-files.ts
 * `acquireInstanceLock`) means no other process delivers input to this user's tmux
 * server through us, and a lock dies with the broker that held it (no expiry needed).
 * Crash safety does not rest on the lock but on the audit row written before the send
 * (input/attempt.ts; a PENDING row reads DELIVERY_UNKNOWN at the next start).
 */

export interface PaneLocks {
  /** Waits (first come, first served) up to `waitMs` for the pane's lock. Resolves with
   * the release function, or null when the wait ran out (the waiter leaves the queue and
   * never holds the lock). Release is idempotent. */
  acquire(key: string, waitMs: number): Promise<(() => void) | null>;
  /** Whether someone holds the pane's lock now (tests, diagnostics). */
  held(key: string): boolean;
}

interface Waiter {
  grant: () => void;
}

export function createPaneLocks(): PaneLocks {
  /** Per held key: the waiters queued behind its holder, oldest first. An entry exists
   * exactly while the key is held. */
  const queues = new Map<string, Waiter[]>();

  const releaser = (key: string): (() => void) => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const queue = queues.get(key);
      const next = queue?.shift();
      if (next) next.grant();
      else queues.delete(key);
    };
  };

  return {
    acquire(key, waitMs) {
      const queue = queues.get(key);
      if (!queue) {
        queues.set(key, []);
        return Promise.resolve(releaser(key));
      }
      return new Promise((resolve) => {
        const waiter: Waiter = {
          grant: () => {
            clearTimeout(timer);
            resolve(releaser(key));
          },
        };
        const timer = setTimeout(() => {
          const i = queue.indexOf(waiter);
          if (i >= 0) queue.splice(i, 1);
          resolve(null);
        }, Math.max(0, waitMs));
        queue.push(waiter);
      });
    },
    held: (key) => queues.has(key),
  };
}

/** Runs `fn` holding the pane's lock; the lock is released however `fn` ends. `busy` is
 * what to return when the wait ran out. */
export async function withPaneLock<T>(locks: PaneLocks, key: string, waitMs: number, busy: () => T, fn: () => Promise<T>): Promise<T> {
  const release = await locks.acquire(key, waitMs);
  if (release === null) return busy();
  try {
    return await fn();
  } finally {
    release();
  }
}
