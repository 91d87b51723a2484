/** The tests' one poller: waits for a condition with a generous deadline instead of
 * sleeping a guessed time (no test may depend on the machine's speed). */
/** Polls until `check` holds (robust on a loaded machine; no timing assertions). */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 30_000, intervalMs = 200): Promise<T> {
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
