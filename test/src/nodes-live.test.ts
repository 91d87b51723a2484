// Guards the dashboard's live screen of a node session (live.paneOutput on web.sock) over a real sshd and a real remote tmux: frames named node:session with the node's server-pinned session, redacted, following what is typed into the remote pane, one read-audit row per stream, the end of the stream when the session is replaced under its name; a session the node's own read patterns refuse is refused with no content and no event; no frame without an operator token; while sshd is gone the stream says NODE_UNAVAILABLE with the hint and resumes with the same session once the node is back.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createBrokerLiveClient, describeBrokerFailure, type BrokerLiveClient } from '@terminal-mcp/broker-client';
import type { PaneLiveEvent, PaneScreenFrame } from '@terminal-mcp/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrokerProcess } from './helpers/broker-process.js';
import { startNodeFixture, type NodeFixture } from './helpers/node-fixture.js';
import { createOperatorAccount } from './helpers/operator-account.js';
import { sshdUnavailable, type TestSshd } from './helpers/sshd.js';
import type { TmuxTestServer } from './helpers/tmux-server.js';
import { waitFor } from './helpers/wait-for.js';

const unavailable = sshdUnavailable();
if (unavailable !== undefined) console.log(`skipping the node live-view tests: ${unavailable}`);

const OPERATOR_PASSWORD = 'node live passphrase 27';
/** A key printed by the remote pane (its command line holds it in two halves only). */
const KEY_HEAD = 'sk-ant-api03-';
const KEY_TAIL = `${'Zq4'.repeat(12)}MnOpQrStUvWx`;

let remote: TmuxTestServer;
let sshd: TestSshd;
let broker: BrokerProcess;
let fixture: NodeFixture | undefined;
let live: BrokerLiveClient<'web'>;
let operatorSession: string;

/** A subscription's events and how it ended, collected as they come. */
interface Watch {
  readonly events: PaneLiveEvent[];
  readonly frames: () => PaneScreenFrame[];
  error: unknown;
  stop(): void;
}

function watch(session: string, token = operatorSession): Watch {
  const events: PaneLiveEvent[] = [];
  const w: Watch = {
    events,
    frames: () => events.filter((e): e is PaneScreenFrame => e.type === 'screen'),
    error: undefined,
    stop: () => sub.unsubscribe(),
  };
  const sub = live.client.live.paneOutput.subscribe(
    { session, operatorSession: token },
    {
      onData: (e) => events.push(e),
      onError: (err) => {
        w.error = err;
      },
    },
  );
  return w;
}

