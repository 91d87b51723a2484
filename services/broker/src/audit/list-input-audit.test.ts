// Guards input-audit visibility: a gateway client's terminal_list_input_audit shows only its own actor's attempts (and previews), whatever filter it names; the operator-level listing sees every row.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../config/schema.js';
import type { BrokerDeps } from '../rpc/deps.js';
import type { InputAttempt } from '../effects/store/audit-store.js';
import { createContextInner } from '../rpc/context.js';
import { gatewayRouter } from '../rpc/roles/gateway.js';
import { createCallerFactory } from '../rpc/trpc.js';
import { listInputAudit } from './list-input-audit.js';
import { testDeps } from '../testing/deps.testkit.js';

let root: string;
let deps: BrokerDeps;

const attempt = (actor: string, preview: string): InputAttempt => ({
  at: Date.now(), role: 'gateway', actor, tool: 'terminal_send_text', sessionName: 'agent-shared', binding: null, serverPid: 1, sessionId: '$1',
  sessionCreated: 1, paneId: '%1', panePid: 2, decision: 'SENT', errorCode: null, textLength: preview.length, textHmac: 'h', preview,
  keys: null, finishedAt: Date.now(), receipt: null, receiptJson: null,
});

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'tmcp-audit-scope-'));
  // Never reached: listing the audit reads audit.db only.
  deps = testDeps({ config: DEFAULT_CONFIG, tmux: {} as BrokerDeps['tmux'], stateDir: join(root, 'state'), log: pino({ level: 'silent' }), info: { version: 'test', startedAt: new Date(), tmuxSocket: null } });
  const store = deps.stores.audit;
  store.insertAttempt(attempt('gateway:alice-agent', 'alice private prompt'));
  store.insertAttempt(attempt('gateway:bob-agent', 'bob private prompt'));
  store.insertAttempt(attempt('web:operator', 'operator prompt'));
});
afterAll(() => {
  deps?.stores.close();
  rmSync(root, { recursive: true, force: true });
});

const gatewayAs = (actor: string) => createCallerFactory(gatewayRouter)(createContextInner({ role: 'gateway', deps, actor }));
const previews = (out: { entries: { preview: string | null }[] }) => out.entries.map((e) => e.preview);

describe('who sees which audit rows', () => {
  it('shows a gateway client only its own rows', async () => {
    expect(previews(await gatewayAs('gateway:alice-agent').audit.listInput({}))).toEqual(['alice private prompt']);
    expect(previews(await gatewayAs('gateway:bob-agent').audit.listInput({ session: 'agent-shared' }))).toEqual(['bob private prompt']);
    expect(previews(await gatewayAs('gateway').audit.listInput({}))).toEqual([]);
  });

  it("finds nothing when a client names another client's actor", async () => {
    expect(await gatewayAs('gateway:alice-agent').audit.listInput({ actor: 'gateway:bob-agent' })).toEqual({ entries: [], next_cursor: null });
    expect(previews(await gatewayAs('gateway:alice-agent').audit.listInput({ actor: 'gateway:alice-agent' }))).toEqual(['alice private prompt']);
  });

  it('lists every row for the operator-level scope', () => {
    expect(previews(listInputAudit(deps, {}, 'all'))).toEqual(['operator prompt', 'bob private prompt', 'alice private prompt']);
    expect(previews(listInputAudit(deps, { actor: 'gateway:bob-agent' }, 'all'))).toEqual(['bob private prompt']);
  });
});
