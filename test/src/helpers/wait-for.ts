/** The tests' one poller: waits for a condition with a generous deadline instead of
 * sleeping a guessed time (no test may depend on the machine's speed). */

/** How long a condition that normally holds within a few seconds may take: room for a
 * machine five times slower than a developer's, busy with other work. Only a hang should
 * ever reach it. */
export const GENEROUS_WAIT_MS = 120_000;

/** Polls until `check` holds (robust on a loaded machine; no timing assertions). */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = GENEROUS_WAIT_MS, intervalMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
