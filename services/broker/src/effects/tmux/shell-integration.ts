/**
 * Shell integration: what a pane's bash or zsh reports about itself, installed once per
 * shell (pane id + pane pid + shell pid) instead of a wrapper typed with every command
 * (shell-hook.ts has the hook code and what each hook does).
 *
 * Per shell the broker holds one FIFO pair of its own (run-fifos.ts, in `<state>/shells`):
 * the status FIFO it reads (`P N`, `C`, `L n text` lines) and the ack FIFO it holds open
 * read-write, so a line written there waits for the shell's next prompt hook. From the
 * marks it keeps the shell's state: `prompt` (the last mark was a prompt: the shell
 * reads a command line) or `running` (a command line started and has not ended).
 *
 * A run (input/run.ts):
 * 1. `ensure`: installs the hook if this shell has none (types ` eval "$(tmux show-buffer
 *    -b NAME)"` through the caller's checked delivery; the code is in a tmux buffer) and
 *    waits for its first prompt mark;
 * 2. `inputLine`: waits until the line editor reads (raw mode), then asks it what is on
 *    its line (or clears it) by a bound key sequence; the answer comes over the FIFO;
 * 3. `beginRun`: primes the ack FIFO, so the prompt hook after the command waits for the
 *    broker; the caller then types exactly the command and Enter;
 * 4. on the next `P N`: reads where the output ended (run-signal.ts findOutputEnd, while
 *    the shell waits), keeps that as the run's mark, and acks.
 *
 * Text sends (input/input-line.ts): before text is submitted into a shell at its prompt,
 * its line is read the same way; the shell keeps what this broker typed there since its
 * last prompt mark (`noteTyped` / `typedSincePrompt`), so a client's own partial typing
 * across sends is told from text someone else left.
 *
 * A shell's FIFO pair is named after the shell (`<pane>-<pane pid>-<shell pid>-<shell>`)
 * and kept when the broker stops or dies: the hook in that shell still writes there, so
 * the next broker adopts the pair (`adoptable`, `adopt`) instead of typing the install
 * line again, and can read the line an interrupted paste left before it submits anything.
 * Pairs of shells that are gone are removed when the next broker looks.
 *
 * Threat model (docs/security.md): bytes printed to the terminal never reach a FIFO, so
 * printed output cannot forge a mark; any command running in that shell can (it owns the
 * shell and can read the hook's variables): a status is the shell's word.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, lstatSync, openSync, readdirSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Socket } from 'node:net';
import { openRunFifos, type RunFifoPair, type RunFifos } from '../run-fifos.js';
import { assertPaneId } from './format.js';
import { findOutputEnd, type CursorReader, type EndCapture, type RunMark } from './run-signal.js';
import { hookCode, installLine, type IntegrableShell } from './shell-hook.js';

/** Waits of the integration (generous: the machine may be loaded). */
const INSTALL_WAIT_MS = 8_000;
const LINE_WAIT_MS = 4_000;
const RAW_WAIT_MS = 8_000;
/** Before an install: a shell at its prompt is in raw mode at once; a script's `read` never. */
const INSTALL_RAW_WAIT_MS = 2_000;
/** How long the cursor is watched for the prompt before the terminal mode is read. */
const PROMPT_DRAWN_WAIT_MS = 300;
/** Shells kept at most; the least recently used goes first. */
const MAX_SHELLS = 256;
/** Run channels kept at most (as run-signal.ts MAX_CHANNELS). */
const MAX_RUNS = 256;
/** A status line longer than this is not ours. */
const MAX_LINE_BYTES = 512;

export interface ShellKey {
  paneId: string;
  panePid: number;
  shellPid: number;
}

export type ShellState = 'prompt' | 'running';

/** What this broker typed on a shell's input line since its last prompt mark, and for
 * whom (`role:actor`); `owner` null: more than one caller typed there. */
export interface TypedSincePrompt {
  owner: string | null;
  text: string;
}

