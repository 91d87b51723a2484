/**
 * A service's stop, bounded: the gateway, observer and dashboard exit within their stop
 * deadline whatever their close waits for (a broker that no longer answers, a client
 * connection that never ends), as the broker does (services/broker/src/bin/main.ts).
 * Before exiting, the log sink gets a short, bounded drain, so the last lines reach a
 * reader that is still there, and a reader that is gone costs nothing (log-sink.ts).
 */
import type { LogSink } from './log-sink.js';

/** Within 5 s of SIGTERM, as docs/operations.md promises for every service. */
export const SERVICE_STOP_DEADLINE_MS = 4_000;
/** The exit status of a stop forced at its deadline (docs/operations.md). */
export const STOP_FORCED_EXIT_CODE = 3;
const LOG_DRAIN_MS = 300;

export interface BoundedStop {
  /** Ends the process: 0 when `close` resolves, 1 when it fails, STOP_FORCED_EXIT_CODE
   * (after `overdue` has said so) when the deadline comes first. */
  run(close: () => Promise<unknown>): void;
}

export function boundedStop(options: { sink?: LogSink | undefined; overdue: (deadlineMs: number) => void; deadlineMs?: number }): BoundedStop {
  const deadlineMs = options.deadlineMs ?? SERVICE_STOP_DEADLINE_MS;
  let exiting = false;
  const exit = (code: number) => {
    if (exiting) return;
    exiting = true;
    const drained = options.sink ? options.sink.drain(LOG_DRAIN_MS) : Promise.resolve();
    void drained.then(() => process.exit(code));
  };
  return {
    run(close) {
      setTimeout(() => {
        if (exiting) return;
        options.overdue(deadlineMs);
        exit(STOP_FORCED_EXIT_CODE);
      }, deadlineMs);
      Promise.resolve()
        .then(close)
        .then(
          () => exit(0),
          () => exit(1),
        );
    },
  };
}