const readAudit = (where: string): Record<string, unknown>[] => {
  const db = new Database(join(broker.stateDir, 'audit.db'), { readonly: true });
  try {
    return db.prepare(`SELECT session_name, session_id, pane_id, error_code FROM read_audit WHERE tool = 'dashboard_live' AND ${where} ORDER BY id`).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
};

describe.skipIf(unavailable !== undefined)('the live screen of a node session', () => {
  beforeAll(async () => {
    fixture = await startNodeFixture({
      config: { allowed_session_patterns: ['agent-*'] },
      node: { allowed_session_patterns: ['agent-live'] },
      sessions: async (_here, there) => {
        await there.newSession('agent-live', 'bash --norc --noprofile', { width: 100, height: 30 });
        // Readable by the top-level patterns, not by the node's own: the node's policy decides.
        await there.newSession('agent-hidden', `bash --norc --noprofile -c 'echo hidden-marker-$((3*3)); exec sleep 3600'`);
      },
    });
    ({ remote, sshd, broker } = fixture);
    await createOperatorAccount(broker.env, 'watcher', OPERATOR_PASSWORD);
    live = createBrokerLiveClient({ role: 'web', socketPath: join(broker.socketDir, 'web.sock'), actor: () => 'dashboard-live' });
    operatorSession = (await live.client.auth.login.mutate({ username: 'watcher', password: OPERATOR_PASSWORD, sourceIp: '127.0.0.1' })).token;
    await waitFor('the remote shell prompt', async () => /[$#] *$/m.test(await remote.tmux(['capture-pane', '-p', '-t', '=agent-live:'])));
  });

  afterAll(async () => {
    await live?.close();
    await fixture?.stop();
  });

  it('refuses a session the node\'s read patterns do not allow: no screen, no event, nothing of its text', async () => {
    const w = watch('gpu:agent-hidden');
    await waitFor('the refusal', () => w.error !== undefined);
    expect(w.events).toEqual([]);
    const failure = describeBrokerFailure(w.error);
    expect(failure.code).toBe('SESSION_NOT_ALLOWED');
    expect(JSON.stringify({ failure, error: w.error })).not.toContain('hidden-marker');
    // Audited as a refused read of the node's session.
    expect(await waitFor('the refusal in the read audit', () => readAudit("session_name = 'gpu:agent-hidden'").at(0))).toEqual({ session_name: 'gpu:agent-hidden', session_id: null, pane_id: null, error_code: 'SESSION_NOT_ALLOWED' });
  });

  it('serves no frame of a node session without a signed-in operator', async () => {
    const w = watch('gpu:agent-live', 'x'.repeat(43));
    await waitFor('the refusal', () => w.error !== undefined);
    expect(w.events).toEqual([]);
    expect(describeBrokerFailure(w.error).code).toBe('UNAUTHENTICATED');
  });

  it('follows the remote pane: typed text appears, a secret never does, one read-audit row for the stream', async () => {
    const w = watch('gpu:agent-live');
    const first = await waitFor('the first frame', () => w.frames().at(0));
    const remoteId = (await remote.tmux(['display-message', '-p', '-t', '=agent-live:', '#{session_id} #{pane_id}'])).trim().split(' ');
    expect(first).toMatchObject({ type: 'screen', seq: 0, session: 'gpu:agent-live', sessionId: `gpu:${remoteId[0]}`, paneId: remoteId[1], width: 100, height: 30 });

    await remote.tmux(['send-keys', '-t', '=agent-live:', 'echo typed-on-node-$((6*7))', 'Enter']);
    await waitFor('the typed text on screen', () => w.frames().some((f) => /^typed-on-node-42/m.test(f.data.replace(/\r/g, ''))));
    await remote.tmux(['send-keys', '-t', '=agent-live:', `printf '%s%s\\n' ${KEY_HEAD} ${KEY_TAIL}; echo key-printed`, 'Enter']);
    const keyed = await waitFor('the printed key, redacted', () => w.frames().find((f) => /^key-printed/m.test(f.data.replace(/\r/g, ''))));
    expect(keyed.data).toContain('[REDACTED:anthropic_api_key]');
    expect(keyed.redactions).toBeGreaterThan(0);
    expect(w.events.map((e) => (e.type === 'screen' ? e.data : '')).join('\n')).not.toContain(`${KEY_HEAD}${KEY_TAIL}`);
    expect(w.frames().map((f) => f.seq)).toEqual(w.frames().map((_, i) => i));
    expect(w.error).toBeUndefined();
    w.stop();
    // However many frames, the stream is one read of the node's session.
    const rows = await waitFor('the stream in the read audit', () => {
      const r = readAudit("session_name = 'gpu:agent-live'");
      return r.length > 0 ? r : undefined;
    });
    expect(rows).toEqual([{ session_name: 'gpu:agent-live', session_id: `gpu:${remoteId[0]}`, pane_id: remoteId[1], error_code: null }]);
  });

  it('says NODE_UNAVAILABLE with the hint while the node is down, and resumes the same session when it is back', async () => {
    const w = watch('gpu:agent-live');
    const first = await waitFor('the first frame', () => w.frames().at(0));
    await sshd.kill();
    const down = await waitFor('the outage in the stream', () => w.events.find((e) => e.type === 'unavailable'));
    expect(down).toMatchObject({ type: 'unavailable', code: 'NODE_UNAVAILABLE', session: 'gpu:agent-live' });
    expect(down.type === 'unavailable' && down.hint.length > 0).toBe(true);
    expect(w.error).toBeUndefined();

    await sshd.start();
    const outageAt = w.events.indexOf(down);
    // Back: a fresh frame of the same session (same node server, id), then new output follows.
    const again = await waitFor('a frame after the outage', () => w.events.slice(outageAt + 1).find((e): e is PaneScreenFrame => e.type === 'screen'));
    expect(again.sessionId).toBe(first.sessionId);
    await remote.tmux(['send-keys', '-t', '=agent-live:', 'echo after-outage-$((50+8))', 'Enter']);
    await waitFor('output after the outage', () => w.frames().some((f) => /^after-outage-58/m.test(f.data.replace(/\r/g, ''))));
    expect(w.error).toBeUndefined();
    w.stop();
  });

  it('ends with IDENTITY_CHANGED when the session is replaced under its name on the node', async () => {
    const w = watch('gpu:agent-live');
    await waitFor('the first frame', () => w.frames().at(0));
    // Killed and created again in one tmux command: the next capture sees the new session.
    await remote.tmux(['kill-session', '-t', '=agent-live', ';', 'new-session', '-d', '-s', 'agent-live', '-x', '100', '-y', '30', `sh -c 'echo replaced-session; exec sleep 3600'`]);
    await waitFor('the end of the stream', () => w.error !== undefined);
    expect(describeBrokerFailure(w.error).code).toBe('IDENTITY_CHANGED');
    expect(w.frames().some((f) => f.data.includes('replaced-session'))).toBe(false);
  });
});
