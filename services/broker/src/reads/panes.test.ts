// Reads of one pane inside a session (issue 29 item 4): a session with two windows and a split pane is read pane by pane, by pane id and by window.pane, each exactly (its own text, no other pane's); hostile pane values are refused before tmux is asked; a pane of another session is refused as not found, with the same answer as a pane that never existed; a session the caller may not read says nothing about its panes; terminal_list_panes shows hostile window names as data.
import { paneRefSchema, statusInputSchema, tailInputSchema } from '@terminal-mcp/contract';
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
const printing = (mark: string, then = 'sleep 3600') => `bash --norc --noprofile -c 'echo ${mark}; exec ${then}'`;

async function printed(paneId: string, mark: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await server.tmux(['capture-pane', '-p', '-t', paneId])).includes(mark)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${paneId} never printed ${mark}`);
}

const MARKS = ['MARK-W0-P0', 'MARK-W0-P1', 'MARK-W1-P0'] as const;
/** pane id of each mark's pane */
const ids: Record<string, string> = {};
let otherPane = '';

const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
    return 'OK';
  } catch (err) {
    return `${(err as { code?: string }).code ?? 'none'}: ${(err as Error).message}`;
  }
};

beforeAll(async () => {
  server = await startTmuxServer();
  adapter = createTmuxAdapter({ socketName: server.socketName, configFile: '/dev/null' });
  expect(await adapter.waitUntilConnected(10_000)).toBe(true);
  reader = whitelistReader(config, adapter);
  const s = await server.newSession('test-panes', printing(MARKS[0]), { width: 120, height: 30 });
  ids[MARKS[0]] = s.paneId;
  // Window 0 split: pane 0.1, then window 1 with pane 1.0 (the active window afterwards).
  ids[MARKS[1]] = (await server.tmux(['split-window', '-d', '-P', '-F', '#{pane_id}', '-t', s.paneId, printing(MARKS[1], 'cat')])).trim();
  ids[MARKS[2]] = (await server.tmux(['new-window', '-P', '-F', '#{pane_id}', '-t', `${s.sessionId}:1`, printing(MARKS[2])])).trim();
  // A hostile window name: tmux syntax, a leading dash, a format (rename-window expands
  // formats once: `##` stores a literal `#{pane_id}`, which listing must not expand).
  await server.tmux(['rename-window', '-t', ids[MARKS[2]]!, '--', '-x; kill-server ##{pane_id}']);
  otherPane = (await server.newSession('test-other', printing('MARK-OTHER'))).paneId;
  await server.newSession('private-panes', printing('MARK-PRIVATE'));
  for (const mark of MARKS) await printed(ids[mark]!, mark);
  await printed(otherPane, 'MARK-OTHER');
});

afterAll(async () => {
  await adapter?.close();
  await server?.kill();
});

describe('reading one pane of a session', () => {
  it('lists every window and pane, the active one marked, names as data', async () => {
    const listed = await reader.panes('test-panes');
    expect(listed.session).toBe('test-panes');
    const rows = listed.panes.map((p) => [`${p.window}.${p.pane}`, p.pane_id, p.active]);
    expect(rows).toEqual([
      ['0.0', ids[MARKS[0]], false],
      ['0.1', ids[MARKS[1]], false],
      ['1.0', ids[MARKS[2]], true],
    ]);
    expect(listed.panes[2]!.window_name).toBe('-x; kill-server #{pane_id}');
    expect(listed.panes.every((p) => p.width > 0 && p.height > 0 && p.current_command !== '')).toBe(true);
  });

  it('reads each pane exactly, by pane id and by window.pane', async () => {
    const byIndex = ['0.0', '0.1', '1.0'];
    for (const [i, mark] of MARKS.entries()) {
      for (const pane of [ids[mark]!, byIndex[i]!]) {
        const tail = await reader.tail('test-panes', 20, true, pane);
        expect(tail.pane_id).toBe(ids[mark]);
        expect(tail.text).toContain(mark);
        for (const other of MARKS.filter((m) => m !== mark)) expect(tail.text).not.toContain(other);
        const capture = await reader.capture('test-panes', { start: 0 }, true, pane);
        expect(capture.pane_id).toBe(ids[mark]);
        expect(capture.text).toContain(mark);
        // The status of exactly that pane (only pane 0.1 runs cat).
        expect((await reader.status('test-panes', pane)).current_command).toBe(mark === MARKS[1] ? 'cat' : 'sleep');
      }
    }
    // Without pane: the active pane, as before.
    const active = await reader.tail('test-panes', 20);
    expect(active.pane_id).toBe(ids[MARKS[2]]);
  });

  it('refuses hostile pane values in the contract and again in the broker', async () => {
    for (const hostile of ['%1;kill', '-t', '#{pane_id}', '1.2 ', ':1', '%', '1', '1.', '.1', '%-1', 'test-panes:1.0', '{marked}', '%1\n', '0x1.0', '1.0.0', '!', '%99999999999']) {
      expect(paneRefSchema.safeParse(hostile).success, hostile).toBe(false);
      expect(tailInputSchema.safeParse({ session: 'test-panes', pane: hostile }).success).toBe(false);
      expect(statusInputSchema.safeParse({ session: 'test-panes', pane: hostile }).success).toBe(false);
      expect(await codeOf(reader.tail('test-panes', 5, true, hostile)), hostile).toMatch(/^INVALID_ARGUMENT/);
      expect(await codeOf(reader.status('test-panes', hostile)), hostile).toMatch(/^INVALID_ARGUMENT/);
    }
    expect(paneRefSchema.safeParse('%12').success && paneRefSchema.safeParse('3.14').success).toBe(true);
  });

  it('refuses a pane of another session exactly like a pane that does not exist', async () => {
    const foreign = await codeOf(reader.tail('test-panes', 5, true, otherPane));
    expect(foreign).toMatch(/^SESSION_NOT_FOUND/);
    expect(foreign).not.toContain('MARK-OTHER');
    expect(await codeOf(reader.tail('test-panes', 5, true, '%987654'))).toBe(foreign);
    expect(await codeOf(reader.capture('test-panes', {}, true, otherPane))).toBe(foreign);
    expect(await codeOf(reader.status('test-panes', otherPane))).toBe(foreign);
    expect(await codeOf(reader.tail('test-panes', 5, true, '7.0'))).toBe(foreign);
  });

  it('says nothing about the panes of a session the caller may not read', async () => {
    const refused = await codeOf(reader.tail('private-panes', 5));
    expect(refused).toMatch(/^SESSION_NOT_ALLOWED/);
    expect(await codeOf(reader.tail('private-panes', 5, true, '0.0'))).toBe(refused);
    expect(await codeOf(reader.tail('private-panes', 5, true, '9.9'))).toBe(refused);
    expect(await codeOf(reader.panes('private-panes'))).toBe(refused);
  });
});
