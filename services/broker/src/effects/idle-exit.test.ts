// Guards idle exit: the setting is parsed strictly (a typo is an error, not "never"), and the watch fires only after no connection has been open for the whole idle period.
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../config/parse.js';
import { idleExitSeconds, watchForIdle } from './idle-exit.js';

describe('TERMINAL_MCP_BROKER_IDLE_EXIT_SECONDS', () => {
  it.each([
    [undefined, 0],
    ['', 0],
    ['0', 0],
    ['300', 300],
  ])('%j means %d', (raw, seconds) => {
    expect(idleExitSeconds(raw === undefined ? {} : { TERMINAL_MCP_BROKER_IDLE_EXIT_SECONDS: raw })).toBe(seconds);
  });

  it.each(['5m', '-1', '1.5', 'never', '99999999'])('refuses %j', (raw) => {
    expect(() => idleExitSeconds({ TERMINAL_MCP_BROKER_IDLE_EXIT_SECONDS: raw })).toThrow(ConfigError);
  });
});

describe('watchForIdle', () => {
  let dir: string;
  let server: Server | undefined;
  let client: Socket | undefined;
  afterEach(async () => {
    client?.destroy();
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
    rmSync(dir, { recursive: true, force: true });
  });

  it('does not fire while a client stays connected; fires once it has gone for the idle period', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tmcp-idle-'));
    const path = join(dir, 's.sock');
    server = createServer((s) => s.on('error', () => undefined));
    await new Promise<void>((r) => server!.listen(path, r));
    let fired = 0;
    client = createConnection(path);
    await new Promise((r) => client!.once('connect', r));
    const watch = watchForIdle([server], 1, () => fired++);
    try {
      await new Promise((r) => setTimeout(r, 3_000));
      expect(fired).toBe(0);
      client!.destroy();
      const deadline = Date.now() + 30_000;
      while (fired === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(fired).toBe(1);
      expect(watch.openConnections()).toBe(0);
    } finally {
      watch.close();
    }
  }, 60_000);
});
