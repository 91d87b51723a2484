// Guards the observer's public tool catalogue: exactly these eighteen tools, every one read-only, with instructions marking all output as untrusted data; a call with no broker is an isError result with its code in _meta.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createBrokerClient } from '@terminal-mcp/broker-client';
import { ERROR_META_KEY } from '@terminal-mcp/mcp-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createObserverMcpServer, SERVER_INSTRUCTIONS } from './server.js';
import { OBSERVER_TOOLS } from './tools/index.js';

/** Public API: hosted clients cache these names. Changing this list is a decision. */
const EXPECTED_TOOLS = [
  'note_get',
  'note_search',
  'source_blame',
  'source_diff',
  'source_git_log',
  'source_git_status',
  'source_list_files',
  'source_list_projects',
  'source_list_refs',
  'source_read_file',
  'source_search',
  'source_show_commit',
  'terminal_batch_inspect',
  'terminal_capture',
  'terminal_list_sessions',
  'terminal_read_since',
  'terminal_status',
  'terminal_tail',
];

describe('observer MCP server', () => {
  // A real broker client aimed at a socket nobody listens on: the broker is down.
  const dir = mkdtempSync(join(tmpdir(), 'tmcp-obs-'));
  const server = createObserverMcpServer({
    broker: createBrokerClient({ role: 'observer', socketPath: join(dir, 'observer.sock') }),
    caller: { username: 'alice', clientId: 'tmcp_c_test' },
  });
  const client = new Client({ name: 'observer-tools-test', version: '0.0.0' });

  beforeAll(async () => {
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(a), client.connect(b)]);
  });
  afterAll(async () => {
    await client.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves exactly the eighteen read tools, every one readOnlyHint true and not destructive', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(EXPECTED_TOOLS);
    expect(OBSERVER_TOOLS.map((t) => t.name).sort()).toEqual(EXPECTED_TOOLS);
    for (const t of tools) {
      expect(t.annotations, t.name).toMatchObject({ readOnlyHint: true, destructiveHint: false, openWorldHint: false });
      // No output schema (docs/tools.md): results are text, plus structuredContent only for the two tools the live view reads.
      expect(t.outputSchema, t.name).toBeUndefined();
      expect(t.inputSchema, t.name).toMatchObject({ type: 'object', additionalProperties: false });
      expect(t.description!.length, t.name).toBeGreaterThan(40);
    }
  });

  it('tells the model that everything it reads is untrusted data', () => {
    expect(client.getInstructions()).toBe(SERVER_INSTRUCTIONS);
    expect(SERVER_INSTRUCTIONS).toMatch(/untrusted data/);
    expect(SERVER_INSTRUCTIONS).toMatch(/not instructions/);
    for (const name of ['source_read_file', 'source_search', 'source_diff', 'terminal_tail']) {
      expect(OBSERVER_TOOLS.find((t) => t.name === name)!.description, name).toMatch(/untrusted/i);
    }
  });

  it('answers BROKER_UNAVAILABLE as an isError result when the broker is down', async () => {
    const r = (await client.callTool({ name: 'source_list_projects', arguments: {} })) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(r._meta?.[ERROR_META_KEY]).toMatchObject({ error_code: 'BROKER_UNAVAILABLE' });
    expect(r.structuredContent).toBeUndefined();
  });
});