export type EnsureOutcome =
  | { ok: true; installed: boolean }
  /** `typed`: the install line may have reached the pane. */
  | { ok: false; reason: string; typed: 'no' | 'unknown' | 'yes' };

/** What an install writes, through the caller's delivery (deliver.ts). */
export interface HookInput {
  holdBuffer(name: string, code: string): Promise<boolean>;
  dropBuffer(name: string): Promise<void>;
  /** Types one line and Enter at the shell's prompt. */
  typeLine(line: string): Promise<{ ok: boolean; delivered?: 'no' | 'unknown' }>;
}

export interface ShellIntegration {
  /** The shell's state as its hooks last reported it; null: not integrated. */
  state(key: ShellKey): ShellState | null;
  /** The integrated shell of this pane process known to this broker, whatever its state. */
  known(paneId: string, panePid: number): { key: ShellKey; shell: IntegrableShell } | null;
  /** Shells of this pane process whose hook an earlier broker installed (their FIFO pair is
   * still there): candidates for `adopt`. Pairs of shells that are gone are removed. */
  adoptable(paneId: string, panePid: number): { shellPid: number; shell: IntegrableShell }[];
  /** Takes over a pair an earlier broker left for this shell; the caller has checked the
   * shell is at its prompt (the process tree), so its state starts as `prompt`. */
  adopt(key: ShellKey, shell: IntegrableShell): boolean;
  /** Forgets the shell and removes its pair (its hook did not answer). */
  drop(key: ShellKey): void;
  /** Records text this broker typed on the shell's line for `owner` (`fresh`: the line was
   * cleared first). Forgotten at the shell's next prompt or command mark. */
  noteTyped(key: ShellKey, owner: string, text: string, fresh: boolean): void;
  typedSincePrompt(key: ShellKey): TypedSincePrompt | null;
  /** Installs the hook into this shell if it has none, and waits for its first prompt.
   * `input` is the caller's checked delivery (every write into a pane goes through
   * deliver.ts, from an input attempt's act step). */
  ensure(key: ShellKey, shell: IntegrableShell, input: HookInput): Promise<EnsureOutcome>;
  /** Waits for the line editor (raw mode), then reads its input line; with `clear`, clears
   * it first with the editor's own variables. null: the editor did not answer. */
  inputLine(key: ShellKey, clear: boolean, press: (which: 'probe' | 'clear') => Promise<{ ok: boolean }>): Promise<{ length: number; text: string } | null>;
  /** The shell's hook is gone (it reached its prompt without a prompt mark: a command
   * replaced PROMPT_COMMAND or precmd): waits up to `graceMs` for a late prompt mark, and
   * if none came, forgets the shell (the next `ensure` installs the hook again). True when
   * it was forgotten. */
  forgetIfSilent(key: ShellKey, graceMs: number): Promise<boolean>;
  /** Primes the shell's next prompt hook to wait for the broker, and opens a run channel
   * (its id, for waitMark / takeMark / release). */
  beginRun(key: ShellKey, capture: EndCapture | undefined): string;
  /** Whether `id` is a channel of this integration. */
  owns(id: string): boolean;
  waitMark(id: string, timeoutMs: number): Promise<RunMark | null>;
  takeMark(id: string): RunMark | null;
  release(id: string): void;
  close(): Promise<void>;
}

interface RunChannelState {
  readonly id: string;
  readonly capture: EndCapture | undefined;
  mark: RunMark | null;
  readonly waiters: Set<(mark: RunMark | null) => void>;
}

