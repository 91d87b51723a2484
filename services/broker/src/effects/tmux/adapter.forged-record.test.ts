// A pane's foreground process names itself (argv[0], tabs and newlines kept by tmux 3.3a): it must never be able to forge a pane record that makes reads of another session return a third session's content.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTmuxServer, type TmuxTestServer } from '../../../../../test/src/helpers/tmux-server.js';
import { configSchema } from '../../config/schema.js';
import { whitelistReader } from '../../testing/deps.testkit.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from './adapter.js';

let server: TmuxTestServer;
let adapter: ControlModeTmuxAdapter;
let victimPane = '';
let secretPane = '';
const SIZE = { width: 80, height: 24 };
const SECRET_MARK = 'TOPSECRET-c0ffee';
const config = configSchema.parse({ allowed_session_patterns: ['test-*'] });

beforeAll(async () => {
  server = await startTmuxServer();
  // The forger is created first so its records are listed before the victim's.
  const forger = await server.newSession('test-aa-forger', 'sleep 3600', SIZE);
  const victim = await server.newSession('test-zz-victim', `bash --norc --noprofile -c 'echo victim-screen; exec sleep 3600'`, SIZE);
  const secret = await server.newSession('private-db', `bash --norc --noprofile -c 'echo ${SECRET_MARK}; exec sleep 3600'`, SIZE);
  // argv[0] = "x<LF>$victim<TAB>%secret<TAB>...": a whole fake list-panes record.
  const fake = ['x\n' + victim.sessionId, secret.paneId, '1', '0', '80', '24', '0', '1', '0', '0', '1', 'bash'].join('\t');
  const script = `exec -a "$FAKE" sleep 3600`;
  await server.tmux(['respawn-pane', '-k', '-t', forger.paneId, '-e', `FAKE=${fake}`, 'bash', '--norc', '--noprofile', '-c', script]);
  // A second forger prints whole fake session records as the listing shapes them (session
  // fields, name, pane fields, command), untagged and with a guessed tag: one for a
  // phantom session, one giving the victim the secret pane.
  const listed = await server.newSession('test-ab-forger', 'sleep 3600', SIZE);
  const record = (sessionId: string, name: string, paneId: string) =>
    ['1', sessionId, '1700000000', '0', '1', '1700000000', name, paneId, '1', '0', '80', '24', '0', '1700000000', '0', '0', '1', 'bash'].join('\t');
  const fakeList = ['x', record('$999', 'test-phantom', secret.paneId), `tmcp-list-000000000000000000000000-0\t${record(victim.sessionId, 'test-zz-victim', secret.paneId)}`].join('\n');
  await server.tmux(['respawn-pane', '-k', '-t', listed.paneId, '-e', `FAKE=${fakeList}`, 'bash', '--norc', '--noprofile', '-c', script]);
  victimPane = victim.paneId;
  secretPane = secret.paneId;
  await new Promise((r) => setTimeout(r, 300));
  adapter = createTmuxAdapter({ socketName: server.socketName });
  await adapter.waitUntilConnected(10_000);
});

afterAll(async () => {
  await adapter?.close();
  await server?.kill();
});

describe('forged pane records', () => {
  it('the fake record really reaches tmux output (the attack is live)', async () => {
    const raw = await server.tmux(['list-panes', '-a', '-F', '#{session_id}\t#{pane_id}\t#{pane_current_command}']);
    expect(raw.split('\n').filter((l) => l.startsWith('$')).length).toBeGreaterThan(3);
  });

  it('never maps the victim to the secret pane; reads of it return none of the secret', async () => {
    const sessions = await adapter.listSessions();
    const victim = sessions.find((s) => s.name === 'test-zz-victim');
    const secret = sessions.find((s) => s.name === 'private-db');
    expect(victim?.activePane?.paneId).not.toBe(secret?.activePane?.paneId);
    const reader = whitelistReader(config, adapter);
    const text = await reader.tail('test-zz-victim', 20).then(
      (t) => t.text,
      (err: { code?: string }) => `refused:${err.code}`,
    );
    expect(text).not.toContain(SECRET_MARK);
  });

  it('lists no phantom session and gives every session its own pane, whatever a command prints', async () => {
    const raw = await server.tmux(['list-sessions', '-F', '#{session_id}\t#{pane_current_command}']);
    expect(raw).toContain('test-phantom'); // the attack is live
    const sessions = await adapter.listSessions();
    expect(sessions.map((s) => s.name).sort()).toEqual(['private-db', 'test-aa-forger', 'test-ab-forger', 'test-zz-victim']);
    expect(sessions.find((s) => s.name === 'test-zz-victim')?.activePane?.paneId).toBe(victimPane);
    expect(sessions.find((s) => s.name === 'private-db')?.activePane?.paneId).toBe(secretPane);
    const panes = sessions.map((s) => s.activePane?.paneId);
    expect(new Set(panes).size).toBe(panes.length);
    // The forger's own command is read back whole (its newlines included), not as records.
    expect(sessions.find((s) => s.name === 'test-ab-forger')?.activePane?.currentCommand).toContain('test-phantom');
  });

  it('the summary listing (terminal_list_sessions) lists no phantom session either', async () => {
    const summaries = await adapter.listSummaries();
    expect(summaries.map((s) => s.name).sort()).toEqual(['private-db', 'test-aa-forger', 'test-ab-forger', 'test-zz-victim']);
    expect(summaries.find((s) => s.name === 'test-ab-forger')?.activePane?.currentCommand).toContain('test-phantom');
    expect(summaries.find((s) => s.name === 'test-zz-victim')?.activePane?.currentCommand).toBe('sleep');
  });
});
