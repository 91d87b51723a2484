// terminal_read_since says what it dropped (more than max_lines; a cursor before the oldest kept segment), returns a partial line as pending without passing it, refuses cursors it did not issue for that session, and loses nothing between a read (a tail, a batch) and its cursor.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSchema, DEFAULT_CONFIG } from '../config/schema.js';
import type { TranscriptRecorder } from '../effects/transcripts/recorder.js';
import { startLiveTestBroker, type LiveTestBroker } from '../testing/live-broker.testkit.js';
import { encodeCursor, decodeCursor } from './cursor.js';
import { createContextInner } from '../rpc/context.js';
import { gatewayRouter } from '../rpc/roles/gateway.js';
import { createCallerFactory } from '../rpc/trpc.js';
import type { TranscriptReads } from './transcript-reads.js';
import { waitFor } from '../../../../test/src/helpers/wait-for.js';

let stateDir: string;
let broker: LiveTestBroker;
let recorder: TranscriptRecorder;
let reads: TranscriptReads;

const config = configSchema.parse({ ...DEFAULT_CONFIG, transcripts: { enabled: true, segment_bytes: 4096, max_bytes_per_session: 8192 } });

const tailCursor = async (name: string) => (await reads.withCursor(name, () => broker.deps.reader.tail(name, 5))).cursor!;

async function typeLines(paneId: string, lines: readonly string[]): Promise<void> {
  for (const l of lines) {
    await broker.server.tmux(['send-keys', '-t', paneId, '-l', l]);
    await broker.server.tmux(['send-keys', '-t', paneId, 'Enter']);
  }
}

beforeAll(async () => {
  stateDir = mkdtempSync(join(tmpdir(), 'tmcp-readsince-'));
  broker = await startLiveTestBroker({ config, stateDir, graceMs: 100 });
  recorder = broker.deps.transcripts;
  reads = broker.deps.transcriptReads;
});

afterAll(async () => {
  await recorder?.close();
  await broker?.close();
  rmSync(stateDir, { recursive: true, force: true });
});

