/** Waiting without polling: a level-triggered wake-up that pane output fires, and a
 * sleep that ends early when the caller goes away. Every wait here also ends when the
 * request's AbortSignal aborts, so a disconnected client leaves nothing waiting. */

export type WakeReason = 'fired' | 'timeout' | 'aborted';

export class Wake {
  private fired = false;
  private resolver: ((reason: WakeReason) => void) | null = null;

  /** Marks the wake-up; a waiter (now or later) returns 'fired' once for any number of fires. */
  fire(): void {
    this.fired = true;
    const resolve = this.resolver;
    this.resolver = null;
    resolve?.('fired');
  }

  /** Resolves 'fired' (clearing the mark) if fired since the last wait, else on the next
   * fire, 'timeout' at `untilMs` (epoch ms; Infinity for never), 'aborted' on abort. */
  wait(untilMs: number, signal?: AbortSignal, now: () => number = Date.now): Promise<WakeReason> {
    if (signal?.aborted) return Promise.resolve('aborted');
    if (this.fired) {
      this.fired = false;
      return Promise.resolve('fired');
    }
    return new Promise<WakeReason>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const finish = (reason: WakeReason) => {
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (this.resolver === finish) this.resolver = null;
        if (reason === 'fired') this.fired = false;
        resolve(reason);
      };
      const onAbort = () => finish('aborted');
      signal?.addEventListener('abort', onAbort, { once: true });
      if (Number.isFinite(untilMs)) timer = setTimeout(() => finish('timeout'), Math.max(0, untilMs - now()));
      this.resolver = finish;
    });
  }
}

/** Sleeps until `untilMs` (epoch ms) or until `signal` aborts, whichever comes first. */
export function sleepUntil(untilMs: number, signal?: AbortSignal, now: () => number = Date.now): Promise<void> {
  const delay = untilMs - now();
  if (delay <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, delay);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Resolves with `promise`, or with `onAbort()`'s value as soon as `signal` aborts. */
export function unlessAborted<T, A>(promise: Promise<T>, signal: AbortSignal | undefined, onAbort: A): Promise<T | A> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.resolve(onAbort);
  return new Promise<T | A>((resolve, reject) => {
    const abort = () => resolve(onAbort);
    signal.addEventListener('abort', abort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', abort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(err);
      },
    );
  });
}
