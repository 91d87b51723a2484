// The recorder writes only readable sessions' output, redacted before it reaches the disk (split, slow, SGR-interleaved and PEM attacks through a real tmux pane), as asciicast v2 with 0600/0700 modes, rotates and caps segments, and stops when a grant is revoked.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, configSchema } from '../../config/schema.js';
import { startLiveTestBroker, type LiveTestBroker } from '../../testing/live-broker.testkit.js';
import type { TranscriptRecorder } from './recorder.js';
import { dirNameOf, transcriptsRoot } from './transcript-files.js';
import { waitFor } from '../../../../../test/src/helpers/wait-for.js';

let stateDir: string;
let broker: LiveTestBroker;
let recorder: TranscriptRecorder;

const config = configSchema.parse({ ...DEFAULT_CONFIG, transcripts: { enabled: true, segment_bytes: 4096, max_bytes_per_session: 12288 } });

/** Everything stored for a session: every byte of every file in its directory. */
function onDisk(sessionId: string): string {
  const id = [...recorder.recording(), ...recorder.store.list().map((e) => e.meta)].find((i) => i.sessionId === sessionId);
  if (!id) return '';
  const dir = join(transcriptsRoot(stateDir), dirNameOf(id));
  return readdirSync(dir)
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n');
}

/** What the registry's pass does for the recorder (start-broker.ts wires it as onReconciled). */
const reconcile = async () => recorder.sync(await broker.deps.tmux.listSessions(), broker.deps.access);

beforeAll(async () => {
  stateDir = mkdtempSync(join(tmpdir(), 'tmcp-transcripts-'));
  broker = await startLiveTestBroker({ config, stateDir, graceMs: 100 });
  recorder = broker.deps.transcripts;
});

afterAll(async () => {
  await recorder?.close();
  await broker?.close();
  rmSync(stateDir, { recursive: true, force: true });
});

