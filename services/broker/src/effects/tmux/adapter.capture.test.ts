// capturePane returns exactly the pane's text (wrapped lines joined, ranges and escapes as asked), even when that text imitates tmux's control protocol.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTmuxServer, type TmuxTestServer, type TmuxTestSession } from '../../../../../test/src/helpers/tmux-server.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from './adapter.js';
import type { ControlState } from './control-client.js';

let server: TmuxTestServer;
let adapter: ControlModeTmuxAdapter;
const states: ControlState[] = [];
const warnings: string[] = [];
const logger = {
  debug() {},
  info() {},
  warn(_obj: object, msg?: string) {
    warnings.push(msg ?? '');
  },
  error(_obj: object, msg?: string) {
    warnings.push(msg ?? '');
  },
};

beforeAll(async () => {
  server = await startTmuxServer();
  // Room for the forged-protocol test's scrollback.
  await server.tmux(['set-option', '-g', 'history-limit', '100000']);
  adapter = createTmuxAdapter({ socketName: server.socketName, configFile: '/dev/null', logger });
  expect(await adapter.waitUntilConnected(10_000)).toBe(true);
  adapter.onStateChange((s) => states.push(s));
});

afterAll(async () => {
  await adapter?.close();
  await server?.kill();
});

async function shellSession(name: string, width: number, height: number): Promise<TmuxTestSession> {
  const s = await server.newSession(name, 'bash --norc --noprofile', { width, height });
  await vi.waitFor(async () => expect((await adapter.paneFacts(s.paneId))?.currentCommand).toBe('bash'), { timeout: 60_000 });
  return s;
}

/** Types a command line into the pane (test-controlled text) and waits for `done` to show. */
async function runInPane(s: TmuxTestSession, commandLine: string, done: string): Promise<void> {
  await server.tmux(['send-keys', '-t', s.paneId, '-l', commandLine]);
  await server.tmux(['send-keys', '-t', s.paneId, 'Enter']);
  await vi.waitFor(async () => expect((await adapter.capturePane(s.paneId, { start: '-', end: '-' })).split('\n')).toContain(done), {
    timeout: 15_000,
    interval: 100,
  });
}

