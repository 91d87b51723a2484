/**
 * Our tmux control clients end when the broker does, however it ends.
 *
 * Why: when the broker is killed (SIGKILL, OOM, a crash), each of its `tmux -C` clients
 * sees its stdin close and should detach. tmux 3.3a does not always let it: a control
 * client with output still queued for a reader that is gone stays attached for good, and
 * `detach-client` does not move it. Measured with 20 recorded sessions and a SIGKILLed
 * broker: 4 and 19 watchers left attached in 2 of 6 runs, 0 in 11 runs with this. Such a
 * client shows the session as attached in the user's `tmux ls`, and after the user's
 * `tmux kill-server` the server waits for it forever, so the next `tmux` on that socket
 * answers "server exited unexpectedly".
 *
 * So on Linux each control client is started through util-linux `setpriv --pdeathsig
 * TERM`, which asks the kernel to send the client SIGTERM the moment its parent (the
 * broker) dies, before `setpriv` execs tmux (same pid, same argv for tmux). Where
 * `setpriv` or the option is missing (other systems, a minimal container), clients are
 * started as before and a killed broker may leave one behind, as it could until now.
 */
import { spawnSync } from 'node:child_process';

// eslint-disable-next-line terminal-mcp/no-module-state -- a fact of the host (does setpriv have --pdeathsig?), probed once per process; the spawn path is being reworked for SSH transports
let launcher: readonly string[] | undefined;

/** The argv prefix that starts a command with a parent-death signal, or none: probed
 * once per process (a few ms, on the first control client). */
export function deathSignalLauncher(): readonly string[] {
  if (launcher === undefined) {
    launcher = [];
    if (process.platform === 'linux') {
      const probe = spawnSync('setpriv', ['--help'], { encoding: 'utf8', timeout: 5_000, stdio: ['ignore', 'pipe', 'ignore'] });
      if (probe.status === 0 && probe.stdout.includes('--pdeathsig')) launcher = ['setpriv', '--pdeathsig', 'TERM', '--'];
    }
  }
  return launcher;
}
