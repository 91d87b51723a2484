/**
 * tmux's side of terminal_run (input/run.ts): the typed wrapper ends by setting a pane
 * user option `@tmcp_run_<nonce>` to "<exit status> #{history_size} #{cursor_y}" and
 * signalling `tmux wait-for -S tmcp-run-<nonce>`; here the broker waits on that channel
 * (a `tmux wait-for` client of its own), and reads and clears the option. Output can print the nonce text but cannot signal a tmux
 * channel or set a pane option: only a tmux command does that.
 *
 * Also the one fact tmux does not give: whether the pane's terminal is in raw mode (a
 * line editor — readline, zle — is reading at a prompt) or canonical mode (a program
 * runs), read with `stty -F` on the pane's tty.
 */
import { execa } from 'execa';
import { assertPaneId } from './format.js';
import { createTmuxCommandRunner, type TmuxCommandRunner } from './tmux-command.js';

const NONCE_RE = /^[0-9a-f]{32}$/;
const TTY_RE = /^\/dev\/pts\/\d{1,6}$/;

export const runOption = (nonce: string) => `@tmcp_run_${nonce}`;
export const runChannel = (nonce: string) => `tmcp-run-${nonce}`;

export interface RunMark {
  exitStatus: number;
  /** Absolute line of the cursor when the status line ran: the first line after the output. */
  endLine: number;
}

export interface RunSignals {
  /** tmux's socket path, for the wrapper to name the server explicitly. */
  socketPath(): Promise<string>;
  /** Waits up to `timeoutMs` for the channel (tmux keeps a signal sent before anyone
   * waits, so none is missed), then reads and clears the mark in the same tmux client (no
   * second spawn): the mark, or null when the time ran out. */
  waitMark(paneId: string, nonce: string, timeoutMs: number, signal?: AbortSignal): Promise<RunMark | null>;
  /** The mark the wrapper set, or null; cleared once read. */
  takeMark(paneId: string, nonce: string): Promise<RunMark | null>;
  /** The pane's tty is in raw mode (a line editor reads at a prompt); null when unknown. */
  lineEditing(paneId: string): Promise<boolean | null>;
}

function checkNonce(nonce: string): void {
  if (!NONCE_RE.test(nonce)) throw new Error('invalid run nonce');
}

/** Read the mark and clear it (`-q`: an option not set is no error). */
const markCommands = (paneId: string, nonce: string): string[][] => [
  ['show-options', '-p', '-v', '-q', '-t', paneId, runOption(nonce)],
  ['set-option', '-p', '-u', '-q', '-t', paneId, runOption(nonce)],
];

export function parseRunMark(value: string): RunMark | null {
  const m = /^(\d{1,3}) (\d{1,9}) (\d{1,6})$/.exec(value.trim());
  if (!m) return null;
  return { exitStatus: Number(m[1]), endLine: Number(m[2]) + Number(m[3]) };
}

export function createRunSignals(options: { socketName?: string | undefined; runner?: TmuxCommandRunner } = {}): RunSignals {
  const runner = options.runner ?? createTmuxCommandRunner({ socketName: options.socketName });
  let socket: string | undefined;
  return {
    async socketPath() {
      if (socket !== undefined) return socket;
      const r = await runner.run(['display-message', '-p', '#{socket_path}']);
      const path = r.stdout.trim();
      if (r.exitCode !== 0 || !path.startsWith('/')) throw new Error('tmux did not name its socket');
      socket = path;
      return path;
    },

    async waitMark(paneId, nonce, timeoutMs, signal) {
      assertPaneId(paneId);
      checkNonce(nonce);
      if (timeoutMs <= 0) return null;
      const r = await runner.runList([['wait-for', runChannel(nonce)], ...markCommands(paneId, nonce)], { timeoutMs, ...(signal ? { signal } : {}) });
      return r.timedOut || r.stdout.trim() === '' ? null : parseRunMark(r.stdout);
    },

    async takeMark(paneId, nonce) {
      assertPaneId(paneId);
      checkNonce(nonce);
      const r = await runner.runList(markCommands(paneId, nonce));
      return r.timedOut || r.stdout.trim() === '' ? null : parseRunMark(r.stdout);
    },

    async lineEditing(paneId) {
      assertPaneId(paneId);
      const t = await runner.run(['display-message', '-p', '-t', paneId, '#{pane_tty}']);
      const tty = t.stdout.trim();
      if (t.exitCode !== 0 || !TTY_RE.test(tty)) return null;
      const r = await execa('stty', ['-F', tty, '-a'], { reject: false, timeout: 2_000, stdin: 'ignore', env: { LC_ALL: 'C', PATH: process.env.PATH ?? '/usr/bin:/bin' }, extendEnv: false });
      if (r.exitCode !== 0 || typeof r.stdout !== 'string') return null;
      if (/(^|\s)-icanon(\s|$)/.test(r.stdout)) return true;
      if (/(^|\s)icanon(\s|$)/.test(r.stdout)) return false;
      return null;
    },
  };
}
