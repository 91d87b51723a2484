// Guards that an approved review re-checks the proposer's credential at delivery: input an OAuth client queued is not typed once the operator revoked that client, even when the operator then approves it; the refusal is audited (issue 45 LOW).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BROKER_HEADERS } from '@terminal-mcp/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../../../test/src/helpers/wait-for.js';
import { configSchema } from '../config/schema.js';
import { listClients, revokeClient } from '../oauth/admin.js';
import { gatewayAccessToken } from '../oauth/gateway-token.testkit.js';
import { contextFromRequest, createContextInner } from '../rpc/context.js';
import type { BrokerDeps } from '../rpc/deps.js';
import { ROLE_ROUTERS } from '../rpc/roles/index.js';
import { createCallerFactory } from '../rpc/trpc.js';
import { startLiveTestBroker, type LiveTestBroker } from '../testing/live-broker.testkit.js';
import { operatorToken } from '../webauth/operator-token.testkit.js';

let root: string;
let broker: LiveTestBroker;
let deps: BrokerDeps;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'tmcp-review-revoked-'));
  broker = await startLiveTestBroker({
    config: configSchema.parse({
      permissions: { terminal_read: true, terminal_input: true },
      allowed_session_patterns: ['agent-*'],
      input_policy: { allowed_session_patterns: ['agent-*'], review: 'always' },
    }),
    stateDir: join(root, 'state'),
    graceMs: 150,
  });
  deps = broker.deps;
  await broker.server.newSession('agent-review', 'exec cat');
  await waitFor('the session listed', async () => (await broker.adapter.listSessions()).some((s) => s.name === 'agent-review'));
}, 60_000);

afterAll(async () => {
  await broker?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('an approved review after the proposer was revoked', () => {
  it('delivers for a client still valid, and types nothing for one revoked while its input waited', async () => {
    const token = await gatewayAccessToken(deps, { scope: 'terminal:read terminal:input', clientName: 'Revoked Later' });
    const agent = createCallerFactory(ROLE_ROUTERS.gateway)(contextFromRequest('gateway', deps, { [BROKER_HEADERS.credential]: token }));
    const operator = createCallerFactory(ROLE_ROUTERS.web)(createContextInner({ role: 'web', deps, operatorToken: operatorToken(deps, 'admin') }));
    const screen = () => broker.server.tmux(['capture-pane', '-p', '-t', 'agent-review']);

    const first = await agent.input.sendText({ session: 'agent-review', text: 'still-valid-line', enter: true });
    expect(first).toMatchObject({ result: 'QUEUED' });
    const second = await agent.input.sendText({ session: 'agent-review', text: 'after-revocation-line', enter: true });
    expect(second).toMatchObject({ result: 'QUEUED' });

    expect(await operator.review.approve({ approval_id: (first as { approval_id: number }).approval_id })).toMatchObject({ state: 'sent' });
    await waitFor('the first line typed', async () => (await screen()).includes('still-valid-line'));

    const client = listClients(deps.oauth.gateway).find((c) => c.clientName === 'Revoked Later');
    expect(client).toBeDefined();
    revokeClient(deps.oauth.gateway, client!.clientId, 'web:admin');
    const view = await operator.review.approve({ approval_id: (second as { approval_id: number }).approval_id });
    expect(view).toMatchObject({ state: 'failed' });
    expect(['UNAUTHENTICATED', 'INPUT_NOT_ALLOWED']).toContain((view as { error_code: string | null }).error_code);
    expect(await screen()).not.toContain('after-revocation-line');
    const rows = deps.input.audit.list({ limit: 50 }).filter((r) => r.tool === 'terminal_send_text').sort((a, b) => a.id - b.id);
    expect(rows.at(-1)).toMatchObject({ decision: 'BLOCKED', errorCode: (view as { error_code: string }).error_code });
  });
});
