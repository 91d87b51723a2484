/** Hard caps every boundary enforces, whatever the config says. Postfix rule: every
 * program that reads untrusted input enforces size limits. */
export const LIMITS = {
  sessionName: 256,
  maxTailLines: 10_000,
  maxCaptureLines: 50_000,
  /** Capture line numbers follow tmux: 0 is the top of the visible screen, negative
   * numbers reach into scrollback. */
  minCaptureLine: -1_000_000,
  maxCaptureLine: 10_000,
  batchSessions: 25,
  batchTailLines: 50,
} as const;
