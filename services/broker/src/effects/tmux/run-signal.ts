/**
 * How terminal_run (input/run.ts) learns that its command ended, and where its output
 * ended, without starting any process on the way (on a node: one ssh channel per run).
 *
 * Per run the broker opens a channel: two FIFOs with a private random name in its 0700
 * `runs/` directory (effects/run-fifos.ts), or, for a node's pane, in a private directory
 * on the node that a helper on an ssh channel holds (effects/ssh/node-run-fifos.ts); a
 * `RunEndpoint` either way. The typed line ends with a status line made of shell
 * builtins only:
 *
 *   [ -p ACK ] && { [ -p STATUS ] && echo "$__tmcp_s" 1<>STATUS; read -t 3 __tmcp_ack; …; } 0<>ACK
 *
 * The shell holds the ack FIFO open, writes its `$?` into the status FIFO, and blocks
 * reading the ack. The broker, woken by the status, reads the pane's cursor and history
 * size through its control client (no spawn) until two reads in a row agree (tmux may
 * still be taking the command's last output from the terminal), takes that line as the
 * end of the output, and only then writes the ack: while it reads, the shell prints
 * nothing (no prompt yet), so the cursor stays where the output ended. Then both FIFOs go.
 * When the run gave a way to read its output (`EndCapture`, from the reads layer), every
 * read after the first also captures the output rows as the read before it placed them,
 * in the same write to tmux: the read that agrees with the one before carries the output,
 * read while the shell still waited (one round trip fewer than capturing after the ack,
 * and no prompt can have scrolled it).
 *
 * What can and cannot end a run:
 * - Printing text cannot: bytes on the terminal never reach a FIFO. A process that opens
 *   the FIFO by its name (shown in the typed line) can, like any command of that shell
 *   could signal the tmux channel of the design before this one: the exit status is the
 *   shell's word (docs/security.md).
 * - Nothing waits forever: `<>` never blocks on a FIFO; `[ -p … ]` skips the status line
 *   once the broker removed the pair (so no regular file is created in its place); with
 *   the broker gone, the shell's `read -t 3` gives up after 3 s and the prompt comes back.
 * - dash and sh have no `read -t` (not POSIX): there `read` fails at once (its error is
 *   silenced), so the shell does not wait for the ack and may print its prompt while the
 *   broker reads the cursor. With a one-line prompt the end line is the same either way
 *   (the prompt starts on the line after the output); with a prompt of several lines the
 *   output may end up to the prompt's height later, and two reads that agree are taken
 *   whenever the prompt has been drawn.
 *
 * A status that arrives while no call waits (the last call answered RUNNING) is handled
 * the same way at once, and the mark kept for the call that resumes. Channels are
 * released when their run is answered; at most MAX_CHANNELS are kept (the oldest go
 * first), and a channel untouched for CHANNEL_TTL_MS goes too: its shell then finds no
 * FIFO and its prompt comes back at once, and the wait sees the shell back at its prompt.
 *
 * Also the one fact tmux does not give: whether the pane's terminal is in raw mode (a
 * line editor — readline, zle — is reading at a prompt) or canonical mode (a program
 * runs), read with `stty -F` on the pane's tty.
 */
import { execa } from 'execa';
import { openRunFifos, type RunFifos } from '../run-fifos.js';
import { assertPaneId } from './format.js';
import { createTmuxCommandRunner, type TmuxCommandRunner } from './tmux-command.js';
import type { TmuxAdapter } from './types.js';

const TTY_RE = /^\/dev\/pts\/\d{1,6}$/;
const STATUS_RE = /^(\d{1,3})$/;
/** Channels kept at most (runs answered RUNNING and never collected hold one each). */
export const MAX_CHANNELS = 256;
/** A channel nobody asked about for this long is released (longer than a resume token lives). */
const CHANNEL_TTL_MS = 15 * 60_000;
/** Cursor reads while looking for two that agree, before the last one is taken. */
const MAX_CURSOR_READS = 40;
/** More than this many bytes in a status FIFO without a valid status line: not ours. */
const MAX_STATUS_BYTES = 64;