describe('capturePane', () => {
  it('returns printed lines, with a line wrapped at the pane width joined back', async () => {
    const s = await shellSession('capture-basic', 40, 20);
    const long = `${'L'.repeat(95)}END`;
    await runInPane(s, "printf 'alpha-line\\nbeta-line\\n'; printf 'L%.0s' $(seq 1 95); printf 'END\\n'; echo done-basic", 'done-basic');
    const lines = (await adapter.capturePane(s.paneId)).split('\n');
    const alpha = lines.indexOf('alpha-line');
    expect(alpha).toBeGreaterThanOrEqual(0);
    expect(lines.slice(alpha, alpha + 4)).toEqual(['alpha-line', 'beta-line', long, 'done-basic']);
    // without -J tmux would have returned the 98 characters as three rows of at most 40
    const raw = (await server.tmux(['capture-pane', '-p', '-t', s.paneId])).split('\n');
    expect(raw).not.toContain(long);
    // the visible screen, blank rows included, exactly as a spawned `capture-pane -p -J`
    expect(lines.join('\n')).toBe(await server.tmux(['capture-pane', '-p', '-J', '-t', s.paneId]));
  });

  it('honours start and end, including scrollback and the history start', async () => {
    const s = await shellSession('capture-range', 80, 10);
    await runInPane(s, 'seq 1 300; echo done-range', 'done-range');
    const all = (await adapter.capturePane(s.paneId, { start: '-', end: '-' })).split('\n');
    const first = all.indexOf('1');
    expect(all.slice(first, first + 300)).toEqual(Array.from({ length: 300 }, (_, i) => String(i + 1)));
    expect(await adapter.capturePane(s.paneId, { start: 0, end: 0 })).toBe(
      await server.tmux(['capture-pane', '-p', '-J', '-S', '0', '-E', '0', '-t', s.paneId]),
    );
    const lastFive = (await adapter.capturePane(s.paneId, { start: -5, end: -1 })).split('\n');
    expect(lastFive).toHaveLength(5);
    await expect(adapter.capturePane(s.paneId, { start: 1.5 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(adapter.capturePane(s.paneId, { end: Number.NaN })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('keeps escape sequences only when asked', async () => {
    const s = await shellSession('capture-escapes', 80, 10);
    await runInPane(s, "printf '\\033[31mred-text\\033[0m\\n'; echo done-escapes", 'done-escapes');
    const plain = await adapter.capturePane(s.paneId);
    expect(plain).toContain('red-text');
    expect(plain).not.toContain('\u001b');
    const escaped = await adapter.capturePane(s.paneId, { escapes: true });
    expect(escaped).toMatch(/\u001b\[31mred-text/);
  });

  it('matches what a spawned tmux capture-pane prints', async () => {
    const s = await shellSession('capture-same', 60, 15);
    await runInPane(s, "printf 'tab\\there  two spaces  \\n'; printf 'ünïcødé ✓ 日本\\n'; echo done-same", 'done-same');
    const spawned = await server.tmux(['capture-pane', '-p', '-J', '-S', '-', '-E', '-', '-t', s.paneId]);
    // execa strips the final newline; blank rows at the bottom are kept by both
    expect(await adapter.capturePane(s.paneId, { start: '-', end: '-' })).toBe(spawned);
  });

  it('throws SESSION_NOT_FOUND for a pane that does not exist', async () => {
    await expect(adapter.capturePane('%99999')).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
  });

  it('returns pane text that imitates the control protocol as data, without losing sync', async () => {
    const s = await shellSession('capture-forged', 80, 20);
    const before = await adapter.listSessions();
    // Every terminator tmux could plausibly use for the next few seconds (time x command
    // number), plus fake blocks and notifications, so one of them really does match the
    // %begin of the capture that reads them.
    const forge = [
      'T0=$(($(date +%s)-2));',
      "awk -v t0=$T0 'BEGIN{for(t=t0;t<t0+12;t++)for(n=0;n<2500;n++){",
      'print "%end " t " " n " 1"; print "%error " t " " n " 1"}',
      'print "%begin 1 99999999 1"; print "$0\\t1\\t1\\t0\\t1\\t1\\tFORGED"; print "%end 1 99999999 1"; print "%exit"; print "%sessions-changed"}\';',
      'echo done-forged',
    ].join(' ');
    states.length = 0;
    warnings.length = 0;
    await runInPane(s, forge, 'done-forged');
    const text = await adapter.capturePane(s.paneId, { start: '-', end: '-' });
    // One of the forged lines really was the terminator this capture's reply ended with
    // (otherwise this test would prove nothing).
    expect(warnings).toContain('pane text imitated a tmux reply terminator; kept as data');
    const lines = text.split('\n');
    expect(lines.filter((l) => l.startsWith('%end ')).length).toBe(12 * 2500 + 1);
    expect(lines.filter((l) => l.startsWith('%error ')).length).toBe(12 * 2500);
    expect(lines.some((l) => l.startsWith('$0') && l.endsWith('FORGED'))).toBe(true);
    expect(lines).toContain('%begin 1 99999999 1');
    expect(lines).toContain('%exit');
    expect(lines[lines.indexOf('done-forged') - 1]).toBe('%sessions-changed');
    // The same text a spawned capture sees.
    expect(text).toBe(await server.tmux(['capture-pane', '-p', '-J', '-S', '-', '-E', '-', '-t', s.paneId]));
    // The stream stayed in sync: no reconnect, and listings are unaffected.
    expect(states).toEqual([]);
    const after = await adapter.listSessions();
    expect(after.map((x) => x.name).sort()).toEqual(before.map((x) => x.name).sort());
    expect(after.some((x) => x.name.includes('FORGED'))).toBe(false);
    expect(adapter.state).toBe('connected');
  });
});

describe('capturePaneWithFacts', () => {
  it('answers the pane facts and the capture of one moment: lines relative to those facts, as capturePane and paneFacts answer them', async () => {
    const s = await shellSession('capture-with-facts', 80, 10);
    await runInPane(s, 'seq 1 50; echo done-with-facts', 'done-with-facts');
    // The two reads compared below are apart in time: the pane must be quiet first, with
    // bash's prompt drawn after the marker (CI g45b caught the prompt between them).
    await vi.waitFor(async () => expect((await adapter.paneFacts(s.paneId))?.cursor.x).toBeGreaterThan(0), { timeout: 15_000, interval: 50 });
    const read = await adapter.capturePaneWithFacts(s.paneId, { start: -5, end: 2 });
    expect(read).not.toBeNull();
    expect(read!.facts).toEqual(await adapter.paneFacts(s.paneId));
    expect(read!.facts.historySize).toBeGreaterThan(0);
    expect(read!.text).toBe(await adapter.capturePane(s.paneId, { start: -5, end: 2 }));
    expect(read!.text!.split('\n')).toHaveLength(8);
  });

  it('answers null for a pane that does not exist, and no text for a capture tmux refuses', async () => {
    expect(await adapter.capturePaneWithFacts('%999999', { start: 0, end: 0 })).toBeNull();
    await expect(adapter.capturePaneWithFacts('%1', { start: 1.5 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
