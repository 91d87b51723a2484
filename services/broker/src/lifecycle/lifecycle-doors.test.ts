// Guards that every procedure with an effect on a pane's session (derived from the role routers: each `lifecycle` procedure) runs the same input decision as a send on the resolved target (a session terminal_send_text refuses is not resized, closed or restarted), and that a refusal at any door (a read-only token, a web call without an operator session, an input its schema refuses) is audited BLOCKED like input (issue 45).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAppErrorData } from '@terminal-mcp/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../../../test/src/helpers/wait-for.js';
import { configSchema } from '../config/schema.js';
import { oauthPrincipal, principalOf } from '../policy/authority.js';
import { createContextInner } from '../rpc/context.js';
import type { BrokerDeps } from '../rpc/deps.js';
import { ROLE_ROUTERS } from '../rpc/roles/index.js';
import { createCallerFactory } from '../rpc/trpc.js';
import { startLiveTestBroker, type LiveTestBroker } from '../testing/live-broker.testkit.js';

type Role = keyof typeof ROLE_ROUTERS;
type ProcedureDef = { _def: { meta?: { effect?: string } } };
/** Every procedure of `role` whose effect is `lifecycle`: what acts on sessions and panes. */
const lifecycleProcedures = (role: Role) =>
  Object.entries(ROLE_ROUTERS[role]._def.procedures as unknown as Record<string, ProcedureDef>)
    .filter(([, p]) => p._def.meta?.effect === 'lifecycle')
    .map(([path]) => path);

const TOOLS: Record<string, string> = { start: 'terminal_session_start', close: 'terminal_session_close', restart: 'terminal_session_restart', resize: 'terminal_resize', forget: 'terminal_session_forget' };
/** Readable, but input_policy refuses it: terminal_send_text answers INPUT_NOT_ALLOWED. */
const NO_INPUT = 'watch-only';

let root: string;
let broker: LiveTestBroker;
let deps: BrokerDeps;
let sessionId = '';

const call = (caller: unknown, path: string, input: unknown): Promise<unknown> => {
  const fn = path.split('.').reduce<unknown>((at, key) => (at as Record<string, unknown>)[key], caller) as (i: unknown) => Promise<unknown>;
  return fn(input);
};
const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
    return 'ok';
  } catch (err) {
    const app = readAppErrorData((err as { cause?: unknown }).cause) ?? readAppErrorData(err);
    return app?.code ?? ((err as { code?: string }).code === 'BAD_REQUEST' ? 'INVALID_ARGUMENT' : `other:${(err as Error).message}`);
  }
};
const sampleFor = (path: string, session: string) => {
  const verb = path.slice(path.lastIndexOf('.') + 1);
  if (verb === 'start') return { profile: 'shell', name: session };
  if (verb === 'resize') return { session, width: 61, height: 17 };
  return { session, expect_session_id: sessionId, confirm: true };
};
const rowsOf = (tool: string) => deps.input.audit.list({ limit: 500 }).filter((r) => r.tool === tool).sort((a, b) => a.id - b.id);

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'tmcp-lifecycle-doors-'));
  mkdirSync(join(root, 'work'));
  broker = await startLiveTestBroker({
    config: configSchema.parse({
      permissions: { terminal_read: true, terminal_input: true, session_lifecycle: true },
      allowed_session_patterns: ['agent-*', 'watch-*'],
      input_policy: { allowed_session_patterns: ['agent-*'] },
      session_lifecycle: { close_unmanaged: true },
      launch_profiles: [
        { name: 'shell', command: ['sleep', '600'], roots: [join(root, 'work')] },
        { name: 'capped', command: ['sleep', '600'], roots: [join(root, 'work')], name_pattern: 'agent-cap-*', max_sessions: 3, max_sessions_per_client: 2 },
      ],
    }),
    stateDir: join(root, 'state'),
    graceMs: 150,
  });
  deps = broker.deps;
  const made = await broker.server.newSession(NO_INPUT, 'exec sleep 600', { width: 80, height: 24 });
  sessionId = made.sessionId;
  await waitFor('the session listed', async () => (await broker.adapter.listSessions()).some((s) => s.name === NO_INPUT));
}, 60_000);

