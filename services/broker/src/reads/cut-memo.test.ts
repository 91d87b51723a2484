// The cut memo returns a remembered redacted window only for the very text and request it was cut from: a pane that changes by one character, a window chosen differently, or another pane with the same text is cut afresh, and what it returns cannot be edited by one caller for the next.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTmuxServer, type TmuxTestServer } from '../../../../test/src/helpers/tmux-server.js';
import { configSchema } from '../config/schema.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from '../effects/tmux/adapter.js';
import { buildFingerprintIndex } from '../effects/known-secrets/fingerprint-index.js';
import { encodedForms, installKnownSecrets } from '../policy/known-secrets.js';
import { cutPaneWindow, type PaneWindowRequest } from '../policy/pane-window.js';
import { whitelistReader } from '../testing/deps.testkit.js';
import { createCutMemo } from './cut-memo.js';
import type { SessionReader } from './session-reader.js';

const TOKEN = `ghp_${'A1b2C3d4E5'.repeat(4)}`;
const request: PaneWindowRequest = { width: 80, start: -3, end: 2, bottomRow: 2, fromHistoryStart: true, toScreenBottom: true, escapes: false };
const quiet = 'line one\nline two\nline three\n';

describe('the cut memo', () => {
  it('gives the remembered cut for the same pane, text and request, equal to a fresh cut', () => {
    const memo = createCutMemo();
    let cuts = 0;
    const cut = (text: string, r = request) => () => {
      cuts += 1;
      return cutPaneWindow(text, r);
    };
    const first = memo.cut('%1', request, quiet, cut(quiet));
    // A new string with the same characters (as a new capture is), not the same object.
    const again = memo.cut('%1', request, `${quiet.slice(0, 4)}${quiet.slice(4)}`, cut(quiet));
    expect(again).toBe(first);
    expect(cuts).toBe(1);
    expect(again).toEqual(cutPaneWindow(quiet, request));
  });

  it('cuts afresh when the pane printed a secret after a remembered read', () => {
    const memo = createCutMemo();
    memo.cut('%1', request, quiet, () => cutPaneWindow(quiet, request));
    const changed = `${quiet}export GITHUB_TOKEN=${TOKEN}\n`;
    const window = memo.cut('%1', request, changed, () => cutPaneWindow(changed, request));
    expect(window.lines.join('\n')).not.toContain(TOKEN);
    expect(window.redactions).toBe(1);
  });

  it('cuts afresh once the host-secret index is rebuilt with a secret already on screen', () => {
    const memo = createCutMemo();
    const secret = 'orchard-velvet-4471-comet';
    const text = `${quiet}deploy key is ${secret}\n`;
    const before = memo.cut('%1', request, text, () => cutPaneWindow(text, request));
    expect(before.lines.join('\n')).toContain(secret);
    try {
      installKnownSecrets(buildFingerprintIndex(encodedForms(secret)));
      const after = memo.cut('%1', request, `${text}`, () => cutPaneWindow(text, request));
      expect(after.lines.join('\n')).not.toContain(secret.slice(0, 16));
      expect(after.lines.join('\n')).toContain('[REDACTED:known_secret]');
    } finally {
      installKnownSecrets(null);
    }
  });

  it('cuts afresh for another window, another width or another pane', () => {
    const memo = createCutMemo();
    let cuts = 0;
    const counted = (r: PaneWindowRequest) => () => {
      cuts += 1;
      return cutPaneWindow(quiet, r);
    };
    memo.cut('%1', request, quiet, counted(request));
    memo.cut('%1', { ...request, start: -1 }, quiet, counted({ ...request, start: -1 }));
    memo.cut('%1', { ...request, width: 40 }, quiet, counted({ ...request, width: 40 }));
    memo.cut('%1', { ...request, escapes: true }, quiet, counted({ ...request, escapes: true }));
    memo.cut('%2', request, quiet, counted(request));
    expect(cuts).toBe(5);
    expect(memo.size).toBe(5);
  });

  it('keeps its results frozen, so no caller can change what the next one reads', () => {
    const memo = createCutMemo();
    const window = memo.cut('%1', request, quiet, () => cutPaneWindow(quiet, request));
    expect(() => (window.lines as string[]).push(TOKEN)).toThrow(TypeError);
    expect(() => {
      (window.lines as string[])[0] = TOKEN;
    }).toThrow(TypeError);
    expect(memo.cut('%1', request, quiet, () => cutPaneWindow(quiet, request)).lines).not.toContain(TOKEN);
  });

  it('is bounded by entries and by characters, dropping the least recently used', () => {
    const memo = createCutMemo(3, 1_000);
    for (const pane of ['%1', '%2', '%3', '%4']) memo.cut(pane, request, quiet, () => cutPaneWindow(quiet, request));
    expect(memo.size).toBe(3);
    let cuts = 0;
    memo.cut('%1', request, quiet, () => {
      cuts += 1;
      return cutPaneWindow(quiet, request);
    });
    expect(cuts).toBe(1);
    // A text larger than the whole budget is cut but not kept, and evicts nothing.
    const big = 'x'.repeat(600);
    memo.cut('%9', request, big, () => cutPaneWindow(big, request));
    expect(memo.size).toBe(3);
    // Two entries of 2 x 400 characters exceed 1,000 together: only the newer stays.
    const small = createCutMemo(10, 1_000);
    const mid = 'y'.repeat(400);
    small.cut('%1', request, mid, () => cutPaneWindow(mid, request));
    small.cut('%2', request, mid, () => cutPaneWindow(mid, request));
    expect(small.size).toBe(1);
  });
});