export interface RunMark {
  exitStatus: number;
  /** Absolute line of the cursor when the status line ran: the first line after the output. */
  endLine: number;
  /** The pane's history size when `endLine` was read. */
  historySize: number;
  /** The cursor's column then. */
  cursorX: number;
  /** The output rows (the run's first line to `endLine - 1`), read with these facts;
   * absent when the run gave no EndCapture or the capture failed. */
  output?: CapturedOutput;
}

/** Output lines as the reads layer hands them out (redacted there: reads/pane-text.ts). */
export interface CapturedOutput {
  lines: string[];
  redactions: number;
}

/** The pane's cursor facts, and in the same write to tmux the rows from the run's first
 * line to `endLine - 1` (absolute lines, numbered against `historySize`); null when the
 * pane is gone. Given by the run (input/run.ts), built on the reads layer. */
export type EndCapture = (endLine: number, historySize: number) => Promise<{ facts: CursorFacts; output: CapturedOutput | null } | null>;

/** The paths the status line names; `id` is the run's channel. */
export interface RunChannel {
  readonly id: string;
  readonly statusPath: string;
  readonly ackPath: string;
}

export interface RunSignals {
  /** A new channel for a run about to be typed into `paneId`; `capture` reads its output
   * with the end (see the header). */
  open(paneId: string, capture?: EndCapture): Promise<RunChannel>;
  /** Waits up to `timeoutMs` for the run's mark; null when the time ran out or the channel
   * is gone (released, evicted, the broker stopping). */
  waitMark(id: string, timeoutMs: number): Promise<RunMark | null>;
  /** The mark if the status line already ran, else null. */
  takeMark(id: string): RunMark | null;
  /** The run was answered (or never typed): its FIFOs and waiters go. */
  release(id: string): void;
  /** The pane's tty is in raw mode (a line editor reads at a prompt); null when unknown. */
  lineEditing(paneId: string): Promise<boolean | null>;
  /** Broker stop: every channel and the FIFOs made ahead go. */
  close(): Promise<void>;
}

/** One run's FIFO pair as the broker holds it: here (run-fifos.ts), or on a node through
 * a helper on an ssh channel (effects/ssh/node-run-fifos.ts). */
export interface RunEndpoint extends RunChannel {
  /** Bytes written into the status FIFO, as they come. */
  onData(listener: (chunk: Buffer) => void): void;
  /** Lets the shell's status line go on (it waits on the ack FIFO). */
  ack(): void;
  /** The pair goes (and whatever holds it); the shell's status line then skips it. */
  close(): void;
}

/** Makes endpoints; `close` ends every one not yet closed and those made ahead. */
export interface RunEndpoints {
  make(): Promise<RunEndpoint>;
  close(): Promise<void>;
}

/** This host's endpoints: FIFO pairs made ahead in the state dir (run-fifos.ts). */
export function localRunEndpoints(fifos: RunFifos): RunEndpoints {
  return {
    async make() {
      const pair = await fifos.take();
      let reader;
      try {
        reader = fifos.openStatus(pair.statusPath);
      } catch (err) {
        fifos.remove(pair);
        throw err;
      }
      reader.on('error', () => undefined);
      return {
        ...pair,
        onData: (listener) => reader.on('data', listener),
        ack: () => void fifos.ack(pair.ackPath),
        close() {
          reader.destroy();
          fifos.remove(pair);
        },
      };
    },
    close: () => fifos.close(),
  };
}

interface Channel {
  readonly paneId: string;
  readonly capture: EndCapture | undefined;
  readonly endpoint: RunEndpoint;
  received: string;
  /** The status line ran; the end line is being read. */
  settling: boolean;
  mark: RunMark | null;
  touched: number;
  readonly waiters: Set<(mark: RunMark | null) => void>;
}