interface Shell {
  readonly key: ShellKey;
  readonly name: IntegrableShell;
  readonly pair: RunFifoPair;
  readonly reader: Socket;
  readonly ackFd: number;
  state: ShellState | 'installing';
  /** The status of the last prompt mark. */
  lastStatus: number;
  /** Where the prompt after a primed run starts (read while the shell waited for the ack);
   * null when unknown (a prompt after a person's command). */
  promptAt: { line: number; x: number } | null;
  received: string;
  /** Lines written into the ack FIFO that a prompt hook has not yet taken. */
  primed: boolean;
  /** What this broker typed on the line since the last prompt or command mark. */
  typed: TypedSincePrompt | null;
  run: RunChannelState | null;
  lineWaiters: Set<(line: { length: number; text: string }) => void>;
  promptWaiters: Set<(seen: true) => void>;
  /** Marks are handled in order (a prompt's end reading is awaited before the next). */
  queue: Promise<void>;
}

const keyOf = (k: ShellKey) => `${k.paneId}:${k.panePid}:${k.shellPid}`;
/** A kept pair's file: pane number, pane pid, shell pid, shell, end. */
const KEPT_RE = /^(\d{1,9})-(\d{1,9})-(\d{1,9})-(bash|zsh)\.(status|ack)$/;
const LINE_RE = /^L (\d{1,7}) ?(.*)$/s;
const PROMPT_RE = /^P (\d{1,3})$/;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function createShellIntegration(options: {
  stateDir: string;
  readCursor: CursorReader;
  /** The pane's terminal is in raw mode (a line editor reads); null: unknown. */
  lineEditing(paneId: string): Promise<boolean | null>;
}): ShellIntegration {
  const fifos: RunFifos = openRunFifos(options.stateDir, 'shells');
  const shells = new Map<string, Shell>();
  /** Run channels by id, until released (a mark outlives its shell's next run). */
  const runs = new Map<string, RunChannelState>();
  let closed = false;

  const writeAck = (shell: Shell) => {
    try {
      writeSync(shell.ackFd, 'a\n');
    } catch {
      // The pipe is full or gone: the shell's read gives up after 3 s.
    }
  };

  const settle = (run: RunChannelState, mark: RunMark | null) => {
    run.mark = mark;
    for (const w of run.waiters) w(mark);
    run.waiters.clear();
  };

  async function onPrompt(shell: Shell): Promise<void> {
    shell.state = 'prompt';
    shell.promptAt = null;
    shell.typed = null;
    const run = shell.run;
    if (shell.primed) {
      if (run !== null && run.mark === null) {
        let end: Awaited<ReturnType<typeof findOutputEnd>> = null;
        try {
          end = await findOutputEnd(options.readCursor, shell.key.paneId, run.capture);
        } catch {
          // tmux did not answer: no mark; the run's wait goes on by the process tree.
        }
        if (end !== null) {
          const { facts, output } = end;
          settle(run, { exitStatus: shell.lastStatus, endLine: facts.historySize + facts.cursorY, historySize: facts.historySize, cursorX: facts.cursorX, ...(output ? { output } : {}) });
          shell.promptAt = { line: facts.historySize + facts.cursorY, x: facts.cursorX };
        }
      }
      shell.primed = false;
      shell.run = null;
      writeAck(shell);
    }
    for (const w of shell.promptWaiters) w(true);
    shell.promptWaiters.clear();
  }

  function onLine(shell: Shell, line: string): void {
    const p = PROMPT_RE.exec(line);
    if (p) {
      const status = Number(p[1]);
      if (status > 255) return;
      shell.lastStatus = status;
      shell.queue = shell.queue.then(() => onPrompt(shell)).catch(() => undefined);
      return;
    }
    if (line === 'C') {
      shell.queue = shell.queue.then(() => {
        shell.state = 'running';
        shell.typed = null;
      });
      return;
    }
    const l = LINE_RE.exec(line);
    if (l) {
      const answer = { length: Number(l[1]), text: l[2] ?? '' };
      shell.queue = shell.queue.then(() => {
        for (const w of shell.lineWaiters) w(answer);
        shell.lineWaiters.clear();
      });
    }
  }

  /** `keep`: the pair stays for the next broker (this one stops; the hook lives on). */
  function forget(shell: Shell, keep = false): void {
    const k = keyOf(shell.key);
    if (shells.get(k) === shell) shells.delete(k);
    if (shell.run && shell.run.mark === null) settle(shell.run, null);
    shell.reader.destroy();
    try {
      closeSync(shell.ackFd);
    } catch {
      // already closed
    }
    if (!keep) fifos.remove(shell.pair);
  }

  /** The kept pair's paths of a shell (its name says whose it is; run-fifos.ts removes
   * only its own random names when a broker starts). */
  const keptPair = (key: ShellKey, shellName: IntegrableShell): RunFifoPair => {
    const id = `${key.paneId.slice(1)}-${key.panePid}-${key.shellPid}-${shellName}`;
    return { id, statusPath: join(fifos.dir, `${id}.status`), ackPath: join(fifos.dir, `${id}.ack`) };
  };
  const uid = process.getuid?.();
  const isOwnFifo = (path: string) => {
    const st = lstatSync(path, { throwIfNoEntry: false });
    return st !== undefined && st.isFIFO() && (uid === undefined || st.uid === uid);
  };
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'EPERM';
    }
  };

  /** Another shell in the same pane (or another process there) ends the older entries. */
  function dropOthersOf(key: ShellKey): void {
    for (const s of [...shells.values()]) {
      if (s.key.paneId === key.paneId && keyOf(s.key) !== keyOf(key)) forget(s);
    }
    while (shells.size >= MAX_SHELLS) forget(shells.values().next().value as Shell);
  }

  async function open(key: ShellKey, shellName: IntegrableShell): Promise<Shell> {
    const fresh = await fifos.take();
    const kept = keptPair(key, shellName);
    try {
      renameSync(fresh.statusPath, kept.statusPath);
      renameSync(fresh.ackPath, kept.ackPath);
      return openPair(key, kept, 'installing', shellName);
    } catch {
      // Not renamed: a pair under a random name serves this broker only (the next one
      // installs the hook again).
      fifos.remove(fresh);
      fifos.remove(kept);
      return openPair(key, await fifos.take(), 'installing', shellName);
    }
  }

  function openPair(key: ShellKey, pair: RunFifoPair, state: Shell['state'], name: IntegrableShell): Shell {
    const reader = fifos.openStatus(pair.statusPath);
    let ackFd: number;
    try {
      ackFd = openSync(pair.ackPath, constants.O_RDWR | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    } catch (err) {
      reader.destroy();
      fifos.remove(pair);
      throw err;
    }
    reader.on('error', () => undefined);
    const shell: Shell = { key, name, pair, reader, ackFd, state, typed: null, received: '', primed: false, run: null, lineWaiters: new Set(), promptWaiters: new Set(), queue: Promise.resolve(), lastStatus: 0, promptAt: null };
    reader.on('data', (chunk: Buffer) => {
      shell.received += chunk.toString('utf8');
      for (;;) {
        const nl = shell.received.indexOf('\n');
        if (nl < 0) break;
        const line = shell.received.slice(0, nl);
        shell.received = shell.received.slice(nl + 1);
        onLine(shell, line);
      }
      if (shell.received.length > MAX_LINE_BYTES) shell.received = '';
    });
    return shell;
  }

  const waitFor = <T>(set: Set<(v: T) => void>, ms: number): Promise<T | null> =>
    new Promise((resolve) => {
      const done = (v: T | null) => {
        clearTimeout(timer);
        set.delete(done as (v: T) => void);
        resolve(v);
      };
      const timer = setTimeout(() => done(null), ms);
      set.add(done as (v: T) => void);
    });

  /** Polls the pane's terminal until it is in raw mode (a line editor reads); false when
   * `until` ms passed or `stop` says so. */
  const waitRaw = async (paneId: string, ms: number, stop: () => boolean): Promise<boolean> => {
    const deadline = Date.now() + ms;
    for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
      if ((await options.lineEditing(paneId)) === true) return true;
      if (Date.now() >= deadline || stop()) return false;
      await sleep(wait);
    }
  };

  /** The prompt after a run was drawn: the cursor left where the shell waited for the ack.
   * bash's readline and zsh's zle put the terminal in raw mode before they draw the
   * prompt, so this answers "raw mode" with a control-client read instead of two spawns
   * (tmux for the tty, stty). False when unknown (an empty prompt, no run before). */
  const promptDrawn = async (shell: Shell): Promise<boolean> => {
    const deadline = Date.now() + PROMPT_DRAWN_WAIT_MS;
    for (let wait = 1; shell.promptAt !== null; wait = Math.min(wait * 2, 20)) {
      const at = shell.promptAt;
      const c = await options.readCursor(shell.key.paneId);
      if (c === null) return false;
      if (c.historySize + c.cursorY !== at.line || c.cursorX !== at.x) return true;
      if (Date.now() >= deadline) return false;
      await sleep(wait);
    }
    return false;
  };

  return {
    state(key) {
      const s = shells.get(keyOf(key));
      return s === undefined || s.state === 'installing' ? null : s.state;
    },

    known(paneId, panePid) {
      for (const s of shells.values()) if (s.key.paneId === paneId && s.key.panePid === panePid && s.state !== 'installing') return { key: s.key, shell: s.name };
      return null;
    },

    adoptable(paneId, panePid) {
      if (closed || !/^%\d{1,9}$/.test(paneId)) return [];
      let names: string[];
      try {
        names = readdirSync(fifos.dir);
      } catch {
        return [];
      }
      const found: { shellPid: number; shell: IntegrableShell }[] = [];
      for (const name of names) {
        const m = KEPT_RE.exec(name);
        if (!m) continue;
        const shellPid = Number(m[3]);
        if (shells.has(keyOf({ paneId: `%${m[1]}`, panePid: Number(m[2]), shellPid }))) continue;
        // A pair whose shell is gone serves nobody: removed as it is seen.
        if (!alive(shellPid)) {
          rmSync(join(fifos.dir, name), { force: true });
          continue;
        }
        if (`%${m[1]}` === paneId && Number(m[2]) === panePid && m[5] === 'status') found.push({ shellPid, shell: m[4] as IntegrableShell });
      }
      return found;
    },

    adopt(key, shellName) {
      if (closed || shells.has(keyOf(key))) return shells.has(keyOf(key));
      const pair = keptPair(key, shellName);
      if (!isOwnFifo(pair.statusPath) || !isOwnFifo(pair.ackPath)) return false;
      dropOthersOf(key);
      let shell: Shell;
      try {
        shell = openPair(key, pair, 'prompt', shellName);
      } catch {
        return false;
      }
      shells.set(keyOf(key), shell);
      return true;
    },

    drop(key) {
      const shell = shells.get(keyOf(key));
      if (shell !== undefined) forget(shell);
    },

    noteTyped(key, owner, text, fresh) {
      const shell = shells.get(keyOf(key));
      if (shell === undefined) return;
      const before = fresh ? null : shell.typed;
      shell.typed = before === null ? { owner, text } : { owner: before.owner === owner ? owner : null, text: before.text + text };
    },

    typedSincePrompt(key) {
      return shells.get(keyOf(key))?.typed ?? null;
    },

    async forgetIfSilent(key, graceMs) {
      const shell = shells.get(keyOf(key));
      if (shell === undefined) return true;
      if (shell.state === 'prompt') return false;
      // A prompt mark that comes meanwhile answers true through the waiter.
      if ((await waitFor(shell.promptWaiters, graceMs)) !== null) return false;
      forget(shell);
      return true;
    },

    async ensure(key, shellName, input) {
      assertPaneId(key.paneId);
      if (closed) return { ok: false, reason: 'the broker is stopping', typed: 'no' };
      const existing = shells.get(keyOf(key));
      if (existing !== undefined && existing.state !== 'installing') return { ok: true, installed: false };
      if (existing !== undefined) forget(existing);
      // Only a line editor reading a command line gets the install line: a script's `read`
      // (the terminal in canonical mode) looks like a shell at its prompt otherwise.
      if (!(await waitRaw(key.paneId, INSTALL_RAW_WAIT_MS, () => false))) {
        return { ok: false, reason: `the ${shellName} is not reading a command line (its terminal is not in line-editing mode: a script reading input, or a command running)`, typed: 'no' };
      }
      dropOthersOf(key);
      const shell = await open(key, shellName);
      shells.set(keyOf(key), shell);
      const buffer = `tmcp-sh-${randomBytes(12).toString('hex')}`;
      const code = hookCode(shellName, shell.pair.statusPath, shell.pair.ackPath, buffer);
      // The code goes in by stdin (it holds newlines and quotes), never on a command line.
      if (!(await input.holdBuffer(buffer, code))) {
        forget(shell);
        return { ok: false, reason: 'tmux could not hold the shell integration code', typed: 'no' };
      }
      const prompted = waitFor(shell.promptWaiters, INSTALL_WAIT_MS);
      let typed: Awaited<ReturnType<HookInput['typeLine']>>;
      try {
        typed = await input.typeLine(installLine(buffer));
      } catch {
        typed = { ok: false, delivered: 'unknown' };
      }
      if (!typed.ok) {
        void input.dropBuffer(buffer);
        forget(shell);
        return { ok: false, reason: 'the shell integration line could not be typed', typed: typed.delivered ?? 'unknown' };
      }
      const seen = await prompted;
      void input.dropBuffer(buffer);
      if (seen === null) {
        forget(shell);
        return { ok: false, reason: `the ${shellName} did not report its prompt after the shell integration was typed`, typed: 'yes' };
      }
      return { ok: true, installed: true };
    },

    async inputLine(key, clear, press) {
      const shell = shells.get(keyOf(key));
      if (shell === undefined || shell.state !== 'prompt') return null;
      // Keys sent before the editor is in raw mode would be echoed by the terminal.
      if (!(await promptDrawn(shell)) && !(await waitRaw(key.paneId, RAW_WAIT_MS, () => shell.state !== 'prompt'))) return null;
      const answer = waitFor(shell.lineWaiters, LINE_WAIT_MS);
      if (!(await press(clear ? 'clear' : 'probe')).ok) return null;
      return answer;
    },

    beginRun(key, capture) {
      const shell = shells.get(keyOf(key));
      if (shell === undefined) throw new Error('shell is not integrated');
      // A run still waiting on this shell has lost its end to this one.
      if (shell.run && shell.run.mark === null) settle(shell.run, null);
      const run: RunChannelState = { id: `sh-${randomBytes(12).toString('hex')}`, capture, mark: null, waiters: new Set() };
      shell.run = run;
      runs.set(run.id, run);
      // Runs never collected (their caller gone) go, oldest first.
      while (runs.size > MAX_RUNS) runs.delete(runs.keys().next().value as string);
      if (!shell.primed) {
        writeSync(shell.ackFd, 'p\n');
        shell.primed = true;
      }
      return run.id;
    },

    owns: (id) => id.startsWith('sh-'),

    waitMark(id, timeoutMs) {
      const run = runs.get(id);
      if (!run) return Promise.resolve(null);
      if (run.mark !== null || timeoutMs <= 0) return Promise.resolve(run.mark);
      return waitFor(run.waiters, timeoutMs);
    },

    takeMark: (id) => runs.get(id)?.mark ?? null,

    release(id) {
      const run = runs.get(id);
      runs.delete(id);
      if (run && run.mark === null) settle(run, null);
      for (const s of shells.values()) if (s.run === run) s.run = null;
    },

    async close() {
      closed = true;
      // Installed hooks live on in their shells: their pairs stay for the next broker.
      for (const s of [...shells.values()]) forget(s, s.state !== 'installing');
      await fifos.close();
    },
  };
}
