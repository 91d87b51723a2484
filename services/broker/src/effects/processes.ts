/**
 * Every process the broker (and the `terminal-mcp` commands of its package) can start, in
 * one place, with where its command line comes from and who may cause it. No command line,
 * working directory or environment of any process comes from a client: the program and
 * argv are constants of our code or the operator's config.yaml, and client input reaches
 * a process only as validated ids (`%7`, `$3`) or as bytes on stdin (`load-buffer -`).
 *
 * test/src/architecture.test.ts derives from the source every module that imports
 * `node:child_process` or `execa` and fails unless it is listed here (and every module
 * listed here still spawns), so a new way to start a process cannot appear unlisted.
 * docs/security.md shows this table.
 */

/** Who may cause a spawn: `broker` (its own start, timers and control clients, no caller),
 * `cli` (the operator running a `terminal-mcp*` command), or an effect a caller's principal
 * must allow (services/broker/src/policy/authority.ts). */
export type SpawnTrigger = 'broker' | 'cli' | 'read' | 'input' | 'lifecycle';

export interface BrokerProcess {
  /** What runs. */
  readonly program: string;
  /** Where its argv comes from. */
  readonly argv: string;
  /** Modules (under services/broker/src/) that spawn it with `node:child_process` or
   * `execa`; empty when tmux starts it on a command we send (`via`). */
  readonly modules: readonly string[];
  readonly via?: string;
  readonly triggers: readonly SpawnTrigger[];
  /** Who may cause it, in words. */
  readonly who: string;
}