export interface CursorFacts {
  panePid: number;
  historySize: number;
  cursorX: number;
  cursorY: number;
}

const agree = (a: CursorFacts, b: CursorFacts) => a.historySize === b.historySize && a.cursorY === b.cursorY && a.cursorX === b.cursorX && a.panePid === b.panePid;

/** Where a command's output ended, read while its shell waits for the ack: cursor reads
 * until two in a row agree; with `capture`, each read after the first also takes the rows
 * up to where the read before it ended (the header says why). Also used by the shell
 * integration (shell-integration.ts), whose prompt hook waits the same way. */
export async function findOutputEnd(readCursor: CursorReader, paneId: string, capture: EndCapture | undefined): Promise<{ facts: CursorFacts; output?: CapturedOutput } | null> {
  let last = await readCursor(paneId);
  for (let i = 0; last !== null && i < MAX_CURSOR_READS; i++) {
    if (capture) {
      const read = await capture(last.historySize + last.cursorY, last.historySize);
      if (read === null) return null;
      if (agree(read.facts, last)) return { facts: read.facts, ...(read.output !== null ? { output: read.output } : {}) };
      last = read.facts;
    } else {
      const next = await readCursor(paneId);
      if (next === null || agree(next, last)) return next && { facts: next };
      last = next;
    }
  }
  return last && { facts: last };
}

export type CursorReader = (paneId: string) => Promise<CursorFacts | null>;

/** The pane's cursor facts, through the control client where there is one. */
export function cursorReader(runner: TmuxCommandRunner, tmux: Pick<TmuxAdapter, 'paneFacts'> | undefined): CursorReader {
  return async (paneId: string): Promise<CursorFacts | null> => {
    if (tmux) {
      const f = await tmux.paneFacts(paneId);
      return f && { panePid: f.panePid, historySize: f.historySize, cursorX: f.cursor.x, cursorY: f.cursor.y };
    }
    const r = await runner.run(['display-message', '-p', '-t', paneId, '#{pane_id} #{pane_pid} #{history_size} #{cursor_x} #{cursor_y}']);
    const m = /^(%\d+) (\d+) (\d+) (\d+) (\d+)$/.exec(r.stdout.trim());
    if (r.exitCode !== 0 || !m || m[1] !== paneId) return null;
    return { panePid: Number(m[2]), historySize: Number(m[3]), cursorX: Number(m[4]), cursorY: Number(m[5]) };
  };
}

/** `stty -a` of a tty of the pane's host, in the C locale; null when it failed. */
export type SttyReader = (tty: string) => Promise<string | null>;

export const localStty: SttyReader = async (tty) => {
  const r = await execa('stty', ['-F', tty, '-a'], { reject: false, timeout: 2_000, stdin: 'ignore', env: { LC_ALL: 'C', PATH: process.env.PATH ?? '/usr/bin:/bin' }, extendEnv: false });
  return r.exitCode === 0 && typeof r.stdout === 'string' ? r.stdout : null;
};

