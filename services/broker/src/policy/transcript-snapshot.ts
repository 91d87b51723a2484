/**
 * What a pane showed when its recording began, as transcript lines. Pure (no I/O).
 *
 * The capture (`capture-pane -p -J`, effects/tmux/pane-pipe.ts) is taken in the same turn
 * of tmux's loop as the pipe opens, so the pipe carries exactly what follows it. The line
 * the cursor is on may still be being written (a prompt waiting for input: `$ ` then the
 * command the user types): when every row under the cursor is blank and the cursor is
 * past the start of its row, the last line with text is returned as `partial`, to be fed
 * to the pane's stream redactor as the start of its current line, so `$ ` and `ls` are
 * one line, not two. Otherwise (a full-screen program with text under the cursor, or the
 * cursor on an empty row) every line is complete.
 *
 * Trailing blank rows are dropped; at most `maxLines` lines are kept, the newest.
 */

export interface SnapshotPane {
  readonly height: number;
  readonly cursorX: number;
  readonly cursorY: number;
}

export interface SnapshotLines {
  readonly lines: string[];
  readonly partial: string;
}

/** `captured`: the capture's lines joined with `\n`, the screen's last row last. */
export function snapshotLines(captured: string, pane: SnapshotPane, maxLines: number): SnapshotLines {
  // One line per row (a joined line counts as one), as the control client returns them.
  const rows = captured.split('\n');
  let end = rows.length;
  while (end > 0 && rows[end - 1]!.trim() === '') end -= 1;
  const blankBelow = rows.length - end;
  const rowsUnderCursor = Math.max(0, pane.height - 1 - pane.cursorY);
  const lines = rows.slice(0, end);
  let partial = '';
  if (end > 0 && blankBelow === rowsUnderCursor && pane.cursorX > 0) partial = lines.pop()!;
  return { lines: maxLines > 0 ? lines.slice(-maxLines) : [], partial };
}
