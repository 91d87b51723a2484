// Guards resume_after_limit on a node session (a real sshd and a real remote tmux, a real broker process, real time): the agent is parked with its reset, resumed once at the reset through the node's input path (audited as node:session), and parked again when it prints the limit again.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createBrokerClient, type BrokerClient } from '@terminal-mcp/broker-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNodeFixture, type NodeFixture } from './helpers/node-fixture.js';
import { sshdUnavailable } from './helpers/sshd.js';
import { waitFor } from './helpers/wait-for.js';
import { limitStandInScript, resetLabel } from './helpers/limit-stand-in.js';

const unavailable = sshdUnavailable();
if (unavailable !== undefined) console.log(`skipping the node usage-limit test: ${unavailable}`);

const root = mkdtempSync(join(tmpdir(), 'tmcp-node-limits-'));
let fixture: NodeFixture | undefined;
let client: BrokerClient<'gateway'>;

describe.skipIf(unavailable !== undefined)('resume_after_limit on a node session', { timeout: 300_000 }, () => {
  beforeAll(async () => {
    writeFileSync(join(root, 'stand-in.py'), limitStandInScript());
    fixture = await startNodeFixture({
      config: {
        allowed_session_patterns: ['agent-*'],
        permissions: { terminal_input: true },
        input_policy: { allowed_session_patterns: ['agent-*'] },
        supervisor: { enabled: true, max_iterations: 1000, resume_after_limit: { enabled: true, session_patterns: ['gpu:agent-*'], extra_delay_seconds: 0 } },
      },
      node: { allowed_session_patterns: ['agent-*'] },
    });
    client = createBrokerClient({ role: 'gateway', socketPath: join(fixture.broker.socketDir, 'gateway.sock') });
  }, 180_000);

  afterAll(async () => {
    await fixture?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('parks the node agent, resumes it once at the reset through the node, and parks it again', async () => {
    const log = join(root, 'agent.log');
    writeFileSync(log, '');
    // Real time: the next whole minute at least 45 s away (a minute and 45 s at most), so a
    // loaded machine still parks before the reset passes.
    const first = Math.ceil((Date.now() + 45_000) / 60_000) * 60_000;
    const second = first + 5 * 3600_000;
    await fixture!.remote.newSession('agent-limit', `python3 ${join(root, 'stand-in.py')} ${resetLabel(first)} ${resetLabel(second)} ${log}`, { width: 120, height: 30 });
    await client.supervisor.watch.mutate({ session: 'gpu:agent-limit' });

    const reached = await waitFor('the park on the node session', async () =>
      (await client.supervisor.listEvents.query({ limit: 200 })).events.find((e) => e.event_type === 'limit_reached' && e.target === 'gpu:agent-limit'),
    );
    expect(reached.metadata).toMatchObject({ resets_at: new Date(first).toISOString(), resume: 'scheduled' });
    const listed = (await client.sessions.list.query({})).sessions.find((s) => s.name === 'gpu:agent-limit');
    expect(listed?.limit_resets_at).toBe(new Date(first).toISOString());
    expect(readFileSync(log, 'utf8')).toBe('');

    const resumed = await waitFor(
      'the resume at the reset',
      async () => (await client.supervisor.listEvents.query({ limit: 200 })).events.find((e) => e.event_type === 'limit_resumed' && e.target === 'gpu:agent-limit'),
      180_000,
      500,
    );
    expect(Date.parse(resumed.timestamp)).toBeGreaterThanOrEqual(first);
    expect(resumed.metadata).toMatchObject({ result: 'SENT', by: 'schedule' });
    await waitFor('the node agent read the resume text', () => readFileSync(log, 'utf8') === 'continue\n');

    // Audited once, as the supervisor, under the node-qualified name.
    const audit = new Database(join(fixture!.broker.stateDir, 'audit.db'), { readonly: true });
    try {
      const rows = audit.prepare("SELECT actor, session_name, decision FROM input_audit WHERE tool = 'supervisor_resume_after_limit'").all();
      expect(rows).toEqual([{ actor: 'broker:supervisor', session_name: 'gpu:agent-limit', decision: 'SENT' }]);
    } finally {
      audit.close();
    }

    // Still limited: parked again with the new reset, and nothing more typed.
    const again = await waitFor('the second park', async () =>
      (await client.supervisor.listEvents.query({ limit: 200 })).events.find(
        (e) => e.event_type === 'limit_reached' && e.target === 'gpu:agent-limit' && e.metadata.resets_at === new Date(second).toISOString(),
      ),
    );
    expect(again.metadata).toMatchObject({ resume: 'scheduled' });
    const supervisorDb = new Database(join(fixture!.broker.stateDir, 'supervisor.db'), { readonly: true });
    try {
      const parks = supervisorDb.prepare('SELECT state, resets_at FROM parks ORDER BY id').all();
      expect(parks).toEqual([
        { state: 'resumed', resets_at: first },
        { state: 'parked', resets_at: second },
      ]);
    } finally {
      supervisorDb.close();
    }
    expect(readFileSync(log, 'utf8')).toBe('continue\n');
  });
});
