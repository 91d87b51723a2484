// Guards terminal_run's completion channel (effects/tmux/run-signal.ts, effects/run-fifos.ts) with a real bash in a real tmux pane, the line typed as input/run.ts types it: the status arrives through the run's FIFO and the broker's answer lets the shell go on; the mark names the line after the output; text written into the status FIFO that is not a status is ignored; with nobody answering the shell still comes back (read -t), and with the FIFOs gone it goes on without making a file in their place; channels are capped, released ones and those left at close() are removed from disk. With a way to read its output (EndCapture), the mark carries the rows read in the same write as the end.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../../../test/src/helpers/wait-for.js';
import { openRunFifos } from '../effects/run-fifos.js';
import { createRunSignals, MAX_CHANNELS, type EndCapture, type RunSignals } from '../effects/tmux/run-signal.js';
import { runWrapper } from './run.js';

const socket = `tmcp-test-runch-${process.pid}-${randomBytes(4).toString('hex')}`;
const stateDir = mkdtempSync(join(tmpdir(), 'tmcp-runch-'));
const runsDir = join(stateDir, 'runs');
const env = { ...process.env, TMUX: undefined, TMUX_PANE: undefined };
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { env, encoding: 'utf8' }).trimEnd();
let paneId: string;
let signals: RunSignals;

const screen = () => tmux('capture-pane', '-p', '-J', '-S', '-', '-t', paneId);
/** Types a line as tmux would paste it, then Enter. */
const type = (line: string) => {
  tmux('send-keys', '-t', paneId, '-l', line);
  tmux('send-keys', '-t', paneId, 'Enter');
};
/** The shell runs the next line typed: it is back at its prompt. */
const backAtPrompt = async (tag: string) => {
  type(`echo ${tag}-$((1+1))`);
  await waitFor(`${tag} at the prompt`, () => screen().includes(`${tag}-2`), 60_000, 50);
};
const runsEntries = () => (existsSync(runsDir) ? readdirSync(runsDir) : []);

beforeAll(async () => {
  tmux('new-session', '-d', '-s', 'runch', '-x', '100', '-y', '30', "env -i PATH=/usr/bin:/bin PS1='$ ' bash --norc --noprofile -i");
  paneId = tmux('display-message', '-p', '-t', 'runch', '#{pane_id}');
  await waitFor('the prompt', () => screen().includes('$'), 60_000, 50);
  signals = createRunSignals({ stateDir, socketName: socket });
});
afterAll(async () => {
  await signals?.close();
  try {
    const socketPath = tmux('display-message', '-p', '#{socket_path}');
    tmux('kill-server');
    rmSync(socketPath, { force: true });
  } catch {
    // already gone
  }
  rmSync(stateDir, { recursive: true, force: true });
});

