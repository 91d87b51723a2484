/**
 * Keeps session status fresh without polling fast: the broker classifies status from the
 * screen and from how long ago the pane wrote, so after output the page asks again soon
 * (once the burst settles) and once more after the "recent output" window has passed
 * (RUNNING becomes IDLE or WAITING_INPUT only then). A slow interval covers the rest.
 */
const SOON_MS = 1_000;
/** A little longer than the broker's RECENT_OUTPUT_SECONDS (3 s). */
const SETTLED_MS = 4_000;
const INTERVAL_MS = 10_000;
/** A pane that writes all the time must not turn into one status round per second. */
const MIN_GAP_MS = 3_000;

export function createStatusRefresher(ask: () => void): { onOutput(): void; stop(): void } {
  let soon: ReturnType<typeof setTimeout> | undefined;
  let settled: ReturnType<typeof setTimeout> | undefined;
  let last = 0;
  const refresh = () => {
    last = Date.now();
    ask();
  };
  const interval = setInterval(refresh, INTERVAL_MS);
  return {
    onOutput() {
      if (soon === undefined && Date.now() - last >= MIN_GAP_MS) {
        soon = setTimeout(() => {
          soon = undefined;
          refresh();
        }, SOON_MS);
      }
      clearTimeout(settled);
      settled = setTimeout(refresh, SETTLED_MS);
    },
    stop() {
      clearInterval(interval);
      clearTimeout(soon);
      clearTimeout(settled);
    },
  };
}