afterAll(async () => {
  await broker?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('every lifecycle procedure, derived from the role routers', () => {
  it('finds the lifecycle procedures of the gateway and the dashboard', () => {
    expect(lifecycleProcedures('gateway').sort()).toEqual(['lifecycle.close', 'lifecycle.forget', 'lifecycle.resize', 'lifecycle.restart', 'lifecycle.start']);
    expect(lifecycleProcedures('web').sort()).toEqual(['lifecycle.close', 'lifecycle.forget', 'lifecycle.resize', 'lifecycle.restart', 'lifecycle.start']);
    expect(lifecycleProcedures('observer')).toEqual([]);
  });

  it('runs the input decision of a send on the resolved target: a session that may not take input is not acted on', async () => {
    const agent = createCallerFactory(ROLE_ROUTERS.gateway)(createContextInner({ role: 'gateway', deps, principal: principalOf('gateway', 'token', 'gateway:agent') }));
    expect(await codeOf(agent.input.sendText({ session: NO_INPUT, text: 'x', enter: false }))).toBe('INPUT_NOT_ALLOWED');
    for (const path of lifecycleProcedures('gateway').filter((p) => !p.endsWith('.start'))) {
      const code = await codeOf(call(agent, path, sampleFor(path, NO_INPUT)));
      expect(code, path).toBe('INPUT_NOT_ALLOWED');
      const tool = TOOLS[path.slice(path.lastIndexOf('.') + 1)]!;
      expect(rowsOf(tool).at(-1), path).toMatchObject({ sessionName: NO_INPUT, decision: 'BLOCKED', errorCode: 'INPUT_NOT_ALLOWED' });
    }
    // Nothing happened to it: still there, its window size unchanged.
    const found = await broker.adapter.findSession(NO_INPUT);
    expect(found?.sessionId).toBe(sessionId);
    expect(await broker.server.tmux(['display-message', '-p', '-t', NO_INPUT, '#{window_width}x#{window_height}'])).toBe('80x24');
  });

  it('audits a refusal at the door BLOCKED: a read-only token, a dashboard call without an operator, an input its schema refuses', async () => {
    const readOnly = createCallerFactory(ROLE_ROUTERS.gateway)(createContextInner({ role: 'gateway', deps, principal: oauthPrincipal('oauth:reader', ['terminal:read']) }));
    const noOperator = createCallerFactory(ROLE_ROUTERS.web)(createContextInner({ role: 'web', deps }));
    const full = createCallerFactory(ROLE_ROUTERS.gateway)(createContextInner({ role: 'gateway', deps, principal: principalOf('gateway', 'token', 'gateway:agent') }));
    const cases: [unknown, Role, string][] = [
      [readOnly, 'gateway', 'oauth:reader'],
      [noOperator, 'web', 'web'],
    ];
    for (const [caller, role, actor] of cases) {
      for (const path of lifecycleProcedures(role)) {
        const tool = TOOLS[path.slice(path.lastIndexOf('.') + 1)]!;
        const before = rowsOf(tool).length;
        const code = await codeOf(call(caller, path, sampleFor(path, 'agent-door')));
        expect(['INPUT_NOT_ALLOWED', 'UNAUTHENTICATED'], `${role} ${path}: ${code}`).toContain(code);
        const rows = rowsOf(tool);
        expect(rows.length, `${role} ${path}`).toBe(before + 1);
        expect(rows.at(-1), `${role} ${path}`).toMatchObject({ actor, sessionName: 'agent-door', decision: 'BLOCKED', errorCode: code });
      }
    }
    for (const path of lifecycleProcedures('gateway')) {
      const tool = TOOLS[path.slice(path.lastIndexOf('.') + 1)]!;
      const before = rowsOf(tool).length;
      expect(await codeOf(call(full, path, { ...sampleFor(path, 'agent-door'), unknown_field: 1 })), path).toBe('INVALID_ARGUMENT');
      expect(rowsOf(tool).length, path).toBe(before + 1);
      expect(rowsOf(tool).at(-1), path).toMatchObject({ decision: 'BLOCKED', errorCode: 'INVALID_ARGUMENT', sessionName: 'agent-door' });
    }
    expect(await broker.adapter.findSession('agent-door')).toBeNull();
  });

  it('caps the sessions a profile runs, per client and in all (QUOTA_EXCEEDED, audited)', async () => {
    const as = (actor: string) => createCallerFactory(ROLE_ROUTERS.gateway)(createContextInner({ role: 'gateway', deps, principal: principalOf('gateway', 'token', actor) }));
    const a = as('gateway:client-a');
    const b = as('gateway:client-b');
    expect(await a.lifecycle.start({ profile: 'capped', name: 'agent-cap-1' })).toMatchObject({ result: 'STARTED' });
    expect(await a.lifecycle.start({ profile: 'capped', name: 'agent-cap-2' })).toMatchObject({ result: 'STARTED' });
    expect(await codeOf(a.lifecycle.start({ profile: 'capped', name: 'agent-cap-3' }))).toBe('QUOTA_EXCEEDED');
    expect(rowsOf('terminal_session_start').at(-1)).toMatchObject({ actor: 'gateway:client-a', decision: 'BLOCKED', errorCode: 'QUOTA_EXCEEDED' });
    expect(await b.lifecycle.start({ profile: 'capped', name: 'agent-cap-3' })).toMatchObject({ result: 'STARTED' });
    // Three run: the profile's own cap holds for another client too.
    expect(await codeOf(b.lifecycle.start({ profile: 'capped', name: 'agent-cap-4' }))).toBe('QUOTA_EXCEEDED');
    expect((await broker.adapter.listSessions()).filter((s) => s.name.startsWith('agent-cap-')).map((s) => s.name).sort()).toEqual(['agent-cap-1', 'agent-cap-2', 'agent-cap-3']);
  });
});