describe('terminal_read_since', () => {
  it('returns the newest max_lines and counts the rest as dropped', async () => {
    // No tty echo: each typed line is printed once, by cat.
    const s = await broker.server.newSession('test-many', 'stty -echo; exec cat');
    const cursor = await tailCursor('test-many');
    await typeLines(s.paneId, Array.from({ length: 30 }, (_, i) => `many-${i + 1}`));
    const r = await waitFor('all lines recorded', async () => {
      const out = await reads.readSince({ session: 'test-many', cursor, max_lines: 10 });
      return out.text.includes('many-30') && out;
    });
    expect(r).toMatchObject({ dropped: true, dropped_reason: 'max_lines', line_count: 10, dead: false });
    expect(r.dropped_lines).toBeGreaterThanOrEqual(20);
    expect(r.text.split('\n').at(-1)).toBe('many-30');
  });

  it('says rotated when the cursor points before the oldest kept segment', async () => {
    const s = await broker.server.newSession('test-rotated', 'stty -echo; exec cat');
    const cursor = await tailCursor('test-rotated');
    await typeLines(s.paneId, Array.from({ length: 20 }, (_, i) => `${'w'.repeat(800)}-${i + 1}`));
    const r = await waitFor('rotation', async () => {
      const out = await reads.readSince({ session: 'test-rotated', cursor, max_lines: 2000 });
      return out.text.includes('-20') && out;
    });
    expect(r).toMatchObject({ dropped: true, dropped_reason: 'rotated' });
    expect(r.text).not.toContain(`${'w'.repeat(800)}-1\n`);
  });

  it('returns a partial line as pending and keeps the cursor before it', async () => {
    const s = await broker.server.newSession('test-pending', "sh -c 'read go; printf \"Continue? [y/N] \"; read x; exec sleep 600'");
    const cursor = await tailCursor('test-pending');
    await broker.server.tmux(['send-keys', '-t', s.paneId, 'Enter']);
    const r = await waitFor('prompt pending', async () => {
      const out = await reads.readSince({ session: 'test-pending', cursor });
      return out.pending?.includes('Continue?') && out;
    });
    const again = await reads.readSince({ session: 'test-pending', cursor: r.cursor });
    expect(again).toMatchObject({ line_count: 0, pending: 'Continue? [y/N] ', cursor: r.cursor });
  });

  it('loses nothing between the first read of a session not yet recorded and its recording', async () => {
    // Prints all the time: lines between the tail and the recording's start would be lost
    // if the recording started only after the read.
    await broker.server.newSession('test-first-read', "sh -c 'i=0; while [ $i -lt 3000 ]; do i=$((i+1)); echo first-$i; sleep 0.02; done; exec sleep 600'");
    await waitFor('the pane printing', async () => (await broker.server.tmux(['capture-pane', '-p', '-t', '=test-first-read:'])).includes('first-5'));
    expect(recorder.positionByName('test-first-read')).toBeNull();
    const ticks = (text: string) => text.split('\n').flatMap((l) => (/^first-\d+$/.test(l) ? [Number(l.slice(6))] : []));
    const tail = await reads.withCursor('test-first-read', () => broker.deps.reader.tail('test-first-read', 5));
    const lastSeen = ticks(tail.text).at(-1)!;
    const since = await waitFor('lines after the tail', async () => {
      const out = await reads.readSince({ session: 'test-first-read', cursor: tail.cursor!, max_lines: 2000 });
      return (ticks(out.text).at(-1) ?? 0) > lastSeen + 5 && out;
    });
    // The next line after the tail's last is there (lines before it may repeat: never lost).
    expect(ticks(since.text)).toContain(lastSeen + 1);
  });

  it('a terminal_tail of a session not yet recorded asks the access gate once', async () => {
    // The gate admits the session to start its recording before the read (the cursor must
    // not miss output); the read then takes that admitted target instead of asking again.
    await broker.server.newSession('test-one-gate', "sh -c 'echo one-gate-ready; exec sleep 600'");
    await waitFor('the pane printing', async () => (await broker.server.tmux(['capture-pane', '-p', '-t', '=test-one-gate:'])).includes('one-gate-ready'));
    expect(recorder.positionByName('test-one-gate')).toBeNull();
    const gate = broker.deps.access;
    const readable = gate.readable.bind(gate);
    let asked = 0;
    gate.readable = (name, listing, pane) => {
      if (name === 'test-one-gate') asked += 1;
      return readable(name, listing, pane);
    };
    try {
      const gateway = createCallerFactory(gatewayRouter)(createContextInner({ role: 'gateway', deps: broker.deps }));
      const first = await gateway.sessions.tail({ session: 'test-one-gate', lines: 5 });
      expect(first.text).toContain('one-gate-ready');
      expect(first.cursor).toBeDefined();
      expect(recorder.positionByName('test-one-gate')).not.toBeNull();
      expect(asked).toBe(1);
      // Recorded now: the next tail asks once too.
      asked = 0;
      await gateway.sessions.tail({ session: 'test-one-gate', lines: 5 });
      expect(asked).toBe(1);
    } finally {
      gate.readable = readable;
    }
  });

  it('loses nothing between a batch read of recorded sessions and its cursors', async () => {
    // A batch answers once every pane is read and redacted; a cursor taken only then would
    // skip what a printing pane recorded meanwhile. The read below takes its time after
    // capturing (as a batch of 25 busy panes may): no cursor may depend on how long.
    await broker.server.newSession('test-batch-print', "sh -c 'i=0; while [ $i -lt 3000 ]; do i=$((i+1)); echo batch-$i; sleep 0.02; done; exec sleep 600'");
    await broker.server.newSession('test-batch-quiet', 'sleep 600');
    const ticks = (text: string) => text.split('\n').flatMap((l) => (/^batch-\d+$/.test(l) ? [Number(l.slice(6))] : []));
    const started = await tailCursor('test-batch-print');
    await waitFor('the pane recorded', async () => ticks((await reads.readSince({ session: 'test-batch-print', cursor: started, max_lines: 2000 })).text).length > 3);
    const names = ['test-batch-print', 'test-batch-quiet'];
    for (let round = 0; round < 3; round++) {
      const items = await reads.withCursors(names, async () => {
        const read = await broker.deps.reader.batchInspect(names, 5);
        await new Promise((r) => setTimeout(r, 300));
        return read;
      });
      const printed = items[0]!;
      if (!printed.ok) throw new Error(`batch item failed: ${printed.error_code}`);
      const lastSeen = ticks(printed.tail.text).at(-1)!;
      const since = await waitFor('lines after the batch read', async () => {
        const out = await reads.readSince({ session: 'test-batch-print', cursor: printed.tail.cursor!, max_lines: 2000 });
        return (ticks(out.text).at(-1) ?? 0) > lastSeen + 2 && out;
      });
      expect(since.dropped).toBe(false);
      expect(ticks(since.text)).toContain(lastSeen + 1);
    }
  });

  it('a batch naming a session not recorded yet starts its recording before the read', async () => {
    await broker.server.newSession('test-batch-first', "sh -c 'i=0; while [ $i -lt 3000 ]; do i=$((i+1)); echo first-batch-$i; sleep 0.02; done; exec sleep 600'");
    await waitFor('the pane printing', async () => (await broker.server.tmux(['capture-pane', '-p', '-t', '=test-batch-first:'])).includes('first-batch-5'));
    expect(recorder.positionByName('test-batch-first')).toBeNull();
    const ticks = (text: string) => text.split('\n').flatMap((l) => (/^first-batch-\d+$/.test(l) ? [Number(l.slice(12))] : []));
    const [item] = await reads.withCursors(['test-batch-first'], async () => {
      const read = await broker.deps.reader.batchInspect(['test-batch-first'], 5);
      await new Promise((r) => setTimeout(r, 300));
      return read;
    });
    if (!item?.ok) throw new Error('batch item failed');
    const lastSeen = ticks(item.tail.text).at(-1)!;
    const since = await waitFor('lines after the batch read', async () => {
      const out = await reads.readSince({ session: 'test-batch-first', cursor: item.tail.cursor!, max_lines: 2000 });
      return (ticks(out.text).at(-1) ?? 0) > lastSeen + 2 && out;
    });
    expect(ticks(since.text)).toContain(lastSeen + 1);
  });

  it('refuses a cursor of another session, one off a line boundary, and garbage', async () => {
    await broker.server.newSession('test-cursor-a', 'sleep 600');
    const s = await broker.server.newSession('test-cursor-b', 'stty -echo; exec cat');
    const a = await tailCursor('test-cursor-a');
    const b = await tailCursor('test-cursor-b');
    await typeLines(s.paneId, ['boundary line']);
    await waitFor('line recorded', async () => (await reads.readSince({ session: 'test-cursor-b', cursor: b })).line_count > 0);
    await expect(reads.readSince({ session: 'test-cursor-b', cursor: a })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    const offBoundary = encodeCursor({ ...decodeCursor(b), offset: decodeCursor(b).offset + 3 });
    await expect(reads.readSince({ session: 'test-cursor-b', cursor: offBoundary })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(reads.readSince({ session: 'test-cursor-b', cursor: 'not-a-cursor' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    // A cursor's pane is a pane id or nothing: a forged one naming a tmux target, a
    // format or a flag is refused before anything reads the transcript.
    for (const forged of ['%1;kill-server', '#{pane_id}', '-t', '1.0', '%', 7]) {
      const raw = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(b, 'base64url').toString('utf8')), n: forged }), 'utf8').toString('base64url');
      await expect(reads.readSince({ session: 'test-cursor-b', cursor: raw }), String(forged)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    }
    expect(decodeCursor(encodeCursor({ ...decodeCursor(b), pane: '%12' })).pane).toBe('%12');
  });
});
