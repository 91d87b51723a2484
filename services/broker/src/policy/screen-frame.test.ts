// A live-view frame redacts secrets on the captured screen and can carry nothing but text, SGR colours and our own cursor positioning.
import { describe, expect, it } from 'vitest';
import { cutPaneWindow } from './pane-window.js';
import { keepOnlySgr, renderScreenFrame, screenWindowOf } from './screen-frame.js';

const geometry = { width: 80, height: 4, cursor: { x: 2, y: 1, visible: true } };
const KEY = 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';

describe('renderScreenFrame', () => {
  it('clears, draws rows joined by CRLF, resets and puts the cursor where tmux has it', () => {
    const frame = renderScreenFrame(screenWindowOf('\x1b[31mred\x1b[39m line\n$ \n\n\n', geometry), geometry);
    expect(frame.data).toBe('\x1b[0m\x1b[H\x1b[2J\x1b[31mred\x1b[39m line\r\n$ \r\n\r\n\x1b[0m\x1b[2;3H\x1b[?25h');
    expect(frame.redactions).toBe(0);
  });

  it('redacts a secret, also one coloured in the middle, before anything is sent', () => {
    const coloured = `${KEY.slice(0, 20)}\x1b[1;31m${KEY.slice(20)}\x1b[0m`;
    const frame = renderScreenFrame(screenWindowOf(`export KEY=${KEY}\n${coloured}\n`, geometry), geometry);
    expect(frame.redactions).toBe(2);
    expect(frame.data).not.toContain(KEY.slice(14, 30));
    expect(frame.data).not.toContain(KEY.slice(20));
    expect(frame.data).toContain('[REDACTED:');
  });

  it('keeps the bottom rows when the capture is taller than the pane, and clamps the cursor', () => {
    const g = { width: 10, height: 3, cursor: { x: 99, y: 99, visible: false } };
    const frame = renderScreenFrame(screenWindowOf('a\nb\nc\nd\ne\nf\n', g), g);
    expect(frame.data).toBe('\x1b[0m\x1b[H\x1b[2Jd\r\ne\r\nf\x1b[0m\x1b[3;10H\x1b[?25l');
  });
});

describe('renderScreenFrame at the top edge', () => {
  it('redacts a token whose line starts above the screen and draws only its on-screen rows', () => {
    // 10 columns, 3 rows; the first captured line is a history row of context.
    const token = `TOKEN=${KEY}`; // 56 characters: 6 rows, of which the screen shows the last 1
    const g = { width: 10, height: 3, cursor: { x: 0, y: 2, visible: true } };
    const window = cutPaneWindow(`older\n${token}\nb\n$ `, { width: 10, start: 0, end: 2, bottomRow: 2, fromHistoryStart: true, toScreenBottom: true, escapes: true });
    expect(window.rowsAboveStart).toBe(5);
    const frame = renderScreenFrame(window, g);
    expect(frame.data).not.toContain(KEY.slice(-8));
    expect(frame.redactions).toBe(1);
    // TOKEN=[REDACTED:anthropic_api_key] is 34 cells: 4 rows, the last one drawn.
    expect(frame.data).toBe('\x1b[0m\x1b[H\x1b[2Jkey]\r\nb\r\n$ \x1b[0m\x1b[3;1H\x1b[?25h');
  });
});

describe('keepOnlySgr', () => {
  it.each([
    ['OSC 52 clipboard write', 'a\x1b]52;c;aGVsbG8=\x07b', 'ab'],
    ['window title', 'a\x1b]0;owned\x1b\\b', 'ab'],
    ['hyperlink', '\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\', 'link'],
    ['cursor move and erase', 'a\x1b[2J\x1b[10;10Hb\x1b[K', 'ab'],
    ['mode switch', '\x1b[?1049h\x1b[?1000hx', 'x'],
    ['DCS string', 'a\x1bP1$tq\x1b\\b', 'ab'],
    ['8-bit CSI', 'a\x9b2Jb', 'ab'],
    ['C0 controls', 'a\x07\x08\rb\tc', 'ab\tc'],
    ['SGR kept', '\x1b[1;38;5;196mx\x1b[0m', '\x1b[1;38;5;196mx\x1b[0m'],
    ['SGR with colon params kept', '\x1b[38:2::1:2:3mx', '\x1b[38:2::1:2:3mx'],
  ])('%s', (_name, input, expected) => {
    expect(keepOnlySgr(input)).toBe(expected);
  });
});
