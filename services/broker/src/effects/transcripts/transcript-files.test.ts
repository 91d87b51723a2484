// The transcript store with several panes (real files in a temp dir): each line is read back
// with the pane that printed it, from any offset and after segments rotate or are dropped;
// a read of one pane, its last lines and its export hold that pane's lines only.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dirNameOf, ofPane, openTranscriptStore, type TranscriptMeta } from './transcript-files.js';

let stateDir: string;
const identity = { serverPid: 4242, sessionId: '$7', created: 1_700_000_000 };
const meta = (): TranscriptMeta => ({ version: 1, name: 'agent-split', ...identity, startedAt: 1_700_000_000_000, width: 80, height: 24, endedAt: null });

beforeEach(() => {
  stateDir = mkdtempSync(join(tmpdir(), 'tmcp-transcript-files-'));
});
afterEach(() => rmSync(stateDir, { recursive: true, force: true }));

describe('transcript store: panes', () => {
  it('reads every line back with its pane, from any offset, across segments and after the oldest is dropped', () => {
    const store = openTranscriptStore(stateDir);
    // Small segments: a few events each, so the panes' lines cross many segment starts.
    const writer = store.openWriter(meta(), { segmentBytes: 120, maxBytes: 10_000 });
    const written: { pane: string; text: string }[] = [];
    const t0 = meta().startedAt;
    writer.appendSnapshot(['a-screen'], t0, '%1');
    written.push({ pane: '%1', text: 'a-screen' });
    for (let i = 0; i < 12; i += 1) {
      const pane = i % 3 === 0 ? '%2' : '%1';
      const lines = [`${pane === '%1' ? 'a' : 'b'}-line-${i}`, `${pane === '%1' ? 'a' : 'b'}-more-${i}`];
      writer.append(lines, t0 + i * 10, pane);
      written.push(...lines.map((text) => ({ pane, text })));
    }
    writer.markGap(t0 + 200);
    writer.append(['b-after-gap'], t0 + 210, '%2');
    written.push({ pane: '%2', text: 'b-after-gap' });
    writer.close();
    const segments = readdirSync(join(store.root, dirNameOf(identity))).filter((n) => n.endsWith('.cast'));
    expect(segments.length).toBeGreaterThan(4);

    const all = store.eventsFrom(identity, 0);
    expect(all.filter((e) => !e.gap).map((e) => ({ pane: e.pane, text: e.text }))).toEqual(written);
    // From every event's offset, the pane of each later line is still known.
    for (const e of all) {
      const later = store.eventsFrom(identity, e.offset).filter((x) => !x.gap);
      expect(later.map((x) => ({ pane: x.pane, text: x.text }))).toEqual(written.slice(written.length - later.length));
    }
    expect(store.lastLines(identity, 3, '%2')).toEqual(['b-line-9', 'b-more-9', 'b-after-gap']);
    expect(store.lastLines(identity, 2, '%1')).toEqual(['a-line-11', 'a-more-11']);
    expect(store.lastLines(identity, 2)).toEqual(['a-more-11', 'b-after-gap']);

    // One pane's export: its output lines and the gap, no other pane, no pane markers.
    const cast = store.castText(identity, '%2')!;
    const events = cast.events.map((l) => JSON.parse(l) as [number, string, string]);
    expect(events.filter((e) => e[1] === 'o').map((e) => e[2].trimEnd())).toEqual(written.filter((w) => w.pane === '%2').map((w) => w.text));
    expect(events.filter((e) => e[1] === 'm').map((e) => e[2])).toEqual(['unrecorded']);
    // The whole export keeps the markers, so a player (or this store) can tell the panes apart.
    expect(store.castText(identity)!.events.some((l) => l.includes('"pane %2"'))).toBe(true);
    expect(JSON.parse(cast.header)).toMatchObject({ version: 2 });

    // Dropping the oldest segments leaves every remaining line with its pane.
    const again = store.openWriter(meta(), { segmentBytes: 120, maxBytes: 400 });
    for (let i = 0; i < 8; i += 1) again.append([`a-last-${i}`], t0 + 300 + i, '%1');
    again.close();
    const kept = store.eventsFrom(identity, store.range(identity)!.first).filter((e) => !e.gap);
    expect(kept.length).toBeLessThan(written.length);
    expect(kept.at(-1)).toMatchObject({ pane: '%1', text: 'a-last-7' });
    for (const e of kept) expect(e.pane, e.text).toBe(e.text.startsWith('a-') ? '%1' : '%2');
  });

  it('resumes on a stored transcript by saying the pane again, and leaves lines from before pane markers to whole-session reads', () => {
    const store = openTranscriptStore(stateDir);
    // A transcript written before pane markers existed: output events only.
    const dir = join(store.root, dirNameOf(identity));
    store.writeMeta(meta());
    const header = JSON.stringify({ version: 2, width: 80, height: 24, timestamp: 1_700_000_000 });
    writeFileSync(join(dir, `${'0'.padStart(16, '0')}.cast`), `${header}\n${JSON.stringify([0.1, 'o', 'old-line\r\n'])}\n`, { mode: 0o600 });
    const writer = store.openWriter(meta(), { segmentBytes: 10_000, maxBytes: 100_000 });
    writer.append(['new-line'], meta().startedAt + 1000, '%3');
    writer.close();
    const events = store.eventsFrom(identity, 0);
    expect(events.map((e) => [e.pane, e.text])).toEqual([
      [undefined, 'old-line'],
      ['%3', 'new-line'],
    ]);
    expect(events.filter((e) => ofPane(e, '%3')).map((e) => e.text)).toEqual(['new-line']);
    expect(events.filter((e) => ofPane(e, undefined)).map((e) => e.text)).toEqual(['old-line', 'new-line']);
    const files = readdirSync(dir).filter((n) => n.endsWith('.cast'));
    expect(files.map((n) => readFileSync(join(dir, n), 'utf8')).join('')).toContain('"m","pane %3"');
    // The export of a one-pane transcript stays plain asciicast output: no pane markers.
    expect(store.castText(identity)!.events.map((l) => (JSON.parse(l) as unknown[])[1])).toEqual(['o', 'o']);
  });

  it('marks output dropped before the first line (a cursor at offset 0 must be told), but not a resume on an empty stream', () => {
    const store = openTranscriptStore(stateDir);
    const writer = store.openWriter(meta(), { segmentBytes: 10_000, maxBytes: 100_000 });
    writer.markGap(meta().startedAt);
    expect(writer.end()).toBe(0);
    writer.markGap(meta().startedAt, true);
    writer.append(['after-the-loss'], meta().startedAt + 5, '%1');
    writer.close();
    expect(store.eventsFrom(identity, 0).map((e) => (e.gap ? 'GAP' : e.text))).toEqual(['GAP', 'after-the-loss']);
  });
});
