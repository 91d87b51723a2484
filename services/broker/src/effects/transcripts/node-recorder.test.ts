// A node's polling recorder over a simulated pane (rows, history limit, cursor): each line is written once across looks (repeated output too), a secret never reaches the disk, the cursor's line is only pending, a burst past the history is marked unrecorded, a session the gate refuses is never looked at, and the node's store is its own.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, configSchema } from '../../config/schema.js';
import type { ListedSession, WindowPaneFacts } from '../tmux/types.js';
import { createNodeTranscriptRecorder, type NodeTranscriptRecorder } from './node-recorder.js';
import { openTranscriptStore, transcriptsRoot } from './transcript-files.js';

const config = configSchema.parse({ ...DEFAULT_CONFIG, transcripts: { enabled: true } });
const TOKEN = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789AB';

/** A pane as tmux keeps it, one row per line: history above a screen of `height` rows,
 * trimmed by a tenth of `limit` when full (as tmux 3.3a does), the cursor on the last line. */
class FakePane {
  /** Every line still held; the last is the cursor's (being written). */
  lines = [''];
  constructor(
    readonly limit: number,
    readonly height = 10,
  ) {}
  print(...out: string[]): void {
    for (const l of out) {
      this.lines[this.lines.length - 1] += l;
      this.lines.push('');
    }
    const hsize = () => Math.max(0, this.lines.length - this.height);
    while (hsize() > this.limit) this.lines.splice(0, Math.max(1, Math.floor(this.limit / 10)));
  }
  type(text: string): void {
    this.lines[this.lines.length - 1] += text;
  }
  facts(): WindowPaneFacts {
    const historySize = Math.max(0, this.lines.length - this.height);
    return {
      paneId: '%1',
      panePid: 100,
      currentCommand: 'bash',
      inMode: false,
      width: 80,
      height: this.height,
      historySize,
      windowActivity: 0,
      cursor: { x: this.lines.at(-1)!.length, y: this.lines.length - 1 - historySize, visible: true },
      windowId: '@1',
      windowIndex: 0,
      paneIndex: 0,
      active: true,
    };
  }
  capture(start: number, end: number): string {
    const top = Math.max(0, this.lines.length - this.height);
    return this.lines.slice(Math.max(0, top + start), Math.max(0, top + end + 1)).join('\n');
  }
}

const session = (name: string, sessionId: string): ListedSession => ({ serverPid: 4242, sessionId, name, created: 1_700_000_000, attached: 0, windows: 1, activity: 0, activePane: null });

let stateDir: string;
let recorder: NodeTranscriptRecorder;
let panes: Map<string, FakePane>;
let sessions: ListedSession[];
const looked: string[] = [];
/** The broker's clock as the recorder sees it (ms). */
let clock = 1_800_000_000_000;

function start(): void {
  recorder = createNodeTranscriptRecorder({
    now: () => clock,
    config,
    node: 'gpu',
    stateDir,
    log: pino({ level: 'silent' }),
    gate: { canRead: (name) => name.startsWith('agent-'), grantOf: () => null },
    source: {
      connected: () => true,
      sessions: async () => sessions,
      look: async (name) => {
        looked.push(name);
        const pane = panes.get(name)!;
        return { panes: [pane.facts()], capture: async (_id, s, e) => ({ facts: pane.facts(), text: pane.capture(s, e) }) };
      },
    },
  });
}

/** Output lines of the session's transcript (gap markers as `<unrecorded>`). */
function written(sessionId: string): string[] {
  const store = openTranscriptStore(stateDir, 'gpu');
  const id = store.list().find((e) => e.meta.sessionId === sessionId)!.meta;
  return store.eventsFrom(id, store.range(id)?.first ?? 0).map((e) => (e.gap ? '<unrecorded>' : e.text));
}

const filesText = (dir: string): string =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'))
    .join('\n');

beforeEach(() => {
  stateDir = mkdtempSync(join(tmpdir(), 'tmcp-node-transcripts-'));
  panes = new Map();
  sessions = [];
  looked.length = 0;
  start();
});

afterEach(async () => {
  await recorder.close();
  rmSync(stateDir, { recursive: true, force: true });
});

