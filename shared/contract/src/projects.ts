/** Schemas of the project intents: one call per user intent ("check", "giao task",
 * "deploy preview") over an operator-configured `project_profiles` allowlist. Field names
 * are snake_case (public MCP API); descriptions are short (the catalogue is paid in every
 * conversation). */
import { z } from 'zod';
import { projectNameSchema } from './source.js';
import { sessionStatusSchema } from './sessions.js';
import { taskReceiptSchema } from './input.js';

export const PROJECT_LIMITS = {
  /** Output of one deploy_preview command, kept from its end, after redaction. */
  commandOutputChars: 16_000,
  /** A command is stopped after this long at most (the MCP call budget is 30 s). */
  commandTimeoutSeconds: 25,
  /** A probe's default wait for its HTTP answer (config: probes[].timeout_seconds). */
  probeTimeoutMs: 2_000,
  taskChars: 12_000,
} as const;

export const commandIdSchema = z.string().regex(/^[a-z0-9._-]{1,64}$/, 'command id: 1-64 characters of a-z 0-9 . _ -');

export const projectInputShape = { project: projectNameSchema.describe('a project_profiles name') };
export const projectInputSchema = z.object(projectInputShape).strict();
export type ProjectInput = z.infer<typeof projectInputSchema>;

export const projectDispatchInputShape = {
  project: projectNameSchema,
  task: z.string().min(1).max(PROJECT_LIMITS.taskChars),
  // 60, not 128: the broker scopes it by project (`p:<project>:<key>`) within send_task's 128.
  idempotency_key: z.string().regex(/^[A-Za-z0-9._:-]{1,60}$/, 'idempotency key: 1-60 characters of A-Z a-z 0-9 . _ : -').describe('required; reuse returns the first receipt'),
  dry_run: z.boolean().optional(),
};
export const projectDispatchInputSchema = z.object(projectDispatchInputShape).strict();
export type ProjectDispatchInput = z.infer<typeof projectDispatchInputSchema>;

export const deployPreviewInputShape = { project: projectNameSchema, command_id: commandIdSchema };
export const deployPreviewInputSchema = z.object(deployPreviewInputShape).strict();
export type DeployPreviewInput = z.infer<typeof deployPreviewInputSchema>;

export const projectSessionCheckSchema = z.object({
  session: z.string(),
  exists: z.boolean(),
  read_allowed: z.boolean(),
  status: sessionStatusSchema.nullable(),
  /** The status evidence (as terminal_status gives it), when readable. */
  reason: z.string().nullable(),
  current_command: z.string().nullable(),
  error_code: z.string().nullable(),
});

export const projectGitCheckSchema = z.object({
  available: z.boolean(),
  branch: z.string().nullable(),
  upstream: z.string().nullable(),
  ahead: z.number().nullable(),
  behind: z.number().nullable(),
  dirty: z.boolean().nullable(),
  changed: z.number().nullable(),
  untracked: z.number().nullable(),
  last_commit: z.object({ commit: z.string(), subject: z.string(), date: z.string() }).nullable(),
  error_code: z.string().nullable(),
});

export const projectDeployCheckSchema = z.object({
  configured: z.boolean(),
  preview_safe: z.boolean(),
  commands: z.array(z.object({ id: z.string(), program_found: z.boolean() })),
  probes: z.array(z.object({ id: z.string(), url: z.string(), ok: z.boolean(), http_status: z.number().nullable(), error: z.string().nullable() })),
});

export const projectCheckOutputSchema = z.object({
  project: z.string(),
  target: z.object({ kind: z.enum(['binding', 'session']), name: z.string() }),
  sessions: z.array(projectSessionCheckSchema),
  binding: z.object({ name: z.string(), state: z.string().nullable(), session: z.string().nullable(), error_code: z.string().nullable() }).nullable(),
  /** The supervisor's view of this project: its watches on the profile's sessions and
   * binding, and their events nobody has acknowledged yet. */
  supervisor: z.object({
    available: z.boolean(),
    /** supervisor.enabled: watches are evaluated on output by themselves. */
    enabled: z.boolean(),
    running: z.boolean(),
    watches: z.array(z.object({ watch_key: z.string(), state: z.string(), enabled: z.boolean() })),
    unacknowledged_events: z.number().int(),
    note: z.string(),
  }),
  git: projectGitCheckSchema,
  deploy: projectDeployCheckSchema,
  /** With `nodes:` configured: how many nodes there are, how many just ran a probe
   * command through their tmux (EXECUTION_OK), and each one that did not. A node that
   * holds one of this project's sessions and is not EXECUTION_OK is also a blocker. */
  nodes: z
    .object({
      total: z.number().int(),
      execution_ok: z.number().int(),
      not_ok: z.array(z.object({ node: z.string(), transport: z.string(), execution: z.string(), reason: z.string().nullable(), hint: z.string().nullable() })),
    })
    .nullable(),
  /** Plain-word reasons the project cannot proceed now; empty when nothing blocks. */
  blockers: z.array(z.string()),
});
export type ProjectCheckOutput = z.infer<typeof projectCheckOutputSchema>;

export const projectDispatchOutputSchema = taskReceiptSchema.extend({ project: z.string() });
export type ProjectDispatchOutput = z.infer<typeof projectDispatchOutputSchema>;

export const deployPreviewOutputSchema = z.object({
  project: z.string(),
  command_id: z.string(),
  exit_code: z.number().nullable(),
  timed_out: z.boolean(),
  duration_ms: z.number(),
  /** The end of stdout and stderr interleaved, redacted. */
  output: z.string(),
  output_truncated: z.boolean(),
  redactions: z.number(),
});
export type DeployPreviewOutput = z.infer<typeof deployPreviewOutputSchema>;
