// listSessions and paneFacts report each real session's identity, counts, times and active-pane facts as tmux has them, and never the hidden control session.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTmuxServer, type TmuxTestServer, type TmuxTestSession } from '../../../../../test/src/helpers/tmux-server.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from './adapter.js';
import { HIDDEN_SESSION_NAME } from './control-client.js';
import type { ListedSession } from './types.js';

let server: TmuxTestServer;
let adapter: ControlModeTmuxAdapter;
let shell: TmuxTestSession;
let python: TmuxTestSession;
let sleeper: TmuxTestSession;
let startedAt: number;

const SIZE = { width: 100, height: 30 };

function byName<S extends ListedSession>(sessions: S[], name: string): S {
  const found = sessions.filter((s) => s.name === name);
  expect(found, `exactly one session named ${name}`).toHaveLength(1);
  return found[0] as S;
}

beforeAll(async () => {
  startedAt = Math.floor(Date.now() / 1000);
  server = await startTmuxServer();
  shell = await server.newSession('shell', 'bash --norc --noprofile', SIZE);
  python = await server.newSession('python', 'python3 -q', SIZE);
  sleeper = await server.newSession('sleeper', 'sleep 300', SIZE);
  // A second, inactive window: counted, but the active pane stays the first one's.
  await server.tmux(['new-window', '-d', '-t', shell.sessionId, 'sleep 301']);
  adapter = createTmuxAdapter({ socketName: server.socketName, configFile: '/dev/null' });
});

afterAll(async () => {
  await adapter?.close();
  await server?.kill();
});

describe('listSessions', () => {
  it('reports name, id, created, attached, windows, activity, server pid and the active pane', async () => {
    const serverPid = Number(await server.tmux(['display-message', '-p', '#{pid}']));
    await vi.waitFor(
      async () => {
        const sessions = await adapter.listSessions();
        expect(byName(sessions, 'shell').activePane?.currentCommand).toBe('bash');
        expect(byName(sessions, 'python').activePane?.currentCommand).toBe('python3');
        expect(byName(sessions, 'sleeper').activePane?.currentCommand).toBe('sleep');
      },
      { timeout: 60_000, interval: 100 },
    );
    // A pane may print while we look (python's prompt, a shell's redraw), so the listed
    // activity is checked against readings taken just before and just after it.
    const activityOf = async (paneId: string) =>
      Math.max(...(await server.tmux(['display-message', '-p', '-t', paneId, '#{W:#{window_activity} }'])).trim().split(' ').map(Number));
    const activityBefore = new Map<string, number>();
    for (const created of [shell, python, sleeper]) activityBefore.set(created.name, await activityOf(created.paneId));
    const sessions = await adapter.listSessions();
    const now = Math.floor(Date.now() / 1000);
    expect(sessions.map((s) => s.name).sort()).toEqual(['python', 'shell', 'sleeper']);

    for (const created of [shell, python, sleeper]) {
      const s = byName(sessions, created.name);
      const [pid, createdAt, panePid] = (await server.tmux(['display-message', '-p', '-t', created.paneId, '#{pid} #{session_created} #{pane_pid}']))
        .trim()
        .split(' ')
        .map(Number);
      expect(s.sessionId).toBe(created.sessionId);
      expect(s.serverPid).toBe(serverPid);
      expect(s.serverPid).toBe(pid);
      expect(s.created).toBe(createdAt);
      expect(s.created).toBeGreaterThanOrEqual(startedAt - 2);
      expect(s.created).toBeLessThanOrEqual(now + 2);
      // The session's last output: the latest activity of any of its windows.
      expect(s.activity).toBeGreaterThanOrEqual(activityBefore.get(created.name)!);
      expect(s.activity).toBeLessThanOrEqual(await activityOf(created.paneId));
      expect(s.attached).toBe(0);
      expect(s.windows).toBe(created === shell ? 2 : 1);
      expect(s.activePane).toMatchObject({ paneId: created.paneId, panePid, inMode: false, width: 100, height: 30 });
      expect(s.activePane?.historySize).toBeGreaterThanOrEqual(0);
    }
  });

  it('never lists the hidden control session, though tmux has it', async () => {
    expect(await adapter.waitUntilConnected(10_000)).toBe(true);
    const tmuxNames = (await server.tmux(['list-sessions', '-F', '#{session_name}'])).split('\n');
    expect(tmuxNames).toContain(HIDDEN_SESSION_NAME);
    const names = (await adapter.listSessions()).map((s) => s.name);
    expect(names).not.toContain(HIDDEN_SESSION_NAME);
  });

  it('reports copy mode as inMode, in listSessions and paneFacts', async () => {
    await server.tmux(['copy-mode', '-t', sleeper.paneId]);
    expect(byName(await adapter.listSessions(), 'sleeper').activePane?.inMode).toBe(true);
    expect((await adapter.paneFacts(sleeper.paneId))?.inMode).toBe(true);
    await server.tmux(['send-keys', '-t', sleeper.paneId, '-X', 'cancel']);
    expect(byName(await adapter.listSessions(), 'sleeper').activePane?.inMode).toBe(false);
    expect((await adapter.paneFacts(sleeper.paneId))?.inMode).toBe(false);
  });

  it('keeps records intact when a current command contains a tab and a newline', async () => {
    // pane_current_command is argv[0] of the foreground process, not escaped by tmux.
    const odd = await server.newSession('odd-argv0', 'bash --norc --noprofile', SIZE);
    await server.tmux(['send-keys', '-t', odd.paneId, '-l', "exec -a $'evil\\tna\\nme' sleep 300"]);
    await server.tmux(['send-keys', '-t', odd.paneId, 'Enter']);
    await vi.waitFor(async () => expect((await adapter.paneFacts(odd.paneId))?.currentCommand).toBe('evil\tna\nme'), {
      timeout: 10_000,
      interval: 100,
    });
    const sessions = await adapter.listSessions();
    expect(byName(sessions, 'odd-argv0').activePane).toMatchObject({ paneId: odd.paneId, currentCommand: 'evil\tna\nme' });
    expect(sessions.map((s) => s.name).sort()).toEqual(['odd-argv0', 'python', 'shell', 'sleeper']);
    for (const s of sessions) expect(s.activePane).not.toBeNull();
    const summaries = await adapter.listSummaries();
    expect(byName(summaries, 'odd-argv0').activePane).toEqual({ inMode: false, currentCommand: 'evil\tna\nme' });
    expect(summaries.map((s) => s.name).sort()).toEqual(['odd-argv0', 'python', 'shell', 'sleeper']);
    await server.tmux(['kill-session', '-t', odd.sessionId]);
  });
});