describe('reads through the memo on a real pane', () => {
  let server: TmuxTestServer;
  let adapter: ControlModeTmuxAdapter;
  let reader: SessionReader;

  beforeAll(async () => {
    server = await startTmuxServer();
    adapter = createTmuxAdapter({ socketName: server.socketName, configFile: '/dev/null' });
    expect(await adapter.waitUntilConnected(10_000)).toBe(true);
    reader = whitelistReader(configSchema.parse({ allowed_session_patterns: ['test-*'] }), adapter);
  });

  afterAll(async () => {
    await adapter?.close();
    await server?.kill();
  });

  it('redacts a secret printed after repeated reads of the unchanged pane, whichever window is read', async () => {
    // The pane waits for a line on stdin, then prints a token on the row below its prompt.
    const s = await server.newSession('test-memo', `bash --norc --noprofile -c 'echo READY-MARK; read x; echo "export GITHUB_TOKEN=${TOKEN}"; echo AFTER-MARK; exec sleep 3600'`, { width: 80, height: 24 });
    let before = '';
    for (let i = 0; i < 200 && !before.includes('READY-MARK'); i++) {
      before = (await reader.tail('test-memo', 10)).text;
      if (!before.includes('READY-MARK')) await new Promise((r) => setTimeout(r, 50));
    }
    expect(before).toContain('READY-MARK');
    // Remembered reads of every window the attacker will ask for again.
    for (let i = 0; i < 3; i++) {
      await reader.tail('test-memo', 10);
      await reader.capture('test-memo', { start: 1, end: 1 });
      await reader.capture('test-memo', { start: 0, end: 3 });
    }
    await server.tmux(['send-keys', '-t', s.paneId, 'go', 'Enter']);
    let tail = '';
    for (let i = 0; i < 200 && !tail.includes('AFTER-MARK'); i++) {
      tail = (await reader.tail('test-memo', 10)).text;
      if (!tail.includes('AFTER-MARK')) await new Promise((r) => setTimeout(r, 50));
    }
    expect(tail).toContain('AFTER-MARK');
    expect(tail).toContain('[REDACTED:');
    const rows = [await reader.capture('test-memo', { start: 1, end: 1 }), await reader.capture('test-memo', { start: 0, end: 3 }), await reader.capture('test-memo', { start: 2, end: 2 })];
    for (const read of [tail, ...rows.map((r) => r.text)]) expect(read).not.toContain(TOKEN.slice(4, 20));
    expect(rows.some((r) => r.redactions > 0)).toBe(true);
  });
});
