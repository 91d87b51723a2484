// Guards the order of a start on a node (start-session.ts over launch-host.ts) with recording fakes for the node's parts: a name the profile refuses is refused before the node is asked anything; a node that is down is NODE_UNAVAILABLE, audited BLOCKED under node:name, with no directory read and nothing created; and when the PENDING audit row cannot be written (AUDIT_UNAVAILABLE) the node's tmux is never asked to create the session.
import { AppError, readAppErrorData } from '@terminal-mcp/contract';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../config/schema.js';
import type { InputAttempt } from '../effects/store/audit-store.js';
import { createHostSet, type Host, type HostLifecycle } from '../nodes/host-set.js';
import type { NodeSet } from '../nodes/node-set.js';
import { principalOf } from '../policy/authority.js';
import type { LifecycleCaller } from './lifecycle-deps.js';
import { startSession } from './start-session.js';

const config = configSchema.parse({
  permissions: { terminal_read: true, terminal_input: true, session_lifecycle: true },
  nodes: [{ name: 'gpu', ssh: 'dev@gpu.example' }],
  launch_profiles: [{ name: 'agent', command: ['sleep', '600'], roots: ['/srv/work'], name_pattern: 'agent-*', node: 'gpu' }],
});

/** What the node was asked, in order. */
function harness(opts: { nodeUp: boolean; auditWorks: boolean }) {
  const asked: string[] = [];
  const rows: InputAttempt[] = [];
  const runtime = {
    config: { name: 'gpu' },
    tmux: {
      listSessions: async () => (asked.push('list'), []),
      findSession: async () => (asked.push('find'), null),
    },
    access: { checkInputName: () => null },
    input: undefined,
  };
  const deps = {
    config,
    log: { info() {}, warn() {}, error() {}, debug() {} },
    input: {
      audit: {
        insertAttempt(row: InputAttempt) {
          if (!opts.auditWorks && row.decision === 'PENDING') throw new Error('disk full');
          rows.push(row);
          return rows.length;
        },
        finishAttempt() {},
      },
    },
    nodes: {
      names: () => ['gpu'],
      get: (name: string) => (name === 'gpu' ? runtime : undefined),
      connected(name: string) {
        asked.push(`connected ${name}`);
        if (!opts.nodeUp) throw new AppError('NODE_UNAVAILABLE', 'node gpu is down: connection refused', 'Node gpu is not reachable over ssh.');
        return runtime;
      },
      unavailableOr: (_name: string, err: unknown) => err,
    },
    lifecycle: {
      store: { runningOn: () => [] },
      events: {},
      nodes: new Map([
        [
          'gpu',
          {
            sessions: {
              create: async () => (asked.push('create'), { ok: false, reason: 'failed', detail: 'fake' }),
              kill: async () => (asked.push('kill'), false),
              resize: async () => false,
            },
            realDirectories: async (paths: readonly string[]) => (asked.push('realpath'), paths.map((p) => p)),
          },
        ],
      ]),
    },
  };
  // Where a session is: the broker's HostSet over these fakes (this host is never asked here).
  const hosts = createHostSet({ name: 'local', node: undefined } as unknown as Host, deps.nodes as unknown as NodeSet, (node) => deps.lifecycle.nodes.get(node) as unknown as HostLifecycle);
  const caller = { role: 'gateway', actor: 'test', principal: principalOf('gateway', 'socket', 'test'), deps: { ...deps, hosts } } as unknown as LifecycleCaller;
  return { caller, asked, rows };
}

const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
    return 'ok';
  } catch (err) {
    return readAppErrorData(err)?.code ?? `other:${(err as Error).message}`;
  }
};

describe('terminal_session_start of a profile with a node', () => {
  it.each(['-oProxyCommand=x', 'a;b', '%h', 'agent-%h', 'gpu:agent-1', 'other-1'])('refuses the name %j before the node is asked anything', async (name) => {
    const { caller, asked, rows } = harness({ nodeUp: true, auditWorks: true });
    expect(await codeOf(startSession(caller, { profile: 'agent', name }))).toBe('LAUNCH_NOT_ALLOWED');
    expect(asked).toEqual([]);
    expect(rows).toMatchObject([{ decision: 'BLOCKED', errorCode: 'LAUNCH_NOT_ALLOWED', sessionName: `gpu:${name}` }]);
  });

  it('answers NODE_UNAVAILABLE while the node is down: audited BLOCKED, no directory read, nothing created', async () => {
    const { caller, asked, rows } = harness({ nodeUp: false, auditWorks: true });
    expect(await codeOf(startSession(caller, { profile: 'agent', name: 'agent-1' }))).toBe('NODE_UNAVAILABLE');
    expect(asked).toEqual(['connected gpu']);
    expect(rows).toMatchObject([{ tool: 'terminal_session_start', decision: 'BLOCKED', errorCode: 'NODE_UNAVAILABLE', sessionName: 'gpu:agent-1' }]);
  });

  it("never asks the node's tmux to create the session when the PENDING audit row cannot be written", async () => {
    const { caller, asked, rows } = harness({ nodeUp: true, auditWorks: false });
    expect(await codeOf(startSession(caller, { profile: 'agent', name: 'agent-1' }))).toBe('AUDIT_UNAVAILABLE');
    expect(asked).toEqual(['connected gpu', 'list', 'realpath']);
    expect(asked).not.toContain('create');
    expect(rows).toMatchObject([{ decision: 'BLOCKED', errorCode: 'AUDIT_UNAVAILABLE', sessionName: 'gpu:agent-1' }]);
  });
});
