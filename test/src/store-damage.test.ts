// Guards "a damaged store is never used silently" end to end: a broker on a damaged audit.db refuses every input (nothing typed) and says not ready, and one on a garbled registry.db does not start and names the file and the next step.
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createGatewayLogger, ERROR_META_KEY, startGatewayHttp, type RunningGatewayHttp } from '@terminal-mcp/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';
import { waitFor } from './helpers/wait-for.js';

const CONFIG = {
  permissions: { terminal_read: true, terminal_input: true },
  allowed_session_patterns: ['agent-*'],
  input_policy: { allowed_session_patterns: ['agent-*'] },
  log_level: 'warn',
};
const TOKEN = 'store-damage-token';

/** Gives a store about 600 KB of rows (so its middle is table pages, not its header or
 * schema), then overwrites 8 KB in the middle, as the fault round did. */
function damageMiddle(file: string): void {
  const db = new Database(file);
  db.exec('CREATE TABLE IF NOT EXISTS bulk (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO bulk (body) VALUES (?)');
  db.transaction(() => {
    for (let i = 0; i < 600; i++) insert.run(`row ${i} `.padEnd(1000, 'x'));
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.alloc(8192, 0xa5), 0, 8192, Math.floor(statSync(file).size / 2));
  closeSync(fd);
}

const errorCodeOf = (r: CallToolResult) => (r._meta?.[ERROR_META_KEY] as { error_code?: string } | undefined)?.error_code;

describe('a damaged audit.db', () => {
  let tmux: TmuxTestServer;
  let broker: BrokerProcess;
  let gw: RunningGatewayHttp;
  let client: Client;
  let root: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'tmcp-damage-'));
    tmux = await startTmuxServer();
    const first = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: CONFIG });
    broker = await first.restart({ whileStopped: async () => damageMiddle(join(first.stateDir, 'audit.db')) });
    gw = await startGatewayHttp({ port: 0, env: broker.env, log: createGatewayLogger('silent'), token: TOKEN });
    client = new Client({ name: 'store-damage', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  });
  afterAll(async () => {
    await client?.close();
    await gw?.close();
    await broker?.stop();
    await tmux?.kill();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('makes readiness false, naming audit.db and terminal-mcp doctor', async () => {
    const res = await fetch(gw.healthUrl, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(503);
    const body = (await res.json()) as { ready: boolean; stores: { name: string; ok: boolean; detail?: string }[] };
    expect(body.ready).toBe(false);
    const audit = body.stores.find((s) => s.name === 'audit')!;
    expect(audit.ok).toBe(false);
    expect(audit.detail).toMatch(/audit\.db is damaged.*terminal-mcp doctor/);
    expect(broker.stderr()).toContain('"event":"store.damaged"');
  });

  it('refuses input with AUDIT_UNAVAILABLE and types nothing, while reads still work', async () => {
    const out = join(root, 'typed.lines');
    const ready = `${out}.ready`;
    await tmux.newSession('agent-1', `exec bash --norc --noprofile -c 'touch ${ready}; while IFS= read -r line; do printf "%s\\n" "$line" >> ${out}; done'`);
    await waitFor('the pane to read lines', () => existsSync(ready));
    const sent = (await client.callTool({ name: 'terminal_send_text', arguments: { session: 'agent-1', text: 'must-not-arrive', enter: true } })) as CallToolResult;
    expect(sent.isError).toBe(true);
    expect(errorCodeOf(sent)).toBe('AUDIT_UNAVAILABLE');
    const tail = (await client.callTool({ name: 'terminal_tail', arguments: { session: 'agent-1', lines: 20 } })) as CallToolResult;
    expect(tail.isError).toBeFalsy();
    // A line typed later by the test itself arrives, so the pane was reading all along.
    await tmux.tmux(['send-keys', '-t', '=agent-1:', 'control-line', 'Enter']);
    await waitFor('the control line', () => existsSync(out) && readFileSync(out, 'utf8').includes('control-line'));
    expect(readFileSync(out, 'utf8')).not.toContain('must-not-arrive');
  });
});

describe('a garbled registry.db', () => {
  it('stops the broker at start with the file and the next step', async () => {
    const tmux = await startTmuxServer();
    try {
      const first = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: CONFIG });
      const registry = join(first.stateDir, 'registry.db');
      const failed = await first
        .restart({
          whileStopped: async () => {
            const fd = openSync(registry, 'r+');
            writeSync(fd, Buffer.alloc(100, 0xa5), 0, 100, 0);
            closeSync(fd);
          },
        })
        .then(
          (b) => b.stop().then(() => null),
          (err: Error) => err.message,
        );
      expect(failed).not.toBeNull();
      expect(failed).toContain('code 2');
      expect(failed).toContain(`${registry} is damaged`);
      expect(failed).toContain('terminal-mcp doctor');
      expect(failed).toContain('terminal-mcp restore');
    } finally {
      await tmux.kill();
    }
  });
});
