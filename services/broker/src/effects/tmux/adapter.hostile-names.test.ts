// Hostile session names (flags, separators, format and shell syntax, prefixes, unicode, id look-alikes) are listed back exactly, each as its own session, and nothing in them is ever executed.
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTmuxServer, type TmuxTestServer, type TmuxTestSession } from '../../../../../test/src/helpers/tmux-server.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from './adapter.js';

const marker = `/tmp/pwn-${process.pid}-${randomBytes(6).toString('hex')}`;

const HOSTILE_NAMES = [
  '-t',
  '-',
  '--',
  'foo;',
  ';',
  'a;b',
  'a ; kill-server',
  `x#(touch ${marker})y`,
  `$(touch ${marker})`,
  `\`touch ${marker}\``,
  '#{session_id}',
  '##',
  'trailing#',
  'foo',
  'foobar',
  'fo*',
  'f?o',
  '[f]oo',
  'with space',
  ' leading and trailing space ',
  'phiên-làm-việc ✓',
  '日本語セッション',
  '$1',
  '$0',
  '%1',
  '@1',
  '%end 1 2 1',
  `it's "quoted"`,
  '{braces}',
  '~home',
];

/** Names tmux 3.3a itself rewrites when it stores them: we report what tmux has. */
const REWRITTEN: [string, string][] = [
  ['a:b.c', 'a_b_c'],
  ['tab\there', 'tab\\there'],
  ['new\nline', 'new\\nline'],
  ['back\\slash', 'back\\\\slash'],
  ['bell\u0007', 'bell\\a'],
  ['ctl\u0001', 'ctl\\001'],
  ['del\u007f', 'del\\177'],
  ['esc\u001b[31m', 'esc\\033[31m'],
];

let server: TmuxTestServer;
let adapter: ControlModeTmuxAdapter;
const created = new Map<string, TmuxTestSession>();

beforeAll(async () => {
  server = await startTmuxServer();
  for (const name of [...HOSTILE_NAMES, ...REWRITTEN.map(([input]) => input)]) {
    created.set(name, await server.newSession(name, 'sleep 300', { width: 80, height: 24 }));
  }
  adapter = createTmuxAdapter({ socketName: server.socketName, configFile: '/dev/null' });
});

afterAll(async () => {
  await adapter?.close();
  await server?.kill();
});

describe('hostile session names', () => {
  it('are created with exactly the name asked for (test helper check)', () => {
    for (const name of HOSTILE_NAMES) expect(created.get(name)?.name).toBe(name);
  });

  it('are listed back exactly, each once, with the id tmux gave it', async () => {
    const sessions = await adapter.listSessions();
    for (const name of HOSTILE_NAMES) {
      const matches = sessions.filter((s) => s.name === name);
      expect(matches, JSON.stringify(name)).toHaveLength(1);
      expect(matches[0]?.sessionId).toBe(created.get(name)?.sessionId);
      expect(matches[0]?.activePane?.paneId).toBe(created.get(name)?.paneId);
      expect(matches[0]?.activePane?.currentCommand).toBe('sleep');
    }
    expect(sessions).toHaveLength(HOSTILE_NAMES.length + REWRITTEN.length);
  });

  it('come back as tmux stored them where tmux rewrites the name', async () => {
    const names = new Set((await adapter.listSessions()).map((s) => s.name));
    for (const [input, stored] of REWRITTEN) {
      expect(created.get(input)?.name).toBe(stored);
      expect(names.has(stored), JSON.stringify(stored)).toBe(true);
    }
  });

  it('never run the commands they contain', async () => {
    await adapter.listSessions();
    for (const s of created.values()) {
      await adapter.paneFacts(s.paneId);
      await adapter.capturePane(s.paneId);
    }
    // #() jobs run asynchronously: give one the time it would need.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await adapter.listSessions();
    expect(existsSync(marker)).toBe(false);
  });
});