describe('transcript recorder', () => {
  it('stores no secret of a split, slow, SGR-interleaved or PEM-body attack', async () => {
    const s = await broker.server.newSession('test-attack', 'cat');
    await reconcile();
    await waitFor('recording', () => recorder.recording().some((i) => i.sessionId === s.sessionId));
    const pane = s.paneId;
    // Split across writes (two %output chunks), then one character at a time.
    await broker.server.tmux(['send-keys', '-t', pane, '-l', 'one AKIAIOSF']);
    await new Promise((r) => setTimeout(r, 300));
    await broker.server.tmux(['send-keys', '-t', pane, '-l', 'ODNN7EXAMPLE']);
    await broker.server.tmux(['send-keys', '-t', pane, 'Enter']);
    for (const ch of 'two ghp_abcdefghijklmnopqrstuvwxyz0123456789AB') await broker.server.tmux(['send-keys', '-t', pane, '-l', ch]);
    await broker.server.tmux(['send-keys', '-t', pane, 'Enter']);
    // SGR-interleaved, printed by a program.
    const printer = await broker.server.newSession('test-printer', "sh -c \"read go; printf 'three AKIA\\033[0mIOSFODNN7EXAMPLE\\n-----BEGIN OPENSSH PRIVATE KEY-----\\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\\nZZlastbodylineQ9x\\n-----END OPENSSH PRIVATE KEY-----\\nfour done\\n'; exec cat\"");
    await reconcile();
    await waitFor('printer recorded', () => recorder.recording().some((i) => i.sessionId === printer.sessionId));
    await broker.server.tmux(['send-keys', '-t', printer.paneId, 'Enter']);
    await broker.server.tmux(['send-keys', '-t', pane, '-l', 'marker-end']);
    await broker.server.tmux(['send-keys', '-t', pane, 'Enter']);
    const text = await waitFor('both lines stored', () => {
      const t = onDisk(s.sessionId);
      return t.includes('marker-end') && t;
    });
    expect(text).toContain('one [REDACTED:aws_access_key_id]');
    expect(text).toContain('two [REDACTED:github_token]');
    for (const secret of ['IOSFODNN7', 'abcdefghij', 'ODNN7EXAMPLE']) expect(text).not.toContain(secret);
    const printed = await waitFor('printer output stored', () => {
      const t = onDisk(printer.sessionId);
      return t.includes('four done') && t;
    });
    expect(printed).toContain('three [REDACTED:aws_access_key_id]');
    for (const secret of ['IOSFODNN7', 'b3BlbnNzaC1', 'ZZlastbody']) expect(printed).not.toContain(secret);
  });

  it('records as asciicast v2 with private file modes', async () => {
    const s = await broker.server.newSession('test-modes', 'cat');
    await reconcile();
    await waitFor('recording', () => recorder.recording().some((i) => i.sessionId === s.sessionId));
    await broker.server.tmux(['send-keys', '-t', s.paneId, '-l', 'hello cast']);
    await broker.server.tmux(['send-keys', '-t', s.paneId, 'Enter']);
    await waitFor('line stored', () => onDisk(s.sessionId).includes('hello cast'));
    const id = recorder.recording().find((i) => i.sessionId === s.sessionId)!;
    const dir = join(transcriptsRoot(stateDir), dirNameOf(id));
    expect(statSync(transcriptsRoot(stateDir)).mode & 0o777).toBe(0o700);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const cast = readdirSync(dir).find((f) => f.endsWith('.cast'))!;
    expect(statSync(join(dir, cast)).mode & 0o777).toBe(0o600);
    const [header, ...events] = readFileSync(join(dir, cast), 'utf8').trimEnd().split('\n');
    expect(JSON.parse(header!)).toMatchObject({ version: 2, width: expect.any(Number), height: expect.any(Number) });
    for (const e of events) expect(JSON.parse(e)).toEqual([expect.any(Number), 'o', expect.any(String)]);
  });

  it('does not record a session the read policy does not admit', async () => {
    const s = await broker.server.newSession('private-notes', 'cat');
    await reconcile();
    await broker.server.tmux(['send-keys', '-t', s.paneId, '-l', 'secret diary']);
    await broker.server.tmux(['send-keys', '-t', s.paneId, 'Enter']);
    await new Promise((r) => setTimeout(r, 500));
    expect(recorder.recording().some((i) => i.sessionId === s.sessionId)).toBe(false);
    expect(onDisk(s.sessionId)).toBe('');
  });

  it('records a granted session and stops once the grant is revoked', async () => {
    const s = await broker.server.newSession('granted-one', 'cat');
    const facts = (await broker.adapter.listSessions()).find((x) => x.sessionId === s.sessionId)!;
    const grants = broker.deps.stores.grants;
    grants.apply([{ kind: 'grant', sessionName: 'granted-one', identity: facts, input: false, expiresAt: null }], 'test', Date.now());
    await reconcile();
    await waitFor('recording', () => recorder.recording().some((i) => i.sessionId === s.sessionId));
    await broker.server.tmux(['send-keys', '-t', s.paneId, '-l', 'while granted']);
    await broker.server.tmux(['send-keys', '-t', s.paneId, 'Enter']);
    await waitFor('granted line stored', () => onDisk(s.sessionId).includes('while granted'));
    grants.apply([{ kind: 'revoke', sessionName: 'granted-one' }], 'test', Date.now());
    // No reconcile: the recorder asks the gate again on output.
    await new Promise((r) => setTimeout(r, 1_200));
    await broker.server.tmux(['send-keys', '-t', s.paneId, '-l', 'after revoke']);
    await broker.server.tmux(['send-keys', '-t', s.paneId, 'Enter']);
    await waitFor('recording stopped', () => !recorder.recording().some((i) => i.sessionId === s.sessionId));
    expect(onDisk(s.sessionId)).not.toContain('after revoke');
  });

  it('rotates segments and drops the oldest past the per-session cap', async () => {
    const s = await broker.server.newSession('test-rotate', 'cat');
    await reconcile();
    await waitFor('recording', () => recorder.recording().some((i) => i.sessionId === s.sessionId));
    for (let i = 0; i < 12; i += 1) {
      await broker.server.tmux(['send-keys', '-t', s.paneId, '-l', `${'r'.repeat(900)}-${i}`]);
      await broker.server.tmux(['send-keys', '-t', s.paneId, 'Enter']);
    }
    await waitFor('last line stored', () => onDisk(s.sessionId).includes('-11'));
    const id = recorder.recording().find((i) => i.sessionId === s.sessionId)!;
    const range = recorder.store.range(id)!;
    expect(range.first).toBeGreaterThan(0);
    const dir = join(transcriptsRoot(stateDir), dirNameOf(id));
    const total = readdirSync(dir)
      .filter((f) => f.endsWith('.cast'))
      .reduce((n, f) => n + statSync(join(dir, f)).size, 0);
    expect(total).toBeLessThanOrEqual(config.transcripts.max_bytes_per_session + config.transcripts.segment_bytes + 4096);
  });
});