export function createRunSignals(options: {
  stateDir: string;
  socketName?: string | undefined;
  runner?: TmuxCommandRunner;
  tmux?: Pick<TmuxAdapter, 'paneFacts'>;
  /** Where the FIFO pairs are (default: this host's, in the state dir). */
  endpoints?: RunEndpoints;
  stty?: SttyReader;
}): RunSignals {
  const runner = options.runner ?? createTmuxCommandRunner({ socketName: options.socketName });
  const endpoints = options.endpoints ?? localRunEndpoints(openRunFifos(options.stateDir));
  const stty = options.stty ?? localStty;
  const readCursor = cursorReader(runner, options.tmux);
  const channels = new Map<string, Channel>();
  let closed = false;

  const settle = (channel: Channel, mark: RunMark | null) => {
    channel.mark = mark;
    for (const w of channel.waiters) w(mark);
    channel.waiters.clear();
  };
  /** Ends the channel's FIFOs (the run may still be waited on: its mark stays). */
  const dropFifos = (channel: Channel) => channel.endpoint.close();
  const release = (id: string) => {
    const channel = channels.get(id);
    if (!channel) return;
    channels.delete(id);
    // A status being handled keeps its FIFOs until its ack is written (onStatus drops
    // them): the shell is waiting on it.
    if (!channel.settling) dropFifos(channel);
    if (channel.mark === null) settle(channel, null);
  };

  async function onStatus(channel: Channel, exitStatus: number): Promise<void> {
    channel.settling = true;
    let end: Awaited<ReturnType<typeof findOutputEnd>> = null;
    try {
      end = await findOutputEnd(readCursor, channel.paneId, channel.capture);
    } catch {
      // tmux did not answer: no mark; the wait goes on by the process tree.
    }
    // The shell may go on now (its prompt comes after the output we measured).
    channel.endpoint.ack();
    dropFifos(channel);
    if (!channels.has(channel.endpoint.id)) return;
    if (end === null) return;
    const { facts, output } = end;
    settle(channel, { exitStatus, endLine: facts.historySize + facts.cursorY, historySize: facts.historySize, cursorX: facts.cursorX, ...(output ? { output } : {}) });
  }

  function onData(channel: Channel, chunk: Buffer): void {
    if (channel.settling) return;
    channel.received += chunk.toString('latin1');
    for (;;) {
      const nl = channel.received.indexOf('\n');
      if (nl < 0) break;
      const line = channel.received.slice(0, nl);
      channel.received = channel.received.slice(nl + 1);
      const m = STATUS_RE.exec(line);
      if (m && Number(m[1]) <= 255) {
        void onStatus(channel, Number(m[1]));
        return;
      }
    }
    if (channel.received.length > MAX_STATUS_BYTES) channel.received = '';
  }

  /** Old and surplus channels go before a new one is made. */
  function sweep(now: number): void {
    for (const [id, c] of channels) if (now - c.touched > CHANNEL_TTL_MS) release(id);
    while (channels.size >= MAX_CHANNELS) release(channels.keys().next().value as string);
  }

  return {
    async open(paneId, capture) {
      assertPaneId(paneId);
      if (closed) throw new Error('run channels are closed');
      sweep(Date.now());
      const endpoint = await endpoints.make();
      const channel: Channel = { paneId, capture, endpoint, received: '', settling: false, mark: null, touched: Date.now(), waiters: new Set() };
      endpoint.onData((chunk) => onData(channel, chunk));
      channels.set(endpoint.id, channel);
      return { id: endpoint.id, statusPath: endpoint.statusPath, ackPath: endpoint.ackPath };
    },

    waitMark(id, timeoutMs) {
      const channel = channels.get(id);
      if (!channel) return Promise.resolve(null);
      channel.touched = Date.now();
      if (channel.mark !== null || timeoutMs <= 0) return Promise.resolve(channel.mark);
      return new Promise((resolve) => {
        const done = (mark: RunMark | null) => {
          clearTimeout(timer);
          channel.waiters.delete(done);
          resolve(mark);
        };
        const timer = setTimeout(() => done(null), timeoutMs);
        channel.waiters.add(done);
      });
    },

    takeMark(id) {
      const channel = channels.get(id);
      if (!channel) return null;
      channel.touched = Date.now();
      return channel.mark;
    },

    release,

    async lineEditing(paneId) {
      assertPaneId(paneId);
      const t = await runner.run(['display-message', '-p', '-t', paneId, '#{pane_tty}']);
      const tty = t.stdout.trim();
      if (t.exitCode !== 0 || !TTY_RE.test(tty)) return null;
      const modes = await stty(tty);
      if (modes === null) return null;
      if (/(^|\s)-icanon(\s|$)/.test(modes)) return true;
      if (/(^|\s)icanon(\s|$)/.test(modes)) return false;
      return null;
    },

    async close() {
      closed = true;
      for (const id of [...channels.keys()]) release(id);
      await endpoints.close();
    },
  };
}
