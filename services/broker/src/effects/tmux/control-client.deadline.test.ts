// A slow tmux command fails alone: past its deadline its caller gets TIMEOUT, the commands in flight with it and after it get their own replies, and the control connection is not dropped (no reconnect, same control process); a stream silent past stallMs is still started over.
import { writeFileSync } from 'node:fs';
import { readAppErrorData } from '@terminal-mcp/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTmuxServer, type TmuxTestServer } from '../../../../../test/src/helpers/tmux-server.js';
import { TmuxControlClient, type ControlState } from './control-client.js';

let server: TmuxTestServer;

beforeAll(async () => {
  server = await startTmuxServer();
  await server.newSession('deadline', 'exec sleep 300', { width: 80, height: 10 });
});

afterAll(async () => {
  await server?.kill();
});

describe('per-command deadlines', () => {
  it('fails only the slow command; the others are answered and the connection stays', async () => {
    const client = new TmuxControlClient({ socketName: server.socketName, configFile: '/dev/null' });
    const states: ControlState[] = [];
    client.onStateChange((s) => states.push(s));
    try {
      client.start();
      expect(await client.waitUntilConnected(30_000)).toBe(true);
      const pidBefore = client.connection?.serverPid;
      states.length = 0;
      // run-shell without -b answers at once but holds this client's command queue until
      // the shell command ends: the command after it is a real slow reply (a marker file
      // says when it may end, no timing guess).
      const gate = `/tmp/tmcp-deadline-${process.pid}-${Date.now()}`;
      await client.run(`run-shell "while [ ! -e ${gate} ]; do sleep 0.1; done; rm -f ${gate}"`, { timeoutMs: 60_000 });
      const slow = client.run("display-message -p 'the-slow-one'", { timeoutMs: 300 });
      const behind = client.run("display-message -p 'behind-the-slow-one'", { timeoutMs: 60_000 });
      const err = await slow.then(
        () => null,
        (e: unknown) => e,
      );
      expect(readAppErrorData(err)?.code).toBe('TIMEOUT');
      // The slow one is over its deadline; let it end now.
      writeFileSync(gate, '');
      const reply = await behind;
      expect(reply).toMatchObject({ ok: true, lines: ['behind-the-slow-one'] });
      expect(await client.run("display-message -p 'after'", { timeoutMs: 60_000 })).toMatchObject({ ok: true, lines: ['after'] });
      expect(states).toEqual([]);
      expect(client.state).toBe('connected');
      expect(client.connection?.serverPid).toBe(pidBefore);
    } finally {
      await client.close();
    }
  }, 90_000);

  it('starts over when tmux sent nothing for stallMs while a command waited', async () => {
    const client = new TmuxControlClient({ socketName: server.socketName, configFile: '/dev/null', stallMs: 0 });
    const states: ControlState[] = [];
    client.onStateChange((s) => states.push(s));
    try {
      client.start();
      expect(await client.waitUntilConnected(30_000)).toBe(true);
      states.length = 0;
      const gate = `/tmp/tmcp-deadline-stall-${process.pid}-${Date.now()}`;
      await client.run(`run-shell "while [ ! -e ${gate} ]; do sleep 0.1; done; rm -f ${gate}"`, { timeoutMs: 60_000 });
      const err = await client.run("display-message -p 'the-slow-one'", { timeoutMs: 300 }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(readAppErrorData(err)?.code).toBe('TIMEOUT');
      expect(states[0]).toBe('disconnected');
      expect(await client.waitUntilConnected(30_000)).toBe(true);
      // The old server-side client may still be waiting in run-shell: end it.
      writeFileSync(gate, '');
    } finally {
      await client.close();
    }
  }, 90_000);
});
