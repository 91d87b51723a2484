// Guards the note_* tools end to end (SDK client → HTTP gateway → broker process, real notes.db): save, attach an image in band, find it with hostile queries that stay plain words, edit, delete and restore; a spoofed image and a path outside the source roots are refused with their codes.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createGatewayLogger, ERROR_META_KEY, parseRows, startGatewayHttp, type RunningGatewayHttp } from '@terminal-mcp/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

const call = (client: Client, name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const errorCodeOf = (r: CallToolResult) => (r._meta?.[ERROR_META_KEY] as { error_code?: string } | undefined)?.error_code;
/** The note tools answer with text only (docs/tools.md): what a client reads there. */
const text = (r: CallToolResult) => {
  expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
  expect(r.structuredContent).toBeUndefined();
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
};
const hitIds = (r: CallToolResult) => {
  const t = text(r);
  return t.startsWith('No notes match') ? [] : parseRows(t, 'id').map((h) => h.id);
};

describe('note tools over MCP', { timeout: 180_000 }, () => {
  let tmux: TmuxTestServer;
  let broker: BrokerProcess;
  let gw: RunningGatewayHttp;
  let client: Client;
  let root: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'tmcp-note-tools-'));
    mkdirSync(join(root, 'shots'));
    tmux = await startTmuxServer();
    broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: { log_level: 'warn', notes: { attachment_source_roots: [join(root, 'shots')] }, gateway: { toolsets: { http: ['notes'] } } } });
    gw = await startGatewayHttp({ port: 0, env: broker.env, log: createGatewayLogger('silent'), allowOpen: true });
    client = new Client({ name: 'notes-e2e', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl)));
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await gw?.close();
    await broker?.stop();
    await tmux?.kill();
    rmSync(root, { recursive: true, force: true });
  });

  it('lists the twelve note tools with deliberate annotations', async () => {
    const { tools } = await client.listTools();
    const notes = tools.filter((t) => t.name.startsWith('note_'));
    expect(notes.map((t) => t.name).sort()).toEqual(
      ['note_add_attachment', 'note_create', 'note_delete', 'note_facets', 'note_get', 'note_link_to_project', 'note_list', 'note_mark_applied', 'note_remove_attachment', 'note_restore', 'note_search', 'note_update'].sort(),
    );
    for (const name of ['note_search', 'note_get', 'note_list', 'note_facets']) expect(notes.find((t) => t.name === name)?.annotations?.readOnlyHint, name).toBe(true);
    expect(notes.find((t) => t.name === 'note_remove_attachment')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });

  it('saves, attaches, finds, edits, deletes and restores a note', async () => {
    const saved = text(await call(client, 'note_create', { title: 'Lưu lại: retry with jitter', body: 'exponential backoff', tags: ['resilience'] }));
    const note = { id: Number(/^Saved #(\d+) /.exec(saved)![1]) };
    expect(saved).toMatch(/^Created \S+ by gateway/m);
    const attached = /^Attached (\S+) \((image\/png), \d+ bytes\) to note #(\d+)\.$/.exec(text(await call(client, 'note_add_attachment', { id: note.id, data_base64: PNG.toString('base64') })));
    expect(attached?.[3]).toBe(String(note.id));
    const att = { id: attached![1]! };

    for (const query of ['luu jitter', '"jitter', 'jitter OR nothing-else', 'NEAR(retry', 'body:backoff', 'retry)*']) {
      const r = await call(client, 'note_search', { query });
      expect(r.isError, `${query}: ${JSON.stringify(r.content)}`).toBeFalsy();
    }
    expect(hitIds(await call(client, 'note_search', { query: 'luu jitter' }))).toEqual([note.id]);
    expect(hitIds(await call(client, 'note_search', { query: 'jitter OR nothing' }))).toEqual([]);

    const got = text(await call(client, 'note_get', { id: note.id }));
    expect([...got.matchAll(/^Attachment (\S+) /gm)].map((m) => m[1])).toEqual([att.id]);
    expect(text(await call(client, 'note_mark_applied', { id: note.id, where: 'gateway retries' }))).toMatch(new RegExp(`^Note #${note.id} applied \\S+: gateway retries\\.$`));
    expect(text(await call(client, 'note_get', { id: note.id }))).toMatch(/^#\d+ "[^"]+" \(applied,/);
    expect(text(await call(client, 'note_link_to_project', { id: note.id, project: 'terminal-mcp' }))).toBe(`Note #${note.id} linked to "terminal-mcp".`);
    text(await call(client, 'note_delete', { id: note.id }));
    expect(hitIds(await call(client, 'note_search', { query: 'jitter' }))).toEqual([]);
    expect(errorCodeOf(await call(client, 'note_update', { id: note.id, title: 'x' }))).toBe('NOTE_NOT_FOUND');
    text(await call(client, 'note_restore', { id: note.id }));
    expect(text(await call(client, 'note_facets'))).toMatch(/^1 notes \(0 deleted\)\.\n.*\nTags: #resilience 1\n/);
    expect(text(await call(client, 'note_remove_attachment', { attachment_id: att.id }))).toBe(`Removed attachment ${att.id} from note #${note.id}.`);
  });

  it('refuses an HTML file named .png and a path outside the source roots', async () => {
    const note = { id: Number(/^Saved #(\d+) /.exec(text(await call(client, 'note_create', { title: 'spoof target' })))![1]) };
    writeFileSync(join(root, 'shots', 'page.png'), '<html><script>alert(1)</script></html>');
    writeFileSync(join(root, 'outside.png'), PNG);
    const spoof = await call(client, 'note_add_attachment', { id: note.id, source_path: join(root, 'shots', 'page.png') });
    expect(errorCodeOf(spoof)).toBe('ATTACHMENT_TYPE_REFUSED');
    expect(errorCodeOf(await call(client, 'note_add_attachment', { id: note.id, source_path: join(root, 'shots', '..', 'outside.png') }))).toBe('PATH_NOT_ALLOWED');
    expect(errorCodeOf(await call(client, 'note_add_attachment', { id: note.id, source_path: join(root, 'shots', 'page.png'), data_base64: 'AAAA' }))).toBe('INVALID_ARGUMENT');
  });
});
