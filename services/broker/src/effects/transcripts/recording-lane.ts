/**
 * The recorder's tmux work at a start or a reconcile (list-panes, then pipe-pane plus a
 * capture per pane) takes turns behind callers on the one control client: one task at a
 * time, each written only once no command is in flight (PanePipes.whenIdle). tmux answers
 * strictly in the order commands were written, so what matters is what is written ahead of
 * a caller's command: with this lane, at most one recording task's commands, however many
 * sessions start recording together (issue 48: 200 pipe-panes queued at once made the
 * first caller's command time out, and the timeout dropped the connection).
 */
export interface RecordingLane {
  /** Runs `task` in its turn; rejects without running it once the lane is closed. */
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Tasks still queued are refused (the recorder is closing: a pipe opened now would
   * have no reader). */
  close(): void;
}

/** `whenIdle(maxWaitMs)`: resolves when the client has nothing in flight, or after
 * `maxWaitMs` (a busy client must not starve recordings for good). */
export function createRecordingLane(whenIdle: (maxWaitMs: number) => Promise<void>, maxWaitMs = 2_000): RecordingLane {
  let last: Promise<unknown> = Promise.resolve();
  let closed = false;
  return {
    run(task) {
      const turn = last
        .then(() => (closed ? undefined : whenIdle(maxWaitMs)))
        .then(() => {
          if (closed) throw new Error('the transcript recorder is closing');
          return task();
        });
      last = turn.catch(() => undefined);
      return turn;
    },
    close() {
      closed = true;
    },
  };
}
