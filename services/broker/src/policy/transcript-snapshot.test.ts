// What a pane showed when its recording began becomes complete transcript lines, and the line the cursor is still writing (a prompt) stays open for the stream to continue.
import { describe, expect, it } from 'vitest';
import { snapshotLines } from './transcript-snapshot.js';

/** A 5-row screen as the control client returns a capture: every row, joined. */
const screen = (...rows: string[]) => [...rows, ...Array(5 - rows.length).fill('')].join('\n');

describe('snapshotLines', () => {
  const cases: { name: string; captured: string; cursor: [number, number]; lines: string[]; partial: string }[] = [
    { name: 'a prompt waiting for input stays open', captured: screen('build ok', '$ '), cursor: [2, 1], lines: ['build ok'], partial: '$ ' },
    { name: 'the cursor on an empty row: every line is complete', captured: screen('one', 'two'), cursor: [0, 2], lines: ['one', 'two'], partial: '' },
    { name: 'text under the cursor (a full-screen program): every line is complete', captured: screen('top', 'x', '', 'status bar'), cursor: [1, 1], lines: ['top', 'x', '', 'status bar'], partial: '' },
    { name: 'an empty screen', captured: screen(), cursor: [0, 0], lines: [], partial: '' },
    { name: 'the cursor at the start of a row with text: complete', captured: screen('done'), cursor: [0, 0], lines: ['done'], partial: '' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(snapshotLines(c.captured, { height: 5, cursorX: c.cursor[0], cursorY: c.cursor[1] }, 100)).toEqual({ lines: c.lines, partial: c.partial });
    });
  }

  it('keeps scrollback above the screen, at most maxLines, the newest', () => {
    const captured = `h1\nh2\nh3\n${screen('s1', '$ ')}`;
    expect(snapshotLines(captured, { height: 5, cursorX: 2, cursorY: 1 }, 2)).toEqual({ lines: ['h3', 's1'], partial: '$ ' });
    expect(snapshotLines(captured, { height: 5, cursorX: 2, cursorY: 1 }, 0)).toEqual({ lines: [], partial: '$ ' });
  });
});
