// Guards transcripts of node sessions (effects/transcripts/node-recorder.ts, polled through the node's reader) over a real sshd and a real remote tmux: output printed in gpu:agent-out comes back from read_since with its secret redacted and nothing of this host's session of the same name; the files on disk are the node's own and hold no secret; a node session the node's read patterns refuse is never recorded and its reads are refused without content; a gone node session stays readable with include_dead; while sshd is gone read_since answers NODE_UNAVAILABLE and, once it is back, what was printed meanwhile arrives once; a burst longer than the pane's history between two looks is marked unrecorded.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createBrokerClient, type BrokerClient } from '@terminal-mcp/broker-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrokerProcess } from './helpers/broker-process.js';
import { failureOf } from './helpers/broker-failure.js';
import { startNodeFixture, type NodeFixture } from './helpers/node-fixture.js';
import { sshdUnavailable, type TestSshd } from './helpers/sshd.js';
import type { TmuxTestServer } from './helpers/tmux-server.js';
import { waitFor } from './helpers/wait-for.js';

const unavailable = sshdUnavailable();
if (unavailable !== undefined) console.log(`skipping the node transcript tests: ${unavailable}`);

// The secret format the local transcript tests print (test/src/transcript-reads.test.ts).
const TOKEN = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789AB';
/** A pane's small history for the burst test: a burst of many times this is certain to
 * scroll past it between two looks. */
const SMALL_HISTORY = 40;

let remote: TmuxTestServer;
let sshd: TestSshd;
let broker: BrokerProcess;
let fixture: NodeFixture | undefined;
let client: BrokerClient<'gateway'>;

/** Types a command line into a remote session's pane. */
async function type(session: string, line: string): Promise<void> {
  await remote.tmux(['send-keys', '-t', `=${session}:`, '-l', line]);
  await remote.tmux(['send-keys', '-t', `=${session}:`, 'Enter']);
}

const cursorOf = async (session: string) => {
  const cursor = (await client.sessions.tail.query({ session, lines: 5 })).cursor;
  expect(cursor).toBeTypeOf('string');
  return cursor!;
};

/** read_since from `cursor` until `done` holds for the text (the recorder looks every 2 s). */
const readUntil = (session: string, cursor: string, done: (text: string) => boolean) =>
  waitFor(`read_since of ${session} to show what was printed`, async () => {
    const r = await client.sessions.readSince.query({ session, cursor, max_lines: 500 });
    return done(r.text) ? r : undefined;
  });

const exactly = (text: string, line: string) => text.split('\n').filter((l) => l === line).length;

/** Every file under `dir`, as text (transcripts and metas). */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'));
}

const nodeStore = () => join(broker.stateDir, 'transcripts', 'nodes', 'gpu');
/** Names in the node's transcript metas. */
const recordedNames = () => filesUnder(nodeStore()).flatMap((t) => (t.startsWith('{"version":1') ? [(JSON.parse(t) as { name: string }).name] : []));