describe("terminal_run's completion channel", { timeout: 120_000 }, () => {
  it('marks the exit status and the line after the output, then lets the shell go on, and removes its FIFOs', async () => {
    const channel = await signals.open(paneId);
    expect(channel.statusPath.startsWith(`${runsDir}/`)).toBe(true);
    type(runWrapper('echo first-out; (exit 3)', channel, 'bash'));
    const mark = await signals.waitMark(channel.id, 60_000);
    expect(mark?.exitStatus).toBe(3);
    // From the start of history, line N of the capture is absolute line N: the line before
    // the end line is the command's last output line.
    const lines = tmux('capture-pane', '-p', '-J', '-S', '-', '-E', '-', '-t', paneId).split('\n');
    expect(lines[mark!.endLine - 1]).toBe('first-out');
    expect(existsSync(channel.statusPath) || existsSync(channel.ackPath)).toBe(false);
    await backAtPrompt('after-first');
    signals.release(channel.id);
  });

  it('with an EndCapture, the mark carries the output rows read in the write that agreed on the end, before the shell printed its prompt', async () => {
    const startLine = Number(tmux('display-message', '-p', '-t', paneId, '#{e|+:#{history_size},#{cursor_y}}'));
    const asked: { endLine: number; historySize: number; prompt: boolean }[] = [];
    // The facts and the rows in one tmux command list, as the control client reads them.
    const capture: EndCapture = async (endLine, historySize) => {
      const out = tmux('display-message', '-p', '-t', paneId, '#{pane_pid} #{history_size} #{cursor_x} #{cursor_y}', ';', 'capture-pane', '-p', '-J', '-t', paneId, '-S', String(startLine - historySize), '-E', String(endLine - 1 - historySize)).split('\n');
      const [pid, hist, x, y] = out[0]!.split(' ').map(Number);
      const rows = out.slice(1);
      asked.push({ endLine, historySize, prompt: rows.some((r) => r.startsWith('$ ') && r.length === 2) });
      return { facts: { panePid: pid!, historySize: hist!, cursorX: x!, cursorY: y! }, output: { lines: rows, redactions: 0 } };
    };
    const channel = await signals.open(paneId, capture);
    type(runWrapper('echo two-a; echo two-b', channel, 'bash'));
    const mark = await signals.waitMark(channel.id, 60_000);
    expect(mark?.exitStatus).toBe(0);
    expect(mark?.output?.lines.slice(1)).toEqual(['two-a', 'two-b']);
    // The first line is the typed one; the last read asked for exactly the mark's end.
    expect(mark?.output?.lines[0]).toContain('echo two-a');
    expect(asked.at(-1)).toMatchObject({ endLine: mark!.endLine, historySize: mark!.historySize, prompt: false });
    await backAtPrompt('after-capture');
    signals.release(channel.id);
  });

  it('ignores text written into the status FIFO that is not a status', async () => {
    const channel = await signals.open(paneId);
    writeFileSync(channel.statusPath, 'not a status\n0 0 0\n');
    expect(signals.takeMark(channel.id)).toBeNull();
    type(runWrapper('(exit 5)', channel, 'bash'));
    expect((await signals.waitMark(channel.id, 60_000))?.exitStatus).toBe(5);
    signals.release(channel.id);
    await backAtPrompt('after-forged');
  });

  it('lets the shell go on when no broker answers, and when the FIFOs are gone (no file made in their place)', async () => {
    // FIFOs nobody reads or answers: a broker that was killed (its own state directory).
    const orphanDir = mkdtempSync(join(tmpdir(), 'tmcp-runch-orphan-'));
    const orphanFifos = openRunFifos(orphanDir);
    const orphan = await orphanFifos.take();
    type(runWrapper('echo orphan-out', orphan, 'bash'));
    await backAtPrompt('after-orphan');
    orphanFifos.remove(orphan);
    await orphanFifos.close();
    rmSync(orphanDir, { recursive: true, force: true });
    // A channel released before its status line ran: the status line finds nothing.
    const channel = await signals.open(paneId);
    signals.release(channel.id);
    expect(await signals.waitMark(channel.id, 1_000)).toBeNull();
    type(runWrapper('echo released-out', channel, 'bash'));
    await backAtPrompt('after-released');
    expect(existsSync(channel.statusPath) || existsSync(channel.ackPath)).toBe(false);
  });

  it(`keeps at most ${MAX_CHANNELS} channels, releasing the oldest, and removes every FIFO at close`, async () => {
    const first = await signals.open(paneId);
    const waiting = signals.waitMark(first.id, 120_000);
    const opened = [];
    for (let i = 0; i < MAX_CHANNELS; i++) opened.push(await signals.open(paneId));
    expect(await waiting).toBeNull();
    expect(existsSync(first.statusPath)).toBe(false);
    expect(opened.every((c) => existsSync(c.statusPath) && existsSync(c.ackPath))).toBe(true);
    await signals.close();
    expect(runsEntries()).toEqual([]);
    await expect(signals.open(paneId)).rejects.toThrow();
  });
});
