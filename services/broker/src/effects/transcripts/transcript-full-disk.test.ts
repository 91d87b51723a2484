// Guards "a transcript write that fails is a marked gap, never silent loss" on a real full filesystem (a small tmpfs, as root): the failed lines are counted, nothing half-written stays, and the next write marks the span as write_failed.
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dirNameOf, openTranscriptStore, type TranscriptMeta } from './transcript-files.js';

const identity = { serverPid: 4343, sessionId: '$9', created: 1_700_000_100 };
const meta = (): TranscriptMeta => ({ version: 1, name: 'agent-full', ...identity, startedAt: 1_700_000_100_000, width: 80, height: 24, endedAt: null });

let root: string;
let mount: string;
let skipped: string | null = null;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'tmcp-full-disk-'));
  mount = join(root, 'mnt');
  mkdirSync(mount);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mount], { stdio: 'pipe' });
  } catch (err) {
    skipped = `mount -t tmpfs not permitted here (${(err as Error).message.split('\n')[0]})`;
    console.log(`transcript-full-disk: skipped: ${skipped}`);
  }
});
afterAll(() => {
  // Lazily, so a failed test's open file cannot leave the mount behind.
  if (skipped === null) execFileSync('umount', ['-l', mount]);
  rmSync(root, { recursive: true, force: true });
});

/** Fills the filesystem up to its last byte; returns the filler's path. */
function fill(dir: string): string {
  const path = join(dir, 'filler');
  const fd = openSync(path, 'w');
  const block = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeSync(fd, block);
  } catch (err) {
    if ((err as { code?: string }).code !== 'ENOSPC') throw err;
    for (;;) {
      try {
        writeSync(fd, Buffer.alloc(1, 1));
      } catch {
        break;
      }
    }
  } finally {
    closeSync(fd);
  }
  return path;
}

describe('transcript writes on a full disk', () => {
  it('counts the lost lines, leaves no half line, and marks the span once writing works again', (ctx) => {
    if (skipped !== null) return ctx.skip();
    const store = openTranscriptStore(join(mount, 'state'));
    const writer = store.openWriter(meta(), { segmentBytes: 1024 * 1024, maxBytes: 4 * 1024 * 1024 });
    // Closed whatever happens: an open file keeps the tmpfs busy and its umount fails.
    ctx.onTestFinished(() => writer.close());
    const t0 = meta().startedAt;
    writer.append(['before-1', 'before-2'], t0 + 1000, '%1');
    const filler = fill(mount);
    // The segment's last page may still have room: write until the disk refuses.
    let kept = 0;
    for (;;) {
      try {
        writer.append([`kept-${kept}`], t0 + 1500, '%1');
        kept++;
      } catch (err) {
        expect((err as { code?: string }).code).toBe('ENOSPC');
        break;
      }
      if (kept > 10_000) throw new Error('the disk never filled');
    }
    const endBefore = writer.end();
    let failures = 1;
    for (let i = 1; i < 50; i++) {
      try {
        writer.append([`lost-${i}-${'x'.repeat(200)}`], t0 + 2000 + i, '%1');
      } catch (err) {
        expect((err as { code?: string }).code).toBe('ENOSPC');
        failures++;
      }
    }
    expect(failures).toBe(50);
    expect(writer.failing()).toEqual({ sinceMs: t0 + 1500, lines: 50 });
    expect(writer.end()).toBe(endBefore);
    rmSync(filler);
    writer.append(['after-1'], t0 + 9000, '%1');
    expect(writer.failing()).toBeNull();

    const events = store.eventsFrom(identity, 0);
    expect(events.filter((e) => !e.gap).map((e) => e.text)).toEqual(['before-1', 'before-2', ...Array.from({ length: kept }, (_, i) => `kept-${i}`), 'after-1']);
    const gap = events.find((e) => e.gap)!;
    expect(gap.writeFailed).toEqual({ fromSeconds: 1.5, lines: 50 });
    expect(gap.seconds).toBe(9);
    // Every line of the file is whole (nothing cut by ENOSPC), the export keeps the marker.
    const dir = join(store.root, dirNameOf(identity));
    for (const seg of readdirSync(dir).filter((n) => n.endsWith('.cast'))) {
      for (const line of readFileSync(join(dir, seg), 'utf8').split('\n').filter(Boolean)) expect(() => JSON.parse(line) as unknown).not.toThrow();
    }
    expect(store.castText(identity)!.events.join('\n')).toContain('"unrecorded write_failed 1.5 50"');
    expect(store.castText(identity, '%1')!.events.join('\n')).toContain('"unrecorded write_failed 1.5 50"');
  });
});
