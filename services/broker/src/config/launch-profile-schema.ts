/**
 * `launch_profiles:` in config.yaml: the only programs Terminal MCP ever starts in a new
 * tmux session. The operator writes the command line here; a client picks a profile by
 * name and may choose only a session name matching `name_pattern`, a working directory
 * under one of `roots`, and an initial prompt (typed through the guarded input path).
 *
 * Everything here ends up as an argument of a tmux command line (`new-session`), so each
 * string is held to what tmux takes literally: printable ASCII, never ending in `;` (tmux's
 * command separator, even after `--`), and no `#` in paths (`-c` is format-expanded,
 * `#(...)` would run a shell command). Pure: no I/O.
 */
import { z } from 'zod';
import { LOCAL_NODE, NODE_NAME_RE } from './nodes-schema.js';

/** What tmux takes as one literal argument (effects/tmux/tmux-command.ts checks the same). */
const tmuxLiteral = z
  .string()
  .regex(/^[\x20-\x7e]{1,512}$/, 'printable ASCII, 1-512 characters')
  .refine((a) => !a.endsWith(';'), 'must not end in ; (tmux would read a command separator)');

const absolutePath = z
  .string()
  .regex(/^\/[\x20-\x7e]{0,1023}$/, 'an absolute path of printable ASCII')
  .refine((p) => !p.split('/').includes('..'), 'no .. segments')
  .refine((p) => !p.includes('#') && !p.endsWith(';'), 'no # and no trailing ; (tmux would interpret them)');

export const launchProfileSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9._-]{1,64}$/, 'name: 1-64 characters of a-z 0-9 . _ -'),
    /** argv, run by tmux without a shell: `[codex, --full-auto]`, `[bash, --norc]`. */
    command: z.array(tmuxLiteral).min(1).max(64),
    /** Directories a session may start in (and below them); the first is the default. */
    roots: z.array(absolutePath).min(1).max(20),
    /** Environment added to the new session (`new-session -e`); shown to nobody. */
    env: z
      .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'environment names: letters, digits, _'), tmuxLiteral.or(z.literal('')))
      .refine((r) => Object.keys(r).length <= 32, 'at most 32 environment additions')
      .default(() => ({})),
    /** Glob a new session's name must match (the same globs as allowed_session_patterns);
     * default `<profile name>-*`. Names are also held to letters, digits, `_` and `-`. */
    name_pattern: z.string().min(1).max(128).optional(),
    /** The foreground program a start waits for (default: the command's basename). */
    ready_command: z.string().regex(/^[\x21-\x7e]{1,64}$/).optional(),
    width: z.number().int().min(20).max(500).default(200),
    height: z.number().int().min(5).max(200).default(50),
    /** `on_exit`: a session of this profile whose program exits (its session ends) is
     * started again, at most `max_restarts_per_hour` times in any hour, each time after
     * `backoff_seconds` doubled per restart in a row; then it stays down as a crash loop. */
    recover: z.enum(['on_exit', 'never']).default('never'),
    max_restarts_per_hour: z.number().int().min(1).max(60).default(3),
    backoff_seconds: z.number().min(0).max(300).default(2),
    /** Sessions of this profile running at once, whoever started them (absent: no cap
     * but the per-client one). */
    max_sessions: z.number().int().min(1).max(1000).optional(),
    /** Sessions of this profile one client (principal) may have running at once: a client
     * that may start sessions cannot start without end (issue 45). */
    max_sessions_per_client: z.number().int().min(1).max(1000).default(10),
    /** The configured node (`nodes:`) whose tmux the profile's sessions start on; absent:
     * this host. The operator decides where a program runs: a client never names a host
     * for a start (the session is then `node:name`). Checked against `nodes:` in schema.ts;
     * `roots` are paths on that node. */
    node: z
      .string()
      .regex(NODE_NAME_RE, 'node: a configured node name')
      .refine((n) => n !== LOCAL_NODE, `leave node out for this host ("${LOCAL_NODE}" is not a node)`)
      .optional(),
  })
  .strict();

export type LaunchProfile = z.output<typeof launchProfileSchema>;
