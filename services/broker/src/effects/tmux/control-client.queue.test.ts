// Many concurrent commands through the one control client each get their own reply, in order, even with the user's after-* hooks adding blocks of their own.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTmuxServer, type TmuxTestServer, type TmuxTestSession } from '../../../../../test/src/helpers/tmux-server.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from './adapter.js';
import { TmuxControlClient } from './control-client.js';

let server: TmuxTestServer;
let adapter: ControlModeTmuxAdapter;
const panes: { session: TmuxTestSession; marker: string }[] = [];

beforeAll(async () => {
  server = await startTmuxServer();
  adapter = createTmuxAdapter({ socketName: server.socketName, configFile: '/dev/null' });
  for (let i = 0; i < 5; i++) {
    const marker = `MARKER-${i}-${Math.random().toString(36).slice(2)}`;
    // The pane prints its marker and then waits: its screen never changes again.
    const session = await server.newSession(`queue-${i}`, `printf '%s\\n' ${marker}; exec sleep 300`, { width: 80, height: 10 });
    panes.push({ session, marker });
  }
  for (const p of panes) {
    await vi.waitFor(async () => expect(await adapter.capturePane(p.session.paneId)).toContain(p.marker), { timeout: 60_000 });
  }
});

afterAll(async () => {
  await adapter?.close();
  await server?.kill();
});

async function runMixed(count: number): Promise<void> {
  const calls = Array.from({ length: count }, async (_, i) => {
    const p = panes[i % panes.length] as (typeof panes)[number];
    switch (i % 3) {
      case 0: {
        const text = await adapter.capturePane(p.session.paneId);
        expect(text).toContain(p.marker);
        for (const other of panes) if (other !== p) expect(text).not.toContain(other.marker);
        return;
      }
      case 1: {
        const facts = await adapter.paneFacts(p.session.paneId);
        expect(facts?.paneId).toBe(p.session.paneId);
        expect(facts?.currentCommand).toBe('sleep');
        return;
      }
      default: {
        const sessions = await adapter.listSessions();
        expect(sessions.map((s) => s.name).sort()).toEqual(panes.map((x) => x.session.name).sort());
        for (const s of sessions) {
          expect(s.activePane?.paneId).toBe(panes.find((x) => x.session.sessionId === s.sessionId)?.session.paneId);
        }
      }
    }
  });
  await Promise.all(calls);
}

describe('command queue', () => {
  it('resolves 200 concurrent capture, facts and list calls with their own replies', async () => {
    await runMixed(200);
  });

  it('keeps replies matched when after-* hooks print blocks of their own', async () => {
    await server.tmux(['set-hook', '-g', 'after-display-message', 'display-message -p hooked-display']);
    await server.tmux(['set-hook', '-g', 'after-capture-pane', 'list-sessions']);
    await server.tmux(['set-hook', '-g', 'after-list-panes', 'display-message -p hooked-panes']);
    try {
      // the hooks do fire (a command-line client prints their output too)
      expect(await server.tmux(['display-message', '-p', 'x'])).toBe('x\nhooked-display');
      await runMixed(200);
    } finally {
      for (const hook of ['after-display-message', 'after-capture-pane', 'after-list-panes']) {
        await server.tmux(['set-hook', '-gu', hook]);
      }
    }
  });

  it('stays in order across many sequential round trips', async () => {
    for (let i = 0; i < 100; i++) {
      const p = panes[i % panes.length] as (typeof panes)[number];
      expect((await adapter.paneFacts(p.session.paneId))?.paneId).toBe(p.session.paneId);
    }
  });
});

describe('TmuxControlClient', () => {
  it('reports tmux errors as ok: false replies and refuses multi-line commands', async () => {
    const client = new TmuxControlClient({ socketName: server.socketName, configFile: '/dev/null' });
    client.start();
    try {
      expect(await client.waitUntilConnected(10_000)).toBe(true);
      expect(client.connection?.hiddenSessionId).toMatch(/^\$\d+$/);
      const bad = await client.run('no-such-command');
      expect(bad.ok).toBe(false);
      expect(bad.lines.join(' ')).toContain('unknown command');
      await expect(client.run("display-message -p 'a'\nkill-server")).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect(await client.run("display-message -p 'still here'")).toEqual({ ok: true, lines: ['still here'] });
    } finally {
      await client.close();
    }
  });

  it('passes notifications to subscribers', async () => {
    const client = new TmuxControlClient({ socketName: server.socketName, configFile: '/dev/null' });
    const seen: string[] = [];
    client.onNotification((n) => seen.push(n.name));
    client.start();
    try {
      expect(await client.waitUntilConnected(10_000)).toBe(true);
      const extra = await server.newSession('notify-me', 'sleep 300');
      await vi.waitFor(() => expect(seen).toContain('sessions-changed'), { timeout: 60_000 });
      await server.tmux(['kill-session', '-t', extra.sessionId]);
    } finally {
      await client.close();
    }
  });
});