describe('node transcript recorder', () => {
  it('writes each line once across looks, redacted, and keeps the cursor line pending', async () => {
    const pane = new FakePane(2000);
    panes.set('agent-a', pane);
    sessions = [session('agent-a', '$1')];
    pane.print('before-1', 'before-2');
    pane.type('$ ');
    await recorder.lookNow();
    pane.type('echo hi');
    pane.print('', `hi ${TOKEN}`);
    pane.type('$ ');
    await recorder.lookNow();
    pane.print('', 'after');
    pane.type('$ ty');
    await recorder.lookNow();
    await recorder.lookNow();
    const lines = written('$1');
    expect(lines).toEqual(['before-1', 'before-2', '$ echo hi', expect.stringMatching(/^hi \[REDACTED/), '$ ', 'after']);
    expect(filesText(stateDir)).not.toContain(TOKEN);
    expect(recorder.pending({ serverPid: 4242, sessionId: '$1', created: 1_700_000_000 })).toBe('$ ty');
  });

  it('places output that repeats itself by the rows, written exactly as often as printed', async () => {
    const pane = new FakePane(2000);
    panes.set('agent-r', pane);
    sessions = [session('agent-r', '$2')];
    pane.print('start');
    await recorder.lookNow();
    let printed = 0;
    for (const n of [3, 17, 1, 40]) {
      pane.print(...Array.from({ length: n }, () => 'ok'));
      printed += n;
      await recorder.lookNow();
    }
    expect(written('$2').filter((l) => l === 'ok')).toHaveLength(printed);
  });

  it('goes on without a mark when the history trims old lines, and marks a burst past it unrecorded', async () => {
    const pane = new FakePane(40);
    panes.set('agent-b', pane);
    sessions = [session('agent-b', '$3')];
    pane.print('ready');
    await recorder.lookNow();
    // Less than the history between looks, while it trims: every line, no mark.
    for (let round = 0; round < 6; round += 1) {
      pane.print(...Array.from({ length: 20 }, (_, i) => `r${round}-${i}`));
      await recorder.lookNow();
    }
    expect(written('$3')).not.toContain('<unrecorded>');
    expect(written('$3').filter((l) => /^r\d-\d+$/.test(l))).toHaveLength(120);
    // More than it holds: lost, and said so where it happened.
    pane.print(...Array.from({ length: 500 }, (_, i) => `burst-${i}`), 'burst-end');
    await recorder.lookNow();
    const lines = written('$3');
    const gap = lines.indexOf('<unrecorded>');
    expect(gap).toBeGreaterThan(0);
    expect(lines.slice(gap + 1)).toContain('burst-end');
    expect(lines).not.toContain('burst-0');
  });

  it('writes a line redrawn in place again as it looks now, once per change', async () => {
    const pane = new FakePane(2000);
    panes.set('agent-p', pane);
    sessions = [session('agent-p', '$8')];
    pane.print(...Array.from({ length: 12 }, (_, i) => `step ${i}`), 'progress 10%');
    await recorder.lookNow();
    // A progress bar moves the cursor up and rewrites its line.
    pane.lines[pane.lines.length - 2] = 'progress 50%';
    await recorder.lookNow();
    await recorder.lookNow();
    pane.print('after');
    await recorder.lookNow();
    await recorder.lookNow();
    expect(written('$8').slice(-3)).toEqual(['progress 10%', 'progress 50%', 'after']);
    expect(written('$8').filter((l) => l.startsWith('step '))).toHaveLength(12);
  });

  it('goes on after a loss without marking the next looks', async () => {
    const pane = new FakePane(40);
    panes.set('agent-l', pane);
    sessions = [session('agent-l', '$9')];
    pane.print('ready');
    await recorder.lookNow();
    pane.print(...Array.from({ length: 500 }, (_, i) => `burst-${i}`));
    await recorder.lookNow();
    pane.print('one more');
    await recorder.lookNow();
    await recorder.lookNow();
    const lines = written('$9');
    expect(lines.filter((l) => l === '<unrecorded>')).toHaveLength(1);
    expect(lines.at(-1)).toBe('one more');
    expect(lines.filter((l) => l === 'burst-499')).toHaveLength(1);
  });

  it('never looks at a session the gate refuses, and keeps the node store apart', async () => {
    const pane = new FakePane(2000);
    pane.print('private-content');
    panes.set('private-x', pane);
    panes.set('agent-c', new FakePane(2000));
    sessions = [session('private-x', '$4'), session('agent-c', '$5')];
    await recorder.lookNow();
    expect(looked).not.toContain('private-x');
    expect(filesText(stateDir)).not.toContain('private-content');
    expect(recorder.recording().map((i) => i.sessionId)).toEqual(['$5']);
    // This host's store does not list the node's transcripts.
    expect(openTranscriptStore(stateDir).list()).toEqual([]);
    expect(readdirSync(transcriptsRoot(stateDir, 'gpu'))).toHaveLength(1);
  });

  it('resumes after a restart with a mark and only the screen lines it had not written', async () => {
    const pane = new FakePane(2000);
    panes.set('agent-e', pane);
    sessions = [session('agent-e', '$7')];
    pane.print('one', 'two');
    await recorder.lookNow();
    await recorder.close();
    // Printed while no broker looked.
    pane.print('three');
    start();
    await recorder.lookNow();
    expect(written('$7')).toEqual(['one', 'two', '<unrecorded>', 'three']);
  });

  it('ends the transcript of a session the node no longer lists', async () => {
    const pane = new FakePane(2000);
    panes.set('agent-d', pane);
    sessions = [session('agent-d', '$6')];
    pane.print('last words');
    await recorder.lookNow();
    sessions = [];
    await recorder.lookNow();
    expect(recorder.recording()).toEqual([]);
    expect(openTranscriptStore(stateDir, 'gpu').list()[0]?.meta.endedAt).toBeTypeOf('number');
  });

  it('rests an idle session until the listing shows new output, after one quiet look that began a second after the output was first listed', async () => {
    const pane = new FakePane(2000);
    panes.set('agent-idle', pane);
    sessions = [{ ...session('agent-idle', '$7'), activity: 500 }];
    pane.print('first-output');
    pane.type('$ ');
    await recorder.lookNow();
    // Within the second the output was listed: looked at, however quiet (its second may not be over).
    await recorder.lookNow();
    clock += 2_000;
    // Quiet, and a second later: this look settles the session ...
    await recorder.lookNow();
    const settled = looked.length;
    clock += 2_000;
    await recorder.lookNow();
    await recorder.lookNow();
    // ... and while tmux lists the same activity, it is not looked at again.
    expect(looked.length).toBe(settled);
    // New output moves the activity: looked at, and the line written once.
    pane.print('later-output');
    sessions = [{ ...session('agent-idle', '$7'), activity: 503 }];
    await recorder.lookNow();
    expect(looked.length).toBe(settled + 1);
    // A look that found lines does not settle, whatever the clock.
    clock += 5_000;
    await recorder.lookNow();
    expect(looked.length).toBe(settled + 2);
    expect(written('$7')).toEqual(['first-output', '$ later-output']);
  });
});
