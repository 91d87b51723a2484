// Guards strict tool arguments through a real MCP SDK client: unknown names are refused with INVALID_ARGUMENT naming the key, a suggestion and the valid names (never dropped), documented aliases are renamed, retired names say why, and bad values get a readable message.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { closeMatches } from '@terminal-mcp/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineMcpTool, READ_ONLY_ANNOTATIONS } from './define-tool.js';
import { ERROR_META_KEY } from './tool-errors.js';
import { createToolServer, registerTools } from './tool-server.js';

const received: Record<string, unknown>[] = [];
const shape = {
  session: z.string().min(1).max(256).describe('exact session name'),
  text: z.string().min(1),
  enter: z.boolean().optional(),
  lines: z.number().int().min(1).max(100).optional(),
};
const echo = defineMcpTool<'gateway', typeof shape, z.ZodObject<{ got: z.ZodRecord<z.ZodString, z.ZodUnknown> }>, typeof READ_ONLY_ANNOTATIONS>({
  name: 'terminal_send_text',
  title: 'Echo',
  description: 'Echoes its arguments.',
  inputShape: shape,
  inputSchema: z.object(shape).strict().refine((v) => v.text !== 'forbidden', { message: 'text must not be "forbidden"', path: ['text'] }),
  aliases: { press_enter: 'enter' },
  retired: { idempotency_key: 'only terminal_send_task takes one' },
  outputSchema: z.object({ got: z.record(z.string(), z.unknown()) }),
  annotations: READ_ONLY_ANNOTATIONS,
  run: async (args) => {
    received.push(args);
    return { got: args };
  },
  render: (r) => JSON.stringify(r.got),
});

const server = createToolServer({ name: 'strict-test', version: '0.0.0' }, 'test');
const client = new Client({ name: 'strict-args-test', version: '0.0.0' });

beforeAll(async () => {
  registerTools(server, [echo], {
    broker: undefined as never,
    timeoutMs: 30_000,
    hooks: { succeeded: () => {}, failed: () => {} },
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(a), client.connect(b)]);
});
afterAll(async () => {
  await client.close();
  await server.close();
});

async function call(args: Record<string, unknown>, name = 'terminal_send_text') {
  received.length = 0;
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = (r.content[0] as { text: string }).text;
  return { r, text, meta: r._meta?.[ERROR_META_KEY] as { error_code: string; message: string; hint: string } | undefined };
}

describe('strict tool arguments', () => {
  it('accepts the original press_enter as enter', async () => {
    const { r } = await call({ session: 's', text: 'ls', press_enter: true });
    expect(r.isError).toBeFalsy();
    expect(received).toEqual([{ session: 's', text: 'ls', enter: true }]);
  });

  it('refuses an unknown argument, names it, suggests the closest and lists the valid ones, and calls nothing', async () => {
    const { r, text, meta } = await call({ session: 's', text: 'ls', entr: true });
    expect(r.isError).toBe(true);
    expect(received).toEqual([]);
    expect(meta).toMatchObject({ error_code: 'INVALID_ARGUMENT', message: 'unknown argument "entr"; did you mean "enter"?' });
    expect(meta!.hint).toContain('terminal_send_text takes: session, text, enter, lines');
    expect(text).toMatch(/^INVALID_ARGUMENT: unknown argument "entr"; did you mean "enter"\? Hint: /);
  });

  it('suggests by meaning where spelling is far off (session_name → session, max_lines → lines)', async () => {
    expect((await call({ session_name: 's', text: 'x' })).meta!.message).toContain('did you mean "session"?');
    expect((await call({ session: 's', text: 'x', max_lines: 5 })).meta!.message).toContain('did you mean "lines"?');
  });

  it('refuses an alias given together with its own name', async () => {
    const { meta } = await call({ session: 's', text: 'ls', press_enter: true, enter: false });
    expect(meta).toMatchObject({ error_code: 'INVALID_ARGUMENT' });
    expect(meta!.message).toMatch(/both "press_enter" and "enter"/);
    expect(received).toEqual([]);
  });

  it('refuses a retired argument with the reason', async () => {
    const { meta } = await call({ session: 's', text: 'ls', idempotency_key: 'k1' });
    expect(meta!.message).toBe('argument "idempotency_key" is not supported here: only terminal_send_task takes one');
  });

  it('says which value is wrong and why, including refinements and missing arguments', async () => {
    const { meta } = await call({ session: 's', text: 'x', lines: 0 });
    expect(meta!.message).toMatch(/^invalid arguments for terminal_send_text: lines: .*>=1/);
    expect((await call({ text: 'x' })).meta!.message).toContain('session: is required');
    expect((await call({ session: 's', text: 'forbidden' })).meta!.message).toContain('text: text must not be "forbidden"');
  });

  it('answers a tool name that does not exist with the closest one', async () => {
    const { r, meta } = await call({}, 'terminal_send_txt');
    expect(r.isError).toBe(true);
    expect(meta).toMatchObject({ error_code: 'INVALID_ARGUMENT', message: 'no tool is named "terminal_send_txt"; did you mean terminal_send_text?' });
  });

  it('publishes a closed input schema without zod noise', async () => {
    const { tools } = await client.listTools();
    const listed = JSON.stringify(tools);
    expect(listed).not.toContain('$schema');
    expect(listed).not.toContain('9007199254740991');
    expect(tools[0]!.inputSchema).toEqual({
      type: 'object',
      properties: {
        session: { type: 'string', description: 'exact session name' },
        text: { type: 'string' },
        enter: { type: 'boolean' },
        lines: { type: 'integer', minimum: 1, maximum: 100 },
      },
      required: ['session', 'text'],
      additionalProperties: false,
    });
    expect(tools[0]!.outputSchema).toBeUndefined();
  });
});

describe('closeMatches', () => {
  it('finds near spellings and containment, closest first, and nothing for unrelated words', () => {
    expect(closeMatches('claude-mesfow', ['claude-mesflow', 'codex-main', 'claude-other'])).toEqual(['claude-mesflow']);
    expect(closeMatches('mesflow', ['claude-mesflow', 'codex-main'])).toEqual(['claude-mesflow']);
    expect(closeMatches('zzz', ['claude-mesflow', 'codex-main'])).toEqual([]);
    expect(closeMatches('Claude_Main', ['claude-main'])).toEqual(['claude-main']);
  });
});