export const BROKER_PROCESSES: Readonly<Record<string, BrokerProcess>> = {
  tmux_control_client: {
    program: 'tmux -C (through `setpriv --pdeathsig TERM` where util-linux has it)',
    argv: 'constants: `-L <config socket> -f <config file> -C attach -f ignore-size,no-output -t <hidden session id>`; watchers attach read-only to a validated `$id`',
    modules: ['effects/tmux/control-process.ts'],
    triggers: ['broker', 'read'],
    who: 'the broker at start (its one command client); any principal allowed to read a session starts a watcher on it (live output, waits, supervisor watches)',
  },
  tmux_command: {
    program: 'tmux (one command); for a node\'s pane `ssh … <host> -- tmux -L <socket> …` (a channel of the node\'s master connection, effects/ssh/ssh-transport.ts)',
    argv: 'constants plus validated ids (`%pane`, `$session`), generated buffer names and allowlisted key names (assertSafeTmuxArgument); pasted text only on stdin (`load-buffer -`)',
    modules: ['effects/tmux/tmux-command.ts'],
    triggers: ['broker', 'input'],
    who: 'the input attempt after THE input authorization (input/authorize.ts) for load-buffer/paste-buffer/send-keys, on this host or a node; the broker itself for hidden-session upkeep; terminal_run, while it waits for a command it typed, for the pane\'s tty name (effects/tmux/run-signal.ts)',
  },
  tty_mode_probe: {
    program: 'stty -F <pane tty> -a',
    argv: 'constants plus the pane\'s tty as tmux names it, checked to be /dev/pts/<n> (effects/tmux/run-signal.ts), or the terminal of the pane process\'s fd 0 (effects/proc/terminal-read.ts)',
    modules: ['effects/tmux/run-signal.ts', 'effects/proc/terminal-read.ts'],
    triggers: ['input'],
    who: 'terminal_run while it waits for a command it typed (is the shell back at its prompt?), and a secret entry checking that ssh waits at its own password prompt (echo off, canonical): both after THE input authorization',
  },
  hidden_session_loop: {
    program: '`cat`, then `sh -c <loop>` in the hidden session (started by tmux)',
    argv: 'constants (effects/tmux/hidden-session.ts): the loop waits for the broker pid to exit',
    modules: [],
    via: 'tmux, on the new-session/respawn-pane commands of effects/tmux/hidden-session.ts',
    triggers: ['broker'],
    who: 'the broker when its control client attaches',
  },
  transcript_fifo: {
    program: 'mkfifo -m 600',
    argv: 'constants plus FIFO paths the broker names from pane ids under its own state directory (effects/transcripts/pane-fifos.ts)',
    modules: ['effects/transcripts/pane-fifos.ts'],
    triggers: ['broker', 'read'],
    who: 'the transcript recorder, for each pane of a session the read policy lets it record',
  },
  run_fifo: {
    program: 'mkfifo -m 600',
    argv: 'constants plus FIFO paths with random names the broker makes under its own state directory (effects/run-fifos.ts); the pane\'s shell writes and reads them with builtins only (no process starts in the pane)',
    modules: ['effects/run-fifos.ts'],
    triggers: ['broker', 'input'],
    who: 'terminal_run\'s completion channels, made ahead several at a time (the first run after a start, then whenever few are left), after THE input authorization',
  },
  transcript_pipe: {
    program: '`cat` writing one pane\'s output into its FIFO (tmux `pipe-pane -O`)',
    argv: 'constants plus the FIFO path above, quoted by the broker',
    modules: [],
    via: 'tmux, on the pipe-pane command of effects/tmux/pane-pipe.ts',
    triggers: ['broker', 'read'],
    who: 'the transcript recorder, for each recorded pane; it ends when the pipe is closed or the pane goes',
  },
  setpriv_probe: {
    program: 'setpriv --help',
    argv: 'constant (`--help`, to learn whether `--pdeathsig` exists)',
    modules: ['effects/tmux/death-signal.ts'],
    triggers: ['broker'],
    who: 'the broker, once, before its first control client',
  },
  git: {
    program: 'git',
    argv: 'fixed read-only subcommands with validated revisions and paths, `-C <configured source root or verifier worktree>`, a scratch environment, no shell',
    modules: ['effects/git/git-runner.ts'],
    triggers: ['read', 'broker'],
    who: 'any principal allowed to read project sources (observer, gateway: source_* tools, project_check); the verifier reading its configured worktree',
  },
  verifier_test_command: {
    program: "the operator's `supervisor.verifier_profiles[].test_command`",
    argv: 'config only (argv, no shell), in the profile\'s configured worktree, environment built from scratch, timeout from the profile',
    modules: ['effects/verifier/verifier-runner.ts'],
    triggers: ['input'],
    who: 'the supervisor, when an autonomous watch claims DONE, for a profile chosen by a principal allowed the input effect (supervisor_set_verifier_policy) and still in the config; never while permissions.terminal_input is off',
  },
  deploy_preview_command: {
    program: "the operator's `project_profiles[].deploy_preview.commands[].argv`",
    argv: 'config only (argv, no shell), only when the profile is `preview_safe`, in the project\'s configured repository, fixed environment, timeout',
    modules: ['effects/deploy/run-command.ts'],
    triggers: ['input'],
    who: 'deploy_preview, for a principal allowed the input effect, while permissions.terminal_input is on',
  },
  getent_group: {
    program: 'getent group <name>',
    argv: "the operator's TERMINAL_MCP_SOCKET_GROUPS (validated group names)",
    modules: ['effects/socket-files.ts'],
    triggers: ['broker'],
    who: 'the broker at start, when socket groups are configured',
  },
  broker_from_stdio_launcher: {
    program: 'node <broker main.js> (detached)',
    argv: 'constants: the node flags and the package\'s own broker entry point',
    modules: ['effects/launch/stdio-launch.ts'],
    triggers: ['cli'],
    who: '`terminal-mcp` (stdio) when no broker answers, as the local user who ran it',
  },
  ssh_to_nodes: {
    program: 'ssh (OpenSSH) to a configured node: the control client `ssh -T … -- tmux -L <socket> -C attach …` (started through control-process.ts) and `ssh -O exit` for its master connection',
    argv: 'config `nodes:` only: validated destination, known_hosts and identity file, BatchMode, StrictHostKeyChecking=yes; remote words single-quoted after `--`; nothing from a client',
    modules: ['effects/ssh/ssh-transport.ts'],
    triggers: ['broker', 'read'],
    who: 'the broker, for each configured node (connect, reconnect with backoff, health probe, close)',
  },
  node_process_tree: {
    program: 'ssh to a configured node running `sh -c \'ps -A -L -o pid=,lwp=,ppid=,pgid=,tpgid=,uid=,stat=,tty=,wchan:40=,comm= && echo <mark> && ps -A -o pid=,args=\'` and `env LC_ALL=C ls -l -b -- /proc/<pid>/exe … /proc/<pid>/fd …`',
    argv: 'the ssh options of config `nodes:` (ssh-argv.ts), then a constant script, or `ls` with paths built from pids that ps printed (parsed as integers); nothing from a client (effects/ssh/remote-processes.ts)',
    modules: ['effects/ssh/remote-processes.ts'],
    triggers: ['input'],
    who: 'the input attempt on a node\'s pane, after the caller passed the input authorization\'s principal and name checks: the pane\'s process tree for the guarded-command and foreground gates',
  },
  node_run_channel: {
    program: "ssh to a configured node running `sh -c '<helper>'` (a private mktemp directory with terminal_run's FIFO pair, `cat` copying its status FIFO to the channel, an ack written per line the broker sends), and `env LC_ALL=C stty -F <pane tty> -a`",
    argv: "the ssh options of config `nodes:` (ssh-argv.ts), then a constant script, or `stty` with the pane's tty as the node's tmux names it, checked to be /dev/pts/<n>; nothing from a client (effects/ssh/node-run-fifos.ts)",
    modules: ['effects/ssh/node-run-fifos.ts'],
    triggers: ['input'],
    who: "terminal_run on a node's session after THE input authorization (one helper per run, ended once the run is answered or the broker stops), and while it waits (is the shell back at its prompt?)",
  },
  launch_profile_program: {
    program: "a launch profile's `command` in a new tmux session, on this host or on the profile's `node:`",
    argv: "config only: `launch_profiles[].command` (argv, no shell), its `env`, size, and a start directory under the profile's `roots` (resolved on the host it runs on); the session name passed the profile's name_pattern",
    modules: [],
    via: 'tmux, on the new-session command of effects/tmux/session-lifecycle.ts (through tmux-command.ts; for a node, a channel of its ssh master connection)',
    triggers: ['lifecycle', 'broker'],
    who: 'terminal_session_start / terminal_session_restart for a principal allowed the lifecycle effect while permissions.session_lifecycle is on; the broker itself when a `recover: on_exit` session ended',
  },
  node_start_directory: {
    program: "ssh to a configured node running `sh -c '<constant script: realpath -e -z of each directory>' sh <paths>`",
    argv: "the ssh options of config `nodes:` (ssh-argv.ts), a constant script, and as its positional parameters a profile's configured roots and the start directory asked for (absolute, printable ASCII, no `..` or `#`; never script text) (effects/ssh/node-lifecycle.ts)",
    modules: ['effects/ssh/node-lifecycle.ts'],
    triggers: ['lifecycle', 'broker'],
    who: 'terminal_session_start / terminal_session_restart of a launch profile with `node:`, after the lifecycle gates (name pattern, guarded commands); recovery of such a session',
  },
  tmux_probe: {
    program: 'tmux -V, tmux [-L socket] list-sessions',
    argv: 'constants plus the configured socket name',
    modules: ['effects/launch/tmux-probe.ts', 'effects/launch/registry-cleanup-cli.ts'],
    triggers: ['cli'],
    who: '`terminal-mcp status` / `doctor` and `terminal-mcp-registry cleanup`, run by the operator',
  },
};

/** Every module that may import `node:child_process` or `execa`. */
export function spawningModules(): ReadonlySet<string> {
  return new Set(Object.values(BROKER_PROCESSES).flatMap((p) => p.modules));
}
