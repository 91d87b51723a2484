// Guards: the MCP tool catalogue (names, read-only annotations, schemas, instructions) and that a call with no broker answers BROKER_UNAVAILABLE as an isError result.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createBrokerClient } from '@terminal-mcp/broker-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_META_KEY } from '@terminal-mcp/mcp-kit';
import { createToolMetrics } from './metrics.js';
import { createGatewayMcpServer, SERVER_INSTRUCTIONS } from './server.js';

const READ_TOOL_NAMES = [
  'terminal_batch_inspect',
  'terminal_capture',
  'terminal_export_transcript',
  'terminal_get_binding',
  'terminal_input_context',
  'terminal_list_bindings',
  'terminal_list_input_audit',
  'terminal_wait_for_approval',
  'terminal_list_panes',
  'terminal_list_sessions',
  'terminal_node_health',
  'terminal_read_since',
  'terminal_resume_wait',
  'terminal_status',
  'terminal_status_bound',
  'terminal_tail',
  'terminal_tail_bound',
  'terminal_wait_for_state',
  'note_search',
  'note_get',
  'note_list',
  'note_facets',
  'project_check',
  'supervisor_list_watches',
  'supervisor_status',
  'supervisor_list_events',
  'supervisor_wait_events',
  'supervisor2_get_policy',
  'supervisor2_list_actionable_events',
  'supervisor2_list_actions',
];
/** Tools that change something: typing (not destructive), keys (can interrupt: destructive),
 * bindings, notes (edits that land in the same state when repeated are idempotent; removing
 * an image deletes its file). */
const CHANGING_TOOLS: Record<string, { destructiveHint: boolean; idempotentHint?: boolean }> = {
  note_create: { destructiveHint: false },
  note_add_attachment: { destructiveHint: false },
  note_update: { destructiveHint: false, idempotentHint: true },
  note_delete: { destructiveHint: false, idempotentHint: true },
  note_restore: { destructiveHint: false, idempotentHint: true },
  note_link_to_project: { destructiveHint: false, idempotentHint: true },
  note_mark_applied: { destructiveHint: false, idempotentHint: true },
  note_remove_attachment: { destructiveHint: true, idempotentHint: true },
  // Dispatch replays its receipt for the same idempotency key; a deploy command runs again.
  project_dispatch: { destructiveHint: false, idempotentHint: true },
  deploy_preview: { destructiveHint: false },
  // The supervisor changes supervisor.db only; execute_send types through the guarded send path.
  supervisor_watch: { destructiveHint: false },
  supervisor_unwatch: { destructiveHint: false },
  supervisor_ack_event: { destructiveHint: false },
  supervisor_run_once: { destructiveHint: false },
  supervisor_set_verifier_policy: { destructiveHint: false },
  supervisor2_set_policy: { destructiveHint: false },
  supervisor2_claim_event: { destructiveHint: false },
  supervisor2_submit_decision: { destructiveHint: false },
  supervisor2_review_action: { destructiveHint: false },
  supervisor2_execute_send: { destructiveHint: false },
  terminal_bind: { destructiveHint: false },
  terminal_send_bound: { destructiveHint: false },
  terminal_send_keys: { destructiveHint: true },
  terminal_run: { destructiveHint: false },
  terminal_send_task: { destructiveHint: false },
  terminal_send_text: { destructiveHint: false },
  terminal_unbind: { destructiveHint: false },
  // Launch profiles: starting and resizing destroy nothing; closing and restarting end a program.
  terminal_session_start: { destructiveHint: false },
  terminal_resize: { destructiveHint: false },
  terminal_session_close: { destructiveHint: true },
  terminal_session_restart: { destructiveHint: true },
  // Forgetting a gone session leaves a tombstone (nothing running ends); the same call again changes nothing.
  terminal_session_forget: { destructiveHint: false, idempotentHint: true },
  // Reaching a person: a notice (the same request again is the same notice) and a message.
  terminal_request_human: { destructiveHint: false, idempotentHint: true },
  notify_user: { destructiveHint: false },
};
const WITH_OUTPUT_SCHEMA = ['terminal_send_task', 'terminal_run', 'terminal_wait_for_state', 'terminal_resume_wait', 'terminal_wait_for_approval'];
const TOOL_NAMES = [...READ_TOOL_NAMES, ...Object.keys(CHANGING_TOOLS)].sort();