describe.skipIf(unavailable !== undefined)('transcripts of node sessions', () => {
  beforeAll(async () => {
    fixture = await startNodeFixture({
      config: { allowed_session_patterns: ['agent-*', 'private-*'] },
      node: { allowed_session_patterns: ['agent-*'] },
      sessions: async (here, there) => {
        // The same name on this host: nothing of it may ever be served as the node's.
        await here.newSession('agent-out', `bash --norc --noprofile -c 'echo local-only-line; exec sleep 3600'`);
        await there.newSession('agent-out', 'bash --norc --noprofile');
        await there.newSession('agent-gone', 'bash --norc --noprofile');
        await there.newSession('private-notes', `bash --norc --noprofile -c 'echo private-content-xyz; exec sleep 3600'`);
        // history-limit applies to panes created after it is set.
        await there.tmux(['set-option', '-g', 'history-limit', String(SMALL_HISTORY)]);
        await there.newSession('agent-burst', 'bash --norc --noprofile');
      },
    });
    ({ remote, sshd, broker } = fixture);
    client = createBrokerClient({ role: 'gateway', socketPath: join(broker.socketDir, 'gateway.sock') });
  });

  afterAll(async () => {
    await fixture?.stop();
  });

  it("returns a node session's output since a cursor, redacted, and never this host's session of the same name", async () => {
    const cursor = await cursorOf('gpu:agent-out');
    await type('agent-out', `echo node-line-1; echo "token ${TOKEN}"; echo node-line-3`);
    const r = await readUntil('gpu:agent-out', cursor, (t) => exactly(t, 'node-line-3') === 1);
    expect(r).toMatchObject({ session: 'gpu:agent-out', session_id: expect.stringMatching(/^gpu:\$\d+$/), dead: false });
    expect(exactly(r.text, 'node-line-1')).toBe(1);
    expect(r.text).toContain('token [REDACTED');
    expect(r.text).not.toContain(TOKEN);
    expect(r.redactions).toBeGreaterThan(0);
    expect(r.text).not.toContain('local-only-line');
    // The next read from the returned cursor has nothing of it again. A line wrapped at the
    // pane's width (80) with the secret across the wrap is stored whole, and redacted.
    await type('agent-out', `echo node-line-4; echo "$(printf 'x%.0s' {1..70}) ${TOKEN} wrapped-tail"`);
    const next = await readUntil('gpu:agent-out', r.cursor, (t) => t.split('\n').some((l) => l.endsWith(' wrapped-tail')));
    expect(exactly(next.text, 'node-line-4')).toBe(1);
    expect(next.text).not.toContain('node-line-1');
    expect(next.text.split('\n').find((l) => l.endsWith(' wrapped-tail'))).toMatch(/^x{70} \[REDACTED[^\]]*\] wrapped-tail$/);
    expect(next.text).not.toContain('ghp_abcdefgh');

    // Stored in the node's own store, redacted; this host's transcripts have none of it.
    const stored = filesUnder(nodeStore()).join('\n');
    expect(stored).toContain('node-line-3');
    expect(stored).not.toContain(TOKEN);
    const localStored = readdirSync(join(broker.stateDir, 'transcripts'))
      .filter((d) => d !== 'nodes')
      .flatMap((d) => filesUnder(join(broker.stateDir, 'transcripts', d)))
      .join('\n');
    expect(localStored).not.toContain('node-line-3');

    // A cursor of one host is not one of the other, even for the same name.
    const localCursor = await cursorOf('agent-out');
    expect((await failureOf(client.sessions.readSince.query({ session: 'gpu:agent-out', cursor: localCursor }))).code).toBe('INVALID_ARGUMENT');
    expect((await failureOf(client.sessions.readSince.query({ session: 'agent-out', cursor: r.cursor }))).code).toBe('INVALID_ARGUMENT');
    const here = await client.sessions.readSince.query({ session: 'agent-out', cursor: localCursor });
    expect(here.text).not.toContain('node-line');

    // The reads are audited as the node's (the recording itself, as with pipes, is not a
    // read of anyone's).
    const db = new Database(join(broker.stateDir, 'audit.db'), { readonly: true });
    try {
      const rows = await waitFor('read_since in the read audit', () => {
        const found = db.prepare("SELECT session_name, session_id FROM read_audit WHERE tool = 'terminal_read_since' AND error_code IS NULL").all() as { session_name: string; session_id: string }[];
        return found.some((row) => row.session_name === 'gpu:agent-out') ? found : undefined;
      });
      for (const row of rows.filter((x) => x.session_name === 'gpu:agent-out')) expect(row.session_id).toMatch(/^gpu:\$\d+$/);
    } finally {
      db.close();
    }

    // Export names the node and holds the redacted lines.
    const cast = await client.sessions.exportTranscript.query({ session: 'gpu:agent-out' });
    expect(cast.session).toBe('gpu:agent-out');
    expect(cast.cast).toContain('node-line-3');
    expect(cast.cast).not.toContain(TOKEN);
  });

  it("never records a session the node's read patterns refuse, and refuses its transcript without content", async () => {
    // A session made now is recorded by the recorder's own pass (nobody reads it): once it
    // is, a pass has seen private-notes too.
    await remote.newSession('agent-later', `bash --norc --noprofile -c 'echo later-line; exec sleep 3600'`);
    await waitFor('a pass to record agent-later', () => recordedNames().includes('agent-later'));
    expect(recordedNames()).not.toContain('private-notes');
    const cursor = await cursorOf('gpu:agent-out');
    for (const failure of [
      await failureOf(client.sessions.readSince.query({ session: 'gpu:private-notes', cursor })),
      await failureOf(client.sessions.exportTranscript.query({ session: 'gpu:private-notes' })),
      await failureOf(client.sessions.tail.query({ session: 'gpu:private-notes' })),
    ]) {
      expect(failure.code).toBe('SESSION_NOT_ALLOWED');
      expect(JSON.stringify(failure)).not.toContain('private-content');
    }
    // private-* is readable on this host: the node's patterns decided.
    expect(filesUnder(nodeStore()).join('\n')).not.toContain('private-content');
  });

  it('keeps a gone node session readable with include_dead, named with its node', async () => {
    const cursor = await cursorOf('gpu:agent-gone');
    await type('agent-gone', 'echo gone-line');
    await readUntil('gpu:agent-gone', cursor, (t) => exactly(t, 'gone-line') === 1);
    await remote.tmux(['kill-session', '-t', '=agent-gone']);
    const refused = await waitFor('the gone session to answer SESSION_NOT_FOUND', async () => {
      const f = await failureOf(client.sessions.tail.query({ session: 'gpu:agent-gone' }));
      return f.code === 'SESSION_NOT_FOUND' ? f : undefined;
    });
    expect(refused.hint).toContain('include_dead');
    const dead = await client.sessions.tail.query({ session: 'gpu:agent-gone', include_dead: true });
    expect(dead).toMatchObject({ session: 'gpu:agent-gone', session_id: expect.stringMatching(/^gpu:\$\d+$/), dead: true });
    expect(exactly(dead.text, 'gone-line')).toBe(1);
    const since = await client.sessions.readSince.query({ session: 'gpu:agent-gone', cursor, include_dead: true });
    expect(exactly(since.text, 'gone-line')).toBe(1);
    expect(since.dead).toBe(true);
    // This host has no session of that name: nothing local answers for it.
    expect((await failureOf(client.sessions.tail.query({ session: 'agent-gone', include_dead: true }))).code).toBe('SESSION_NOT_FOUND');
  });

  it('answers NODE_UNAVAILABLE while sshd is gone, then records what was printed meanwhile, once', async () => {
    const cursor = await cursorOf('gpu:agent-out');
    await type('agent-out', 'echo before-down');
    await readUntil('gpu:agent-out', cursor, (t) => exactly(t, 'before-down') === 1);
    await sshd.kill();
    const down = await waitFor('read_since to say the node is down', async () => {
      const f = await failureOf(client.sessions.readSince.query({ session: 'gpu:agent-out', cursor }));
      return f.code === 'NODE_UNAVAILABLE' ? f : undefined;
    });
    expect(down.message).toContain('gpu');
    // Printed while the broker cannot reach the node (the node's tmux runs on).
    await type('agent-out', 'echo during-down');
    await sshd.start();
    await waitFor('the node to come back', async () => (await client.sessions.list.query({})).nodes?.find((n) => n.node === 'gpu')?.state === 'up');
    await type('agent-out', 'echo after-up');
    const r = await readUntil('gpu:agent-out', cursor, (t) => exactly(t, 'after-up') === 1);
    for (const line of ['before-down', 'during-down', 'after-up']) expect(exactly(r.text, line)).toBe(1);
    expect(r.text).not.toContain('local-only-line');
  });

  it("marks output lost when more than the pane's history scrolled by between two looks", async () => {
    // A line recorded first: what was written is what a later look must find again (a
    // pane with nothing recorded but a prompt has nothing to compare).
    const first = await cursorOf('gpu:agent-burst');
    await type('agent-burst', 'echo burst-ready');
    const ready = await readUntil('gpu:agent-burst', first, (t) => exactly(t, 'burst-ready') === 1);
    const cursor = ready.cursor;
    await type('agent-burst', 'echo burst-start; seq 1 20000; echo burst-end');
    const r = await readUntil('gpu:agent-burst', cursor, (t) => exactly(t, 'burst-end') === 1);
    expect(r).toMatchObject({ dropped: true, dropped_reason: 'unrecorded' });
    // Far fewer lines than were printed: the history never held them.
    expect(r.line_count).toBeLessThan(20000);
    expect(exactly(r.text, 'burst-end')).toBe(1);
  });
});
