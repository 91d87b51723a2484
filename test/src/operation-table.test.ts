// Guards the operation table (shared/contract operations/table.ts, issue 49) as the one statement of each gateway and observer operation: every socket serves exactly the rows whose roles name it (same procedure, kind and effect), every MCP tool is a row with the row's arguments, every row's HTTP route is well formed, and docs/tools.md's index is the table's.
import { readFileSync } from 'node:fs';
import { ROLE_ROUTERS } from '@terminal-mcp/broker';
import { GATEWAY_TOOL_OPERATIONS, OPERATION_INDEX_BEGIN, OPERATION_INDEX_END, OPERATIONS, renderOperationIndex, routeParams, type Operation, type SocketRole } from '@terminal-mcp/contract';
import { GATEWAY_TOOLS } from '@terminal-mcp/gateway';
import { OBSERVER_TOOLS } from '@terminal-mcp/observer';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { repoPath } from './helpers/repo.js';

interface ProcedureDef {
  _def: { type: 'query' | 'mutation' | 'subscription'; meta?: { effect?: string } };
}

const rows = OPERATIONS as readonly Operation[];
const proceduresOf = (role: SocketRole) => (ROLE_ROUTERS[role] as unknown as { _def: { procedures: Record<string, ProcedureDef> } })._def.procedures;
const inputKeys = (schema: z.ZodType | undefined) => Object.keys((z.toJSONSchema(schema ?? z.object({}), { io: 'input', unrepresentable: 'any' }) as { properties?: object }).properties ?? {}).sort();

describe('the operation table', () => {
  it('states each operation once (one row per path)', () => {
    const paths = rows.map((op) => op.path);
    expect(paths.filter((p, i) => paths.indexOf(p) !== i)).toEqual([]);
  });

  it.each(['gateway', 'observer'] as const)('%s socket: serves exactly the rows that name it, each with its kind and effect', (role) => {
    const served = proceduresOf(role);
    expect(Object.keys(served).sort()).toEqual(rows.filter((op) => op.roles.includes(role)).map((op) => op.path).sort());
    for (const op of rows.filter((o) => o.roles.includes(role))) {
      const def = served[op.path]!._def;
      expect([op.path, def.type, def.meta?.effect ?? (def.type === 'mutation' ? 'write' : 'read')]).toEqual([op.path, op.kind, op.effect]);
    }
  });

  it('names the web socket exactly where it serves the very same procedure at that path', () => {
    const web = proceduresOf('web');
    const gateway = proceduresOf('gateway');
    const observer = proceduresOf('observer');
    for (const op of rows) {
      const same = web[op.path] !== undefined && (web[op.path] === gateway[op.path] || web[op.path] === observer[op.path]);
      expect([op.path, op.roles.includes('web')]).toEqual([op.path, same]);
    }
  });

  it('has one row per MCP tool, with the tool\'s own arguments', () => {
    const gatewayRows = GATEWAY_TOOL_OPERATIONS.map((op) => op.tool.name);
    expect(GATEWAY_TOOLS.map((t) => t.name).sort()).toEqual([...gatewayRows].sort());
    const observerRows = rows.filter((op) => op.roles.includes('observer') && op.tool).map((op) => op.tool!.name);
    expect(OBSERVER_TOOLS.map((t) => t.name).sort()).toEqual([...observerRows].sort());
    for (const tool of [...GATEWAY_TOOLS, ...OBSERVER_TOOLS]) {
      const op = rows.find((o) => o.tool?.name === tool.name)!;
      expect([tool.name, inputKeys(op.input)]).toEqual([tool.name, Object.keys(tool.inputShape).sort()]);
    }
  });

  it('gives every gateway tool one HTTP route whose path arguments are required arguments', () => {
    const routes = GATEWAY_TOOL_OPERATIONS.map((op) => `${op.http.method} ${op.http.route}`);
    expect(routes.filter((r, i) => routes.indexOf(r) !== i)).toEqual([]);
    for (const op of GATEWAY_TOOL_OPERATIONS) {
      const required = (z.toJSONSchema(op.input!, { io: 'input', unrepresentable: 'any' }) as { required?: string[] }).required ?? [];
      for (const param of routeParams(op.http.route)) expect([op.tool.name, param, required.includes(param)]).toEqual([op.tool.name, param, true]);
      // Reads are GET unless their arguments need a body; everything that changes is POST.
      if (op.kind === 'mutation') expect([op.tool.name, op.http.method]).toEqual([op.tool.name, 'POST']);
      expect(op.http.route).toMatch(/^(\/([a-z0-9-]+|\{\w+\}))+$/);
    }
  });

  it('is the index of docs/tools.md (between its markers)', () => {
    const page = readFileSync(repoPath('docs/tools.md'), 'utf8');
    const begin = page.indexOf(OPERATION_INDEX_BEGIN);
    const end = page.indexOf(OPERATION_INDEX_END);
    expect(begin).toBeGreaterThan(0);
    expect(page.slice(begin, end + OPERATION_INDEX_END.length)).toBe(renderOperationIndex());
  });
});
