/** A fixed-window counter: at most `limit` events per `windowMs`, across all callers.
 * Behind a tunnel every caller has the same address, so it caps the whole endpoint; it
 * exists so open registration cannot be used to churn the broker's client table. */
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
