// Guards "a full disk is said, never silent" end to end on a real full state directory (a tmpfs, as root): note_create answers STORE_FULL, readiness and `terminal-mcp status` say recording is failing, and once space is back terminal_read_since and the export mark the lost span write_failed.
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createGatewayLogger, ERROR_META_KEY, startGatewayHttp, type RunningGatewayHttp } from '@terminal-mcp/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { readAnswerOf, textOf } from './helpers/answer-text.js';
import { repoPath } from './helpers/repo.js';
import { runNode } from './helpers/run-node.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';
import { waitFor } from './helpers/wait-for.js';
import { APPS_HOST_OPTIONS } from './helpers/apps-host.js';

const TOKEN = 'full-disk-token';
const CONFIG = {
  permissions: { terminal_read: true },
  allowed_session_patterns: ['agent-*'],
  log_level: 'warn',
  gateway: { toolsets: { default: ['core', 'transcripts', 'notes'] } },
};
const CLI = repoPath('services/broker/dist/effects/launch/terminal-mcp.js');

let root: string;
let mount: string;
let skipped: string | null = null;
let tmux: TmuxTestServer;
let broker: BrokerProcess;
let gw: RunningGatewayHttp;
let client: Client;

/** Fills the filesystem to its last byte; returns the filler's path. */
function fill(dir: string): string {
  const path = join(dir, 'filler');
  const fd = openSync(path, 'w');
  try {
    for (const size of [1024 * 1024, 4096, 1]) {
      const block = Buffer.alloc(size, 1);
      try {
        for (;;) writeSync(fd, block);
      } catch (err) {
        if ((err as { code?: string }).code !== 'ENOSPC') throw err;
      }
    }
  } finally {
    closeSync(fd);
  }
  return path;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'tmcp-full-e2e-'));
  mount = join(root, 'mnt');
  mkdirSync(mount);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', mount], { stdio: 'pipe' });
  } catch (err) {
    skipped = `mount -t tmpfs not permitted here (${(err as Error).message.split('\n')[0]})`;
    console.log(`full-disk: skipped: ${skipped}`);
    return;
  }
  const stateDir = join(mount, 'state');
  mkdirSync(stateDir, { mode: 0o700 });
  tmux = await startTmuxServer();
  // Started before the broker: a session created while its control client identifies can
  // crash tmux 3.3a (docs/architecture.md section 6).
  await tmux.newSession('agent-print', `bash --norc --noprofile -c 'i=0; while :; do echo line-$i; i=$((i+1)); sleep 0.05; done'`);
  broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: CONFIG, env: { TERMINAL_MCP_STATE_DIR: stateDir } });
  gw = await startGatewayHttp({ port: 0, env: broker.env, log: createGatewayLogger('silent'), token: TOKEN });
  // As an MCP Apps host: the test reads terminal_tail's cursor from its structuredContent.
  client = new Client({ name: 'full-disk', version: '0.0.0' }, APPS_HOST_OPTIONS);
  await client.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
});
afterAll(async () => {
  await client?.close();
  await gw?.close();
  await broker?.stop();
  await tmux?.kill();
  if (skipped === null) execFileSync('umount', ['-l', mount]);
  rmSync(root, { recursive: true, force: true });
});

const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const errorCodeOf = (r: CallToolResult) => (r._meta?.[ERROR_META_KEY] as { error_code?: string } | undefined)?.error_code;
const structured = <T>(r: CallToolResult) => r.structuredContent as T;

describe('a full state directory', () => {
  it('answers STORE_FULL, says recording fails, and marks the lost output write_failed', async (ctx) => {
    if (skipped !== null) return ctx.skip();
    // A cursor from before the disk fills, once the recording is live.
    const tail = await call('terminal_tail', { session: 'agent-print', lines: 5 });
    expect(tail.isError).toBeFalsy();
    let cursor = structured<{ cursor: string }>(tail).cursor;
    expect(typeof cursor).toBe('string');
    await waitFor('recorded output', async () => {
      const r = readAnswerOf(await call('terminal_read_since', { session: 'agent-print', cursor }));
      cursor = r.cursor!;
      return r.text.includes('line-');
    });
    const before = cursor;

    const filler = fill(mount);
    try {
      const note = await call('note_create', { title: 'on a full disk', body: 'x'.repeat(20_000) });
      expect(note.isError).toBe(true);
      expect(errorCodeOf(note)).toBe('STORE_FULL');

      const ready = await waitFor('readiness to say recording fails', async () => {
        const body = (await (await fetch(gw.healthUrl, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { recording?: { failing: boolean; lines_lost?: number } };
        return body.recording?.failing === true && (body.recording.lines_lost ?? 0) > 0 ? body.recording : false;
      });
      expect(ready.failing).toBe(true);
      const status = await runNode([CLI, 'status'], broker.env);
      expect(status.stdout).toContain('RECORDING FAILING');
    } finally {
      rmSync(filler);
    }

    const marked = await waitFor('the gap marked write_failed', async () => {
      const answer = await call('terminal_read_since', { session: 'agent-print', cursor: before, max_lines: 2000 });
      return readAnswerOf(answer).dropped_reason === 'write_failed' ? textOf(answer) : false;
    });
    // The answer's head names each span: its lines and its ISO times.
    const span = /output was lost because transcript writes failed \(write_failed\): (\d+) line\(s\) from (\S+) to (\S+?)[;,]/.exec(marked);
    expect(span).not.toBeNull();
    expect(Number(span![1])).toBeGreaterThan(0);
    expect(Date.parse(span![3]!)).toBeGreaterThanOrEqual(Date.parse(span![2]!));

    const exported = await call('terminal_export_transcript', { session: 'agent-print' });
    expect(textOf(exported)).toMatch(/"unrecorded write_failed [\d.]+ \d+"/);

    // Space is back: notes are saved again.
    const again = await call('note_create', { title: 'space again', body: 'ok' });
    expect(again.isError).toBeFalsy();
  });
});
