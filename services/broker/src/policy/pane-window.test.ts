// Guards redact-before-slice for panes: the rows a caller picks (strictly inside a key
// block, one row of a wrapped token) come back only as whole, redacted logical lines.
import { describe, expect, it } from 'vitest';
import { CONTEXT_ROWS, cutPaneWindow, planPaneCapture, rowsOf } from './pane-window.js';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
function fake(alphabet: string, length: number, seed: number): string {
  let x = seed;
  let out = '';
  for (let i = 0; i < length; i += 1) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out += alphabet[Math.floor(x / 65536) % alphabet.length];
  }
  return out;
}
const TOKEN = `sk-ant-api03-${fake(`${ALNUM}-_`, 105, 1)}Q2`; // 120 characters
const BODY = [1, 2, 3, 4, 5].map((seed) => fake(`${ALNUM}+/`, 64, 10 + seed));
const KEY = ['-----BEGIN RSA PRIVATE KEY-----', ...BODY, '-----END RSA PRIVATE KEY-----'];

function fragments(secret: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + 8 <= secret.length; i += 1) out.push(secret.slice(i, i + 8));
  return out;
}

/** A capture of a whole 40x10 pane whose logical lines are `lines` (screen bottom = row 9). */
function whole(lines: string[]) {
  return { captured: lines.join('\n'), width: 40, bottomRow: 9, fromHistoryStart: true, toScreenBottom: true, escapes: false };
}

describe('rowsOf', () => {
  it('counts wrapped rows by display width', () => {
    expect(rowsOf('', 40)).toBe(1);
    expect(rowsOf('x'.repeat(40), 40)).toBe(1);
    expect(rowsOf('x'.repeat(41), 40)).toBe(2);
    expect(rowsOf(TOKEN, 40)).toBe(3);
    expect(rowsOf('界'.repeat(20), 40)).toBe(1);
    expect(rowsOf('界'.repeat(21), 40)).toBe(2);
  });
});

describe('cutPaneWindow', () => {
  const lines = ['$ start', `key=${TOKEN}`, 'after', '', '', '', '', ''];
  // Bottom-up from row 9: five blank rows 5..9, 'after' row 4, the 124-character token line
  // rows 0..3, '$ start' row -1.

  it('returns a wrapped token whole and redacted whichever single row is asked for', () => {
    const { captured, ...rest } = whole(lines);
    for (const row of [0, 1, 2, 3]) {
      const cut = cutPaneWindow(captured, { ...rest, start: row, end: row });
      expect(cut.lines).toEqual(['key=[REDACTED:anthropic_api_key]']);
      expect(cut.needsWhole).toBe(false);
    }
    expect(cutPaneWindow(captured, { ...rest, start: -1, end: -1 }).lines).toEqual(['$ start']);
    expect(cutPaneWindow(captured, { ...rest, start: 4, end: 4 }).lines).toEqual(['after']);
  });

  it('redacts the rows strictly inside a key block', () => {
    const text = [...KEY, '$ '];
    const captured = text.join('\n');
    // Bottom-up: '$ ' is row 9, END row 8, body rows 3..7, BEGIN row 2.
    const cut = cutPaneWindow(captured, { width: 80, bottomRow: 9, fromHistoryStart: true, toScreenBottom: true, escapes: false, start: 4, end: 6 });
    expect(cut.lines).toHaveLength(3);
    for (const line of BODY) for (const piece of fragments(line)) expect(cut.lines.join('\n')).not.toContain(piece);
    expect(cut.redactions).toBe(3);
  });

  it('asks for the whole history when the capture edge cut a line in the window', () => {
    const captured = ['cut-off-tail-of-a-long-line', 'next', 'x'].join('\n');
    const cut = cutPaneWindow(captured, { width: 80, bottomRow: 9, fromHistoryStart: false, toScreenBottom: true, escapes: false, start: 7, end: 9 });
    expect(cut.needsWhole).toBe(true);
    expect(cutPaneWindow(captured, { width: 80, bottomRow: 9, fromHistoryStart: false, toScreenBottom: true, escapes: false, start: 8, end: 9 }).needsWhole).toBe(false);
  });

  it('keeps colour codes outside secrets when escapes are asked for', () => {
    const captured = `\x1b[32mok\x1b[0m password=\x1b[31mhunter2xyz\x1b[0m\nnext`;
    const cut = cutPaneWindow(captured, { width: 80, bottomRow: 1, fromHistoryStart: true, toScreenBottom: true, escapes: true, start: 0, end: 0 });
    expect(cut.lines).toEqual(['\x1b[32mok\x1b[0m password=\x1b[31m[REDACTED:password]\x1b[0m']);
  });
});

describe('planPaneCapture', () => {
  it('captures context around the window, from the history start when it is near', () => {
    expect(planPaneCapture({ height: 24, historySize: 5000 }, -200, 23)).toEqual({ start: -200 - CONTEXT_ROWS, end: '-', bottomRow: 23, fromHistoryStart: false, toScreenBottom: true });
    expect(planPaneCapture({ height: 24, historySize: 50 }, -20, 23)).toMatchObject({ start: '-', fromHistoryStart: true });
    expect(planPaneCapture({ height: 24, historySize: 5000 }, -1000, -900)).toEqual({ start: -1000 - CONTEXT_ROWS, end: -900 + CONTEXT_ROWS, bottomRow: -900 + CONTEXT_ROWS, fromHistoryStart: false, toScreenBottom: false });
    expect(planPaneCapture({ height: 24, historySize: 5000 }, -1000, -900, true)).toMatchObject({ start: '-', end: '-', bottomRow: 23 });
  });
});
