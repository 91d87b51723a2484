// terminal_run's end (input/run.ts captureEnd): the facts and the output lines are read in one write (the run's host's delivery reads), with line numbers from the history size tmux answers in that same write; a history that moved since the mark is read again with tmux's, a replaced pane process is no end, and delivery reads without the combined read read the facts alone.
import { describe, expect, it } from 'vitest';
import type { PaneFacts } from '../effects/tmux/types.js';
import { captureEnd } from './run.js';

const facts = (historySize: number, panePid = 4242): PaneFacts => ({
  paneId: '%7',
  panePid,
  currentCommand: 'bash',
  inMode: false,
  width: 80,
  height: 24,
  historySize,
  windowActivity: 0,
  cursor: { x: 2, y: 10, visible: true },
});
const run = { identity: { paneId: '%7', panePid: 4242 }, startLine: 100 };
const clean = (text: string) => ({ lines: text.split('\n'), redactions: 0 });
type Range = { start: number; end: number };
const endOf = (reads: object, endLine: number, historySize: number) => captureEnd(reads as Parameters<typeof captureEnd>[0], run as unknown as Parameters<typeof captureEnd>[1], endLine, historySize);

describe('captureEnd', () => {
  it('captures the lines from the typed line to the one before the end, relative to the history size of the same write', async () => {
    const asked: Range[] = [];
    const tmux = {
      factsWithOutput: async (_pane: string, start: number, end: number) => (asked.push({ start, end }), { facts: facts(90), output: clean('typed\nout') }),
      facts: async () => facts(90),
    };
    expect(await endOf(tmux, 103, 90)).toEqual({ historySize: 90, cursorX: 2, output: clean('typed\nout') });
    expect(asked).toEqual([{ start: 10, end: 12 }]);
  });

  it('reads again with the history size tmux answered when it moved since the mark, and keeps only a capture made with it', async () => {
    const asked: Range[] = [];
    const sizes = [91, 91];
    const tmux = {
      factsWithOutput: async (_pane: string, start: number, end: number) => (asked.push({ start, end }), { facts: facts(sizes.shift() ?? 0), output: clean(`at ${start}`) }),
      facts: async () => facts(91),
    };
    expect(await endOf(tmux, 103, 90)).toEqual({ historySize: 91, cursorX: 2, output: clean('at 9') });
    expect(asked).toEqual([
      { start: 10, end: 12 },
      { start: 9, end: 11 },
    ]);
  });

  it('falls back to the facts alone (the capture follows apart) when the history keeps moving, tmux refused the capture, or the adapter has no combined read', async () => {
    let size = 90;
    const moving = { factsWithOutput: async () => ({ facts: facts(++size), output: clean('x') }), facts: async () => facts(200) };
    expect(await endOf(moving, 103, 90)).toEqual({ historySize: 200, cursorX: 2 });
    const refused = { factsWithOutput: async () => ({ facts: facts(90), output: null }), facts: async () => facts(90) };
    expect(await endOf(refused, 103, 90)).toEqual({ historySize: 90, cursorX: 2 });
    expect(await endOf({ facts: async () => facts(95) }, 103, 90)).toEqual({ historySize: 95, cursorX: 2 });
  });

  it('is no end when the pane is gone or runs another process', async () => {
    expect(await endOf({ factsWithOutput: async () => null, facts: async () => facts(90) }, 103, 90)).toBeNull();
    expect(await endOf({ factsWithOutput: async () => ({ facts: facts(90, 5), output: clean('x') }), facts: async () => facts(90) }, 103, 90)).toBeNull();
    expect(await endOf({ facts: async () => facts(90, 5) }, 103, 90)).toBeNull();
  });

  it('reads only the facts when the run printed no line', async () => {
    const tmux = { factsWithOutput: async () => Promise.reject(new Error('not called')), facts: async () => facts(90) };
    expect(await endOf(tmux, 100, 90)).toEqual({ historySize: 90, cursorX: 2 });
  });
});
