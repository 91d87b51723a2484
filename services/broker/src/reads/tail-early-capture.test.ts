// terminal_tail sends its capture right behind the identity check, planned from the pane as last seen: when the session's active pane or its geometry changed since, the tail still returns the current pane's text (never the old pane's), and a session recreated under the same name never shows the old one's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTmuxServer, type TmuxTestServer } from '../../../../test/src/helpers/tmux-server.js';
import { configSchema } from '../config/schema.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from '../effects/tmux/adapter.js';
import { whitelistReader } from '../testing/deps.testkit.js';
import type { SessionReader } from './session-reader.js';

let server: TmuxTestServer;
let adapter: ControlModeTmuxAdapter;
let reader: SessionReader;
const config = configSchema.parse({ allowed_session_patterns: ['test-*'] });

/** A pane that prints `mark` and keeps quiet. */
const printing = (mark: string) => `bash --norc --noprofile -c 'echo ${mark}; exec sleep 3600'`;

/** Waits until tmux itself shows `mark` in `paneId` (so one tail must see it). */
async function printed(paneId: string, mark: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await server.tmux(['capture-pane', '-p', '-t', paneId])).includes(mark)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${paneId} never printed ${mark}`);
}

async function tailUntil(name: string, wanted: string): Promise<string> {
  let text = '';
  for (let i = 0; i < 100; i++) {
    text = (await reader.tail(name, 20)).text;
    if (text.includes(wanted)) return text;
    await new Promise((r) => setTimeout(r, 50));
  }
  return text;
}

beforeAll(async () => {
  server = await startTmuxServer();
  adapter = createTmuxAdapter({ socketName: server.socketName, configFile: '/dev/null' });
  expect(await adapter.waitUntilConnected(10_000)).toBe(true);
  reader = whitelistReader(config, adapter);
});

afterAll(async () => {
  await adapter?.close();
  await server?.kill();
});

describe('tail with a capture planned ahead', () => {
  it('reads the new active pane after a window switch, not the one the hint named', async () => {
    const s = await server.newSession('test-switch', printing('FIRST-WINDOW-MARK'), { width: 80, height: 24 });
    await reader.list();
    expect(await tailUntil('test-switch', 'FIRST-WINDOW-MARK')).toContain('FIRST-WINDOW-MARK');
    expect(adapter.paneHint!('test-switch')?.paneId).toBe(s.paneId);
    // A new window becomes the active one; tmux sends no sessions-changed for it.
    const second = await server.tmux(['new-window', '-P', '-F', '#{pane_id}', '-t', s.sessionId, printing('SECOND-WINDOW-MARK')]);
    await printed(second, 'SECOND-WINDOW-MARK');
    // The very first tail after the switch: its early capture named the old pane.
    const text = (await reader.tail('test-switch', 20)).text;
    expect(text).toContain('SECOND-WINDOW-MARK');
    expect(text).not.toContain('FIRST-WINDOW-MARK');
    // ...and the hint now follows the new pane.
    expect(adapter.paneHint!('test-switch')?.paneId).not.toBe(s.paneId);
  });

  it('reads the right rows after a resize', async () => {
    const s = await server.newSession('test-resize', `bash --norc --noprofile -c 'for i in $(seq 1 60); do echo "row-$i"; done; exec sleep 3600'`, { width: 80, height: 24 });
    await reader.list();
    expect(await tailUntil('test-resize', 'row-60')).toContain('row-60');
    await server.tmux(['resize-window', '-t', s.sessionId, '-x', '80', '-y', '10']);
    const t = await reader.tail('test-resize', 5);
    expect(t.text.split('\n')).toEqual(['row-56', 'row-57', 'row-58', 'row-59', 'row-60']);
  });

  it('never shows a session recreated under the same name the old one\'s text', async () => {
    const old = await server.newSession('test-reborn', printing('OLD-LIFE-MARK'), { width: 80, height: 24 });
    await reader.list();
    expect(await tailUntil('test-reborn', 'OLD-LIFE-MARK')).toContain('OLD-LIFE-MARK');
    await server.tmux(['kill-session', '-t', old.sessionId]);
    const reborn = await server.newSession('test-reborn', printing('NEW-LIFE-MARK'), { width: 80, height: 24 });
    await printed(reborn.paneId, 'NEW-LIFE-MARK');
    const text = (await reader.tail('test-reborn', 20)).text;
    expect(text).toContain('NEW-LIFE-MARK');
    expect(text).not.toContain('OLD-LIFE-MARK');
  });
});
