/**
 * terminal_run's FIFO pair on a node (effects/tmux/run-signal.ts `RunEndpoint`): the
 * status line typed into a node's pane writes into FIFOs on the node, so the node holds
 * them, and the broker talks to them through one ssh channel of the node's master
 * connection per run, running a constant helper (no client text on the ssh command line;
 * ssh-argv.ts quotes every word):
 *
 *   1. makes a private directory (`mktemp -d`, mode 0700) with the pair `status` and `ack`,
 *      holds `status` open read-write (it never sees end-of-file) and prints
 *      `dir <path>`; the path is checked like this host's before it is typed
 *      (run-fifos.ts `isTypeableRunPath`);
 *   2. copies whatever is written into `status` to the channel (`cat`): the broker parses
 *      it exactly as a local FIFO's bytes;
 *   3. for each `ack` line the broker writes, writes a newline into the `ack` FIFO (opened
 *      read-write, so it never blocks: with no reader the byte goes with the FIFO);
 *   4. when the broker ends the channel (end of input, ssh gone, a signal): stops `cat`
 *      and removes the directory.
 *
 * The pair has the local pair's properties: printing text cannot end a run (it never
 * reaches a FIFO), and a status line whose pair is gone skips it (`[ -p … ]`).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { execa } from 'execa';
import { randomBytes } from 'node:crypto';
import { AppError } from '@terminal-mcp/contract';
import { isTypeableRunPath } from '../run-fifos.js';
import type { RunEndpoint, RunEndpoints, SttyReader } from '../tmux/run-signal.js';
import { sshCommandArgs, type SshTarget } from './ssh-argv.js';

/** The helper, one line (a remote word may not hold a newline). Exported for its test. */
export const NODE_RUN_HELPER = [
  'umask 077',
  'c=',
  `trap 'kill "$c" 2>/dev/null; rm -rf "$d"' EXIT`,
  `trap 'exit 0' HUP INT TERM PIPE`,
  'd=$(mktemp -d "${TMPDIR:-/tmp}/tmcp-run.XXXXXXXXXX") || exit 3',
  'mkfifo "$d/status" "$d/ack" || exit 3',
  'exec 3<>"$d/status"',
  // `cat` reads the FIFO on its own read-only descriptor and does not keep the helper's
  // read-write one (3<&-): the helper's is then the only lasting writer, so `cat` sees
  // end-of-file and ends with the helper however the helper ends, even by SIGKILL, where
  // the EXIT trap never runs (a cat holding fd 3 itself never saw end-of-file, and was
  // left running for as long as the node stayed up).
  'cat <"$d/status" 3<&- & c=$!',
  `printf 'dir %s\\n' "$d"`,
  `while IFS= read -r l; do [ "$l" = ack ] && printf '\\n' 1<>"$d/ack"; done`,
  'exit 0',
].join('; ');

/** How long the helper may take to make the pair (an ssh channel and a mktemp). */
const MAKE_TIMEOUT_MS = 10_000;
/** After the channel's input ends, how long the helper has to exit before it is killed. */
const EXIT_GRACE_MS = 5_000;
/** The first line is `dir <path>`; a longer one is not the helper's. */
const MAX_DIR_LINE = 512;

/** The node's endpoints: one helper per run, all ended by `close`. */
export function nodeRunEndpoints(target: SshTarget, sshPath = 'ssh'): RunEndpoints {
  const live = new Set<ChildProcessWithoutNullStreams>();
  let closed = false;

  const end = (child: ChildProcessWithoutNullStreams) => {
    if (!live.delete(child)) return;
    child.stdin.end();
    const kill = setTimeout(() => child.kill('SIGKILL'), EXIT_GRACE_MS);
    kill.unref();
    child.once('exit', () => clearTimeout(kill));
  };

  return {
    make() {
      if (closed) return Promise.reject(new Error('run channels are closed'));
      const child = spawn(sshPath, sshCommandArgs(target, ['sh', '-c', NODE_RUN_HELPER]), { stdio: ['pipe', 'pipe', 'pipe'], cwd: '/' });
      live.add(child);
      child.stderr.resume();
      child.stdin.on('error', () => undefined);
      return new Promise<RunEndpoint>((resolve, reject) => {
        let head = '';
        let ready = false;
        const listeners: ((chunk: Buffer) => void)[] = [];
        const fail = (why: string) => {
          if (ready) return;
          ready = true;
          clearTimeout(timer);
          end(child);
          child.kill('SIGKILL');
          reject(new AppError('TMUX_UNAVAILABLE', `the node could not make the run's completion channel (${why})`));
        };
        const timer = setTimeout(() => fail('no answer in time'), MAKE_TIMEOUT_MS);
        timer.unref();
        child.once('error', () => fail('ssh did not start'));
        child.once('exit', () => fail('the helper ended'));
        const onHead = (chunk: Buffer) => {
          head += chunk.toString('latin1');
          const nl = head.indexOf('\n');
          if (nl < 0) {
            if (head.length > MAX_DIR_LINE) fail('an unexpected answer');
            return;
          }
          const m = /^dir (.+)$/.exec(head.slice(0, nl));
          const rest = Buffer.from(head.slice(nl + 1), 'latin1');
          const dir = m?.[1];
          if (dir === undefined || !isTypeableRunPath(`${dir}/status`)) return fail('an unexpected answer');
          clearTimeout(timer);
          ready = true;
          child.stdout.off('data', onHead);
          // Bytes before the run's listener (none are expected: the line is typed after)
          // wait for it.
          const early: Buffer[] = rest.length > 0 ? [rest] : [];
          child.stdout.on('data', (c: Buffer) => {
            if (listeners.length === 0) early.push(c);
            for (const l of listeners) l(c);
          });
          resolve({
            id: randomBytes(16).toString('hex'),
            statusPath: `${dir}/status`,
            ackPath: `${dir}/ack`,
            onData(listener) {
              listeners.push(listener);
              for (const c of early.splice(0)) listener(c);
            },
            ack: () => void (live.has(child) && child.stdin.write('ack\n')),
            close: () => end(child),
          });
        };
        child.stdout.on('data', onHead);
      });
    },
    async close() {
      closed = true;
      const children = [...live];
      for (const child of children) end(child);
      await Promise.all(children.map((c) => (c.exitCode !== null || c.signalCode !== null ? undefined : new Promise((r) => c.once('exit', r)))));
    },
  };
}

/** `stty -a` of a node's tty, through a channel of its master connection (the tty is
 * checked to be /dev/pts/<n> by run-signal.ts before it gets here). */
export function nodeStty(target: SshTarget, sshPath = 'ssh'): SttyReader {
  return async (tty) => {
    const r = await execa(sshPath, sshCommandArgs(target, ['env', 'LC_ALL=C', 'stty', '-F', tty, '-a']), { reject: false, stdin: 'ignore', cwd: '/', timeout: MAKE_TIMEOUT_MS, killSignal: 'SIGKILL' });
    return r.exitCode === 0 && typeof r.stdout === 'string' ? r.stdout : null;
  };
}