describe('createGatewayMcpServer', () => {
  // A real broker client aimed at a socket nobody listens on: the broker is down.
  const dir = mkdtempSync(join(tmpdir(), 'tmcp-gw-'));
  const metrics = createToolMetrics();
  const server = createGatewayMcpServer({ broker: createBrokerClient({ role: 'gateway', socketPath: join(dir, 'gateway.sock') }), metrics });
  const client = new Client({ name: 'server-test', version: '0.0.0' });

  beforeAll(async () => {
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(a), client.connect(b)]);
  });
  afterAll(async () => {
    await client.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('tells the model that pane output is untrusted data', () => {
    expect(client.getInstructions()).toBe(SERVER_INSTRUCTIONS);
    expect(SERVER_INSTRUCTIONS).toMatch(/untrusted data/);
    expect(SERVER_INSTRUCTIONS).toMatch(/not instructions/);
  });

  it('lists every tool: read tools annotated read-only, closed-world and idempotent; the others deliberately', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES);
    for (const tool of tools) {
      const changing = CHANGING_TOOLS[tool.name];
      if (changing) expect(tool.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false, openWorldHint: false, ...changing });
      else expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
      expect(tool.title).toBeTruthy();
      expect(tool.description!.length).toBeLessThan(600);
      expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
      // Output schemas only where automation branches on the fields (docs/tools.md).
      expect({ tool: tool.name, outputSchema: tool.outputSchema?.type }).toEqual({ tool: tool.name, outputSchema: WITH_OUTPUT_SCHEMA.includes(tool.name) ? 'object' : undefined });
    }
    const tail = tools.find((t) => t.name === 'terminal_tail')!;
    expect(tail.inputSchema.required).toEqual(['session']);
    const wait = tools.find((t) => t.name === 'terminal_wait_for_state')!;
    expect(Object.keys(wait.outputSchema!.properties!)).toEqual(expect.arrayContaining(['state', 'session', 'resume_token', 'status']));
  });

  it('answers BROKER_UNAVAILABLE when the broker is not running, and counts it', async () => {
    const result = await client.callTool({ name: 'terminal_list_sessions', arguments: {} });
    expect(result.isError).toBe(true);
    // Not in structuredContent: the SDK client would validate it against the outputSchema.
    expect(result.structuredContent).toBeUndefined();
    expect(result._meta?.[ERROR_META_KEY]).toMatchObject({ error_code: 'BROKER_UNAVAILABLE' });
    expect((result.content as { text: string }[])[0]!.text).toMatch(/^BROKER_UNAVAILABLE: could not reach the broker\. Hint: /);
    expect(JSON.stringify(result)).not.toContain(dir);
    expect(metrics.render()).toContain('terminal_mcp_tool_errors_total{tool="terminal_list_sessions",error_code="BROKER_UNAVAILABLE"} 1');
  });

  it('rejects arguments outside the contract before anything is sent, naming each', async () => {
    const result = await client.callTool({ name: 'terminal_tail', arguments: { session: '', lines: 0 } });
    expect(result.isError).toBe(true);
    expect(result._meta?.[ERROR_META_KEY]).toMatchObject({ error_code: 'INVALID_ARGUMENT' });
    expect((result.content as { text: string }[])[0]!.text).toMatch(/^INVALID_ARGUMENT: invalid arguments for terminal_tail: session: .*; lines: .*1/);
    // Refused at the edge: the broker (down here) was never asked.
    expect(metrics.render()).not.toContain('tool="terminal_tail",error_code="BROKER_UNAVAILABLE"');
  });
});
