/**
 * How a program reads the pane's terminal right now, for the secret entry's rule on
 * programs that carry a remote session (policy/credential-reader.ts): the terminal's line
 * discipline mode, and what the program is blocked in.
 *
 *  - The mode: `stty -a -F <the pane's terminal>` (the terminal is the pane process's
 *    standard input, /proc/<pane pid>/fd/0). A password prompt (OpenSSH's readpassphrase,
 *    sudo, getpass) turns echo off and keeps canonical mode; a connected interactive ssh
 *    puts the local terminal in raw mode (no canonical mode) for the remote side, whatever
 *    the remote shell does with its own terminal.
 *  - The wait: /proc/<pid>/task/<tid>/wchan. A program at its password prompt is blocked in
 *    a terminal read (`wait_woken`, `n_tty_read`); a connected ssh waits in poll or select
 *    on its connection and the terminal together. Measured here (OpenSSH 9, Linux 6):
 *    passphrase prompt `wait_woken` with `icanon -echo`; connected `poll_schedule_timeout`
 *    with `-icanon -echo`, unchanged while the remote shell runs `read -s`.
 *
 * Both are facts of the kernel the program cannot choose: an agent can set the local
 * terminal to `-echo icanon` (`stty -echo; ssh -T host …`), but a connected ssh still polls.
 */
import { execFile } from 'node:child_process';
import { readdir, readFile, readlink } from 'node:fs/promises';
import type { TerminalMode, TerminalReadFacts, TerminalWait } from '../../policy/credential-reader.js';

const TTY_PATH = /^\/dev\/(?:pts\/\d+|tty[A-Za-z0-9]*)$/;
const TERMINAL_WAIT = /^(?:wait_woken|n_tty_read|tty_read)\b/;
const POLL_WAIT = /^(?:poll_schedule_timeout|do_select|core_sys_select|do_sys_poll|ep_poll|do_epoll_wait)\b/;
const STTY_TIMEOUT_MS = 2_000;

/** `stty -a` output → the two flags; null when either is missing. */
export function parseSttyModes(text: string): TerminalMode | null {
  const words = new Set(text.split(/[\s;]+/));
  const flag = (name: string) => (words.has(name) ? true : words.has(`-${name}`) ? false : null);
  const echo = flag('echo');
  const canonical = flag('icanon');
  return echo === null || canonical === null ? null : { echo, canonical };
}

async function readMode(panePid: number): Promise<TerminalMode | null> {
  const tty = await readlink(`/proc/${panePid}/fd/0`).catch(() => null);
  if (tty === null || !TTY_PATH.test(tty)) return null;
  return new Promise((resolve) => {
    execFile('stty', ['-a', '-F', tty], { timeout: STTY_TIMEOUT_MS, env: { PATH: '/usr/bin:/bin', LC_ALL: 'C' } }, (err, stdout) => {
      resolve(err ? null : parseSttyModes(String(stdout)));
    });
  });
}

async function readWait(pid: number): Promise<TerminalWait> {
  const tids = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  if (tids.length === 0) return null;
  let answer: TerminalWait = 'other';
  for (const tid of tids.slice(0, 64)) {
    const wchan = (await readFile(`/proc/${pid}/task/${tid}/wchan`, 'utf8').catch(() => '')).trim();
    // "0" or nothing: hidden from us (another user's process) or between two states.
    if (wchan === '' || wchan === '0') return null;
    if (TERMINAL_WAIT.test(wchan)) return 'terminal';
    if (POLL_WAIT.test(wchan)) answer = 'poll';
  }
  return answer;
}

/** The terminal's mode (through the pane's process) and what `pid` waits in, now. */
export async function readTerminalRead(panePid: number, pid: number): Promise<TerminalReadFacts> {
  const [mode, wait] = await Promise.all([readMode(panePid), readWait(pid)]);
  return { mode, wait };
}
