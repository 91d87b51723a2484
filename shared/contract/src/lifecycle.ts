/** Schemas of session lifecycle: start a session from an operator-defined launch profile,
 * close or restart one (identity-pinned, dry run unless confirmed), resize its window.
 * A client names a profile and may pass only what that profile allows (a name, a cwd
 * under its roots, an initial prompt typed through the guarded input path): no command
 * line ever comes from a client. Field names are snake_case (public MCP API). */
import { z } from 'zod';
import { sessionNameSchema } from './sessions.js';
import { INPUT_LIMITS } from './input.js';

export const LIFECYCLE_LIMITS = {
  /** Window sizes terminal_resize accepts (columns, rows). */
  minWidth: 20,
  maxWidth: 500,
  minHeight: 5,
  maxHeight: 200,
  cwdChars: 1024,
} as const;

export const launchProfileNameSchema = z.string().regex(/^[a-z0-9._-]{1,64}$/, 'profile: 1-64 characters of a-z 0-9 . _ -');

/** A session id as terminal_list_sessions shows it: `$3` on this host, `gpu:$3` on node gpu. */
export const tmuxSessionIdSchema = z.string().regex(/^(?:[a-z][a-z0-9_-]{0,31}:)?\$\d{1,9}$/, 'a session id such as $3 or gpu:$3 (terminal_list_sessions shows it)');

export const sessionStartInputShape = {
  profile: launchProfileNameSchema.describe('a launch_profiles name'),
  name: sessionNameSchema.optional().describe("matching the profile's name_pattern"),
  cwd: z.string().min(1).max(LIFECYCLE_LIMITS.cwdChars).optional().describe("under the profile's roots"),
  prompt: z.string().min(1).max(INPUT_LIMITS.textMax).optional().describe('first text, typed as terminal_send_text with Enter'),
  dry_run: z.boolean().optional(),
};
export const sessionStartInputSchema = z.object(sessionStartInputShape).strict();
export type SessionStartInput = z.infer<typeof sessionStartInputSchema>;

/** Close and restart act on exactly the session the caller saw: its name and id. Without
 * `confirm: true` they only say what they would do. */
export const sessionPinnedInputShape = {
  session: sessionNameSchema.describe('exact session name'),
  expect_session_id: tmuxSessionIdSchema.describe('the session_id you saw'),
  confirm: z.boolean().optional().describe('true acts; else a dry run'),
};
export const sessionPinnedInputSchema = z.object(sessionPinnedInputShape).strict();
export type SessionPinnedInput = z.infer<typeof sessionPinnedInputSchema>;

export const sessionResizeInputShape = {
  session: sessionNameSchema.describe('exact session name'),
  width: z.number().int().min(LIFECYCLE_LIMITS.minWidth).max(LIFECYCLE_LIMITS.maxWidth).describe('columns'),
  height: z.number().int().min(LIFECYCLE_LIMITS.minHeight).max(LIFECYCLE_LIMITS.maxHeight).describe('rows'),
};
export const sessionResizeInputSchema = z.object(sessionResizeInputShape).strict();
export type SessionResizeInput = z.infer<typeof sessionResizeInputSchema>;

const promptReceiptSchema = z.object({ result: z.string(), audit_id: z.number().nullable(), error_code: z.string().nullable() });

export const sessionStartOutputSchema = z.object({
  result: z.enum(['STARTED', 'DRY_RUN']),
  profile: z.string(),
  session: z.string(),
  session_id: z.string().nullable(),
  pane_id: z.string().nullable(),
  cwd: z.string(),
  /** The pane's foreground program once it came up (null: a dry run, or it did not come up in time). */
  foreground: z.string().nullable(),
  audit_id: z.number(),
  /** The initial prompt's own input receipt, when one was given. */
  prompt: promptReceiptSchema.nullable(),
});
export type SessionStartOutput = z.infer<typeof sessionStartOutputSchema>;

export const sessionCloseOutputSchema = z.object({
  result: z.enum(['CLOSED', 'DRY_RUN']),
  session: z.string(),
  session_id: z.string(),
  profile: z.string().nullable(),
  audit_id: z.number(),
});
export type SessionCloseOutput = z.infer<typeof sessionCloseOutputSchema>;

/** terminal_session_forget: the gone session's registry row became a DELETED tombstone
 * (or, without confirm, would). */
export const sessionForgetOutputSchema = z.object({
  result: z.enum(['DELETED', 'DRY_RUN']),
  session: z.string(),
  session_id: z.string(),
  /** How many registry rows of that name and id (a tmux server restart can reuse an id). */
  rows: z.number().int(),
  audit_id: z.number(),
});
export type SessionForgetOutput = z.infer<typeof sessionForgetOutputSchema>;

export const sessionRestartOutputSchema = z.object({
  result: z.enum(['RESTARTED', 'DRY_RUN']),
  session: z.string(),
  profile: z.string(),
  previous_session_id: z.string(),
  session_id: z.string().nullable(),
  pane_id: z.string().nullable(),
  foreground: z.string().nullable(),
  audit_id: z.number(),
});
export type SessionRestartOutput = z.infer<typeof sessionRestartOutputSchema>;

export const sessionResizeOutputSchema = z.object({ session: z.string(), session_id: z.string(), width: z.number(), height: z.number(), audit_id: z.number() });
export type SessionResizeOutput = z.infer<typeof sessionResizeOutputSchema>;

/** What the dashboard shows of a profile (never its environment additions). */
export const launchProfileViewSchema = z.object({
  name: z.string(),
  command: z.array(z.string()),
  roots: z.array(z.string()),
  name_pattern: z.string(),
  recover: z.enum(['on_exit', 'never']),
  /** The node its sessions start on (docs/nodes.md); absent: this host. */
  node: z.string().optional(),
});
export type LaunchProfileView = z.infer<typeof launchProfileViewSchema>;

/** A session a profile started, as the registry knows it now. */
export const managedSessionStateSchema = z.object({
  session: z.string(),
  profile: z.string(),
  session_id: z.string(),
  state: z.enum(['RUNNING', 'CLOSED', 'DIED', 'RESTARTING', 'CRASH_LOOP']),
  recover: z.enum(['on_exit', 'never']),
  restarts_last_hour: z.number(),
  max_restarts_per_hour: z.number(),
  detail: z.string().nullable(),
});
export type ManagedSessionState = z.infer<typeof managedSessionStateSchema>;