describe('listSummaries', () => {
  it('reports the same session facts as listSessions, and of the active pane only copy mode and the command', async () => {
    await server.tmux(['copy-mode', '-t', sleeper.paneId]);
    try {
      // Facts that do not move between two back-to-back listings (activity may tick).
      const stable = (s: { name: string; sessionId: string; serverPid: number; created: number; attached: number; windows: number; activePane: { inMode: boolean; currentCommand: string } | null }) => ({
        name: s.name,
        sessionId: s.sessionId,
        serverPid: s.serverPid,
        created: s.created,
        attached: s.attached,
        windows: s.windows,
        activePane: s.activePane && { inMode: s.activePane.inMode, currentCommand: s.activePane.currentCommand },
      });
      const full = (await adapter.listSessions()).map(stable).sort((a, b) => a.name.localeCompare(b.name));
      const summaries = await adapter.listSummaries();
      expect(summaries.map(stable).sort((a, b) => a.name.localeCompare(b.name))).toEqual(full);
      expect(byName(summaries, 'sleeper').activePane).toEqual({ inMode: true, currentCommand: 'sleep' });
      expect(Object.keys(byName(summaries, 'shell').activePane ?? {}).sort()).toEqual(['currentCommand', 'inMode']);
      expect(summaries.map((s) => s.name)).not.toContain(HIDDEN_SESSION_NAME);
    } finally {
      await server.tmux(['send-keys', '-t', sleeper.paneId, '-X', 'cancel']);
    }
  });
});

describe('paneFacts', () => {
  it('reads one pane by id', async () => {
    const facts = await adapter.paneFacts(python.paneId);
    const panePid = Number(await server.tmux(['display-message', '-p', '-t', python.paneId, '#{pane_pid}']));
    expect(facts).toMatchObject({ paneId: python.paneId, panePid, currentCommand: 'python3', inMode: false, width: 100, height: 30 });
  });

  it('answers null for a pane that does not exist', async () => {
    expect(await adapter.paneFacts('%99999')).toBeNull();
  });

  it('refuses anything but a pane id before it reaches tmux', async () => {
    for (const bad of ['7', '%7;kill-server', '%7 ', '-t', '$1', '%', '%7\nkill-server', "%7' ; kill-server '", 'shell']) {
      await expect(adapter.paneFacts(bad)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      await expect(adapter.capturePane(bad)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    }
    // and the server is still there
    expect((await adapter.listSessions()).length).toBe(3);
  });
});

describe('health', () => {
  it('reports ok with the tmux version while connected', async () => {
    const health = await adapter.health();
    expect(health.ok).toBe(true);
    expect(health.detail).toContain('3.3');
  });
});
