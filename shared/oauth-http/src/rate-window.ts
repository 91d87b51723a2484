/** Fixed-window counters: at most `limit` events per `windowMs`. */
export class RateWindow {
  private windowStart = 0;
  private count = 0;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one event; returns the seconds to wait when over the limit, else 0. */
  take(): number {
    const now = this.now();
    if (now - this.windowStart >= this.windowMs) {
      this.windowStart = now;
      this.count = 0;
    }
    if (this.count >= this.limit) return Math.max(1, Math.ceil((this.windowStart + this.windowMs - now) / 1000));
    this.count += 1;
    return 0;
  }
}

/**
 * One fixed window per key (a client address), so one source using up its share does not
 * lock out another. The table is capped: when it is full of live windows, a new key is
 * refused (waits a window) rather than growing memory without bound.
 */
export class KeyedRateWindows {
  private readonly windows = new Map<string, RateWindow>();
  private readonly started = new Map<string, number>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly maxKeys = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  take(key: string): number {
    const now = this.now();
    if (!this.windows.has(key) && this.windows.size >= this.maxKeys) {
      for (const [k, start] of this.started) {
        if (now - start >= this.windowMs) {
          this.windows.delete(k);
          this.started.delete(k);
        }
      }
      if (this.windows.size >= this.maxKeys) return Math.max(1, Math.ceil(this.windowMs / 1000));
    }
    let window = this.windows.get(key);
    if (!window || now - (this.started.get(key) ?? 0) >= this.windowMs) {
      window = new RateWindow(this.limit, this.windowMs, this.now);
      this.windows.set(key, window);
      this.started.set(key, now);
    }
    return window.take();
  }
}

/** Open registration's limits: per source, and for everyone together (so a spread-out
 * flood cannot churn the broker's client table either). Behind a tunnel every caller has
 * the tunnel's address unless a client-IP header is configured. */
export interface RegistrationLimits {
  perSource: KeyedRateWindows;
  total: RateWindow;
}

export const REGISTRATIONS_PER_SOURCE_PER_MINUTE = 10;
export const REGISTRATIONS_PER_MINUTE = 120;

export function registrationLimits(options: { perSource?: number; total?: number; now?: () => number } = {}): RegistrationLimits {
  return {
    perSource: new KeyedRateWindows(options.perSource ?? REGISTRATIONS_PER_SOURCE_PER_MINUTE, 60_000, 10_000, options.now),
    total: new RateWindow(options.total ?? REGISTRATIONS_PER_MINUTE, 60_000, options.now),
  };
}
