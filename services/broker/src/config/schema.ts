/**
 * config.yaml: the operator's policy. Keys are compatible with the original Python
 * Terminal MCP, so existing files keep working. Pure: no I/O here (reading the file is
 * an effect, see effects/config-file.ts).
 */
import { z } from 'zod';
import { DEFAULT_RUN_SHELLS, gatewayToolsetsConfigSchema, NOTE_LIMITS, PROJECT_LIMITS, RUN_SHELLS, type RunShell } from '@terminal-mcp/contract';
import { DEFAULT_CREDENTIAL_PROGRAMS } from '../policy/credential-reader.js';
import { DEFAULT_GUARDED_COMMANDS } from '../policy/input.js';
import { launchProfileSchema } from './launch-profile-schema.js';
import { nodesSchema } from './nodes-schema.js';

const pattern = z.string().min(1).max(256);

export const permissionsSchema = z
  .object({
    terminal_read: z.boolean().default(true),
    terminal_input: z.boolean().default(false),
    /** Start, close, restart and resize sessions from launch_profiles (off by default). */
    session_lifecycle: z.boolean().default(false),
  })
  .strict();

/** Project directories whose sources the observer (and gateway) may read, read-only.
 * Each path must be the top level of a git work tree; callers see only `name`. */
export const sourceRootSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9._-]{1,64}$/, 'name: 1-64 characters of a-z 0-9 . _ -'),
    path: z
      .string()
      .min(2)
      .max(4096)
      .refine((p) => p.startsWith('/') && !p.includes('\0'), 'path must be absolute'),
  })
  .strict();

/** The observer's OAuth authorization server. Redirect URIs a client may register are
 * the exact URIs listed here (claude.ai's callbacks by default) plus, when
 * `allow_loopback_redirect_uris` is on, `http://127.0.0.1:<any port>/...`,
 * `http://localhost:<any port>/...` and `http://[::1]:<any port>/...` for local clients
 * (RFC 8252). Lifetimes are configurable so tests can expire tokens quickly. Optional in
 * the parsed config: `oauthSettings()` in oauth/policy.ts fills the defaults. */
export const observerOAuthSchema = z
  .object({
    redirect_uri_allowlist: z
      .array(
        z
          .string()
          .max(2048)
          .refine((u) => /^https:\/\/[^\s#]+$/.test(u), 'redirect URIs must be absolute https URIs without a fragment'),
      )
      .max(100)
      .default(['https://claude.ai/api/mcp/auth_callback', 'https://claude.com/api/mcp/auth_callback']),
    allow_loopback_redirect_uris: z.boolean().default(true),
    authorization_code_ttl_seconds: z.number().int().min(1).max(600).default(60),
    access_token_ttl_seconds: z.number().int().min(1).max(24 * 3600).default(3600),
    refresh_token_ttl_seconds: z.number().int().min(1).max(365 * 24 * 3600).default(30 * 24 * 3600),
  })
  .strict();

const redirectAllowlist = (defaults: string[]) =>
  z
    .array(
      z
        .string()
        .max(2048)
        .refine((u) => /^https:\/\/[^\s#]+$/.test(u), 'redirect URIs must be absolute https URIs without a fragment'),
    )
    .max(100)
    .default(defaults);

/** The gateway's OAuth authorization server (on when TERMINAL_MCP_GATEWAY_PUBLIC_URL is
 * set): like the observer's, with ChatGPT's connector callbacks allowed by default —
 * the exact `https://chatgpt.com/connector_platform_oauth_redirect` and, with
 * `allow_chatgpt_connector_redirects`, `https://chatgpt.com/connector/oauth/<one path
 * segment>` (see policy/oauth-redirects.ts). */
export const gatewayOAuthSchema = z
  .object({
    redirect_uri_allowlist: redirectAllowlist(['https://chatgpt.com/connector_platform_oauth_redirect']),
    allow_chatgpt_connector_redirects: z.boolean().default(true),
    allow_loopback_redirect_uris: z.boolean().default(true),
    authorization_code_ttl_seconds: z.number().int().min(1).max(600).default(60),
    access_token_ttl_seconds: z.number().int().min(1).max(24 * 3600).default(3600),
    refresh_token_ttl_seconds: z.number().int().min(1).max(365 * 24 * 3600).default(30 * 24 * 3600),
  })
  .strict();

/** `toolsets`: which tool families each kind of caller (or one OAuth client) is served;
 * the gateway asks for it (catalogue.toolsets) and lists only those tools (docs/tools.md). */
export const gatewaySchema = z
  .object({
    oauth: gatewayOAuthSchema.optional(),
    toolsets: gatewayToolsetsConfigSchema.default(() => gatewayToolsetsConfigSchema.parse({})),
  })
  .strict();

export const observerSchema = z
  .object({
    source_roots: z
      .array(sourceRootSchema)
      .max(100)
      .default([])
      .refine((roots) => new Set(roots.map((r) => r.name)).size === roots.length, 'source_roots names must be unique'),
    oauth: observerOAuthSchema.optional(),
    /** A source search (git grep) is stopped after this long and answers TIMEOUT. */
    search_timeout_ms: z.number().int().min(100).max(60_000).default(10_000),
  })
  .strict();

/** Who may receive input, on top of `permissions.terminal_input` (the master switch; see
 * policy/input.ts for the gates in order). Input also needs the session to be readable.
 * Deny wins; a sensitive name needs a literal entry in allowed_session_patterns; a pane
 * running a guarded command takes input only where guarded_command_allow names that
 * exact session and command. */
export const inputPolicySchema = z
  .object({
    /** Unset: the read whitelist (top-level allowed_session_patterns). */
    allowed_session_patterns: z.array(pattern).max(500).optional(),
    denied_session_patterns: z.array(pattern).max(500).default([]),
    allow_send_text: z.boolean().default(true),
    max_text_length: z.number().int().min(1).max(32_000).default(12_000),
    /** Bidirectional overrides and zero-width characters in sent text (policy/input.ts):
     * refused unless true. */
    allow_invisible_characters: z.boolean().default(false),
    guarded_commands: z.array(z.string().min(1).max(64)).max(200).default([...DEFAULT_GUARDED_COMMANDS]),
    guarded_command_allow: z
      .array(
        z
          .object({
            session: z.string().min(1).max(256).describe('exact session name (no patterns)'),
            commands: z.array(z.string().min(1).max(64)).min(1).max(100),
          })
          .strict(),
      )
      .max(200)
      .default([]),
    /** Unset: input goes to whatever program holds the pane. Set: only to these foreground
     * programs (by executable or kernel command name, e.g. claude, codex, node, python3),
     * never to an unlisted shell — input into a shell is operator-level access. */
    allowed_foreground_commands: z.array(z.string().min(1).max(64)).max(200).optional(),
    /** terminal_run types only into these shells (the pane's foreground program). POSIX
     * shells only: fish quotes and reports status differently and is refused by name. */
    run_allowed_shells: z
      .array(
        z.string().refine((s): s is RunShell => (RUN_SHELLS as readonly string[]).includes(s), {
          message: `terminal_run supports only ${RUN_SHELLS.join(', ')} (fish and other shells quote and report the exit status differently)`,
        }),
      )
      .max(RUN_SHELLS.length)
      .default([...DEFAULT_RUN_SHELLS]),
    /** Review mode (input/review-queue.ts): an MCP client's input that needs review is
     * queued until an operator approves it on the dashboard. off: never; risky: text or
     * keys the review rules call risky (policy/review.ts); always: every send. */
    review: z.enum(['off', 'risky', 'always']).default('off'),
    /** Sessions whose input is always reviewed, whatever `review` says. */
    review_always_session_patterns: z.array(pattern).max(500).default([]),
    /** A queued input nobody decided on in this time expires and is never sent. */
    review_timeout_seconds: z.number().int().min(10).max(86_400).default(900),
  })
  .strict();

/** How long audit.db keeps input attempts (input_audit) and read records (read_audit).
 * Each table is pruned on its own to at most `max_rows` rows and nothing older than
 * `max_age_days`, at broker start and every `prune_interval_minutes`; every prune is itself
 * recorded (audit_prunes, actor `broker:retention`). Attempts still PENDING are kept. */
export const auditRetentionSchema = z
  .object({
    max_age_days: z.number().int().min(1).max(3650).default(90),
    max_rows: z.number().int().min(100).max(10_000_000).default(100_000),
    prune_interval_minutes: z.number().int().min(1).max(24 * 60).default(60),
  })
  .strict();

export const auditSchema = z
  .object({
    retention: auditRetentionSchema.default(() => auditRetentionSchema.parse({})),
  })
  .strict();

/** The notes store. `attachment_source_roots`: host directories note_add_attachment may
 * read an image from by path (resolved with realpath, symlinks may not lead out). Empty
 * (the default): reading host files is refused and images come in band only. */
export const notesSchema = z
  .object({
    attachment_source_roots: z
      .array(
        z
          .string()
          .min(2)
          .max(4096)
          .refine((p) => p.startsWith('/') && !p.includes('\0'), 'path must be absolute'),
      )
      .max(20)
      .default([]),
    /** Decoded bytes of one image (tool or dashboard upload); at most the contract's
     * ceiling, for which the sockets' request caps are sized. */
    max_attachment_bytes: z.number().int().min(1024).max(NOTE_LIMITS.attachmentBytes).default(NOTE_LIMITS.attachmentBytes),
  })
  .strict();

/** The session registry (registry.db). `protected_sessions`: exact names that
 * `terminal-mcp-registry cleanup` never tombstones (e.g. the control session). The
 * registry follows tmux's session notifications; every `reconcile_interval_seconds` a
 * pass also records the last redacted screen of readable sessions. */
export const sessionLifecycleSchema = z
  .object({
    protected_sessions: z.array(z.string().min(1).max(256)).max(500).default([]),
    reconcile_interval_seconds: z.number().int().min(5).max(3600).default(60),
    /** terminal_session_close/restart act only on sessions a launch profile started,
     * unless this is on (then any session the input policy allows). */
    close_unmanaged: z.boolean().default(false),
  })
  .strict();

const loopbackUrl = z
  .string()
  .max(2048)
  .refine((u) => {
    try {
      const url = new URL(u);
      return (url.protocol === 'http:' || url.protocol === 'https:') && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
    } catch {
      return false;
    }
  }, 'probe url: http(s) on 127.0.0.1, localhost or [::1] only');

/** A deploy preview: fixed commands (argv lists run without a shell, in the repo's
 * directory) and loopback probe URLs. Nothing runs unless `preview_safe` is true. */
export const deployPreviewProfileSchema = z
  .object({
    preview_safe: z.boolean().default(false),
    commands: z
      .array(
        z
          .object({
            id: z.string().regex(/^[a-z0-9._-]{1,64}$/, 'command id: 1-64 characters of a-z 0-9 . _ -'),
            argv: z.array(z.string().min(1).max(4096).refine((a) => !a.includes('\0'), 'no NUL')).min(1).max(64),
            timeout_seconds: z.number().int().min(1).max(25).default(20),
          })
          .strict(),
      )
      .max(20)
      .default([])
      .refine((c) => new Set(c.map((x) => x.id)).size === c.length, 'command ids must be unique'),
    probes: z
      .array(
        z
          .object({
            id: z.string().regex(/^[a-z0-9._-]{1,64}$/),
            url: loopbackUrl,
            // How long project_check waits for the answer; within the MCP call budget.
            timeout_seconds: z.number().int().min(1).max(25).default(PROJECT_LIMITS.probeTimeoutMs / 1000),
          })
          .strict(),
      )
      .max(10)
      .default([]),
  })
  .strict();

/** One project the intents (project_check, project_dispatch, deploy_preview) may act on:
 * its repository is an observer.source_roots entry, its agents are named sessions and/or
 * a binding (dispatch goes to the binding when set, else the first session). */
export const projectProfileSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9._-]{1,64}$/, 'name: 1-64 characters of a-z 0-9 . _ -'),
    repo: z.string().regex(/^[a-z0-9._-]{1,64}$/).describe('an observer.source_roots name'),
    sessions: z.array(z.string().min(1).max(256)).max(10).default([]),
    binding: z.string().regex(/^[a-z0-9._-]{1,64}$/).optional(),
    deploy_preview: deployPreviewProfileSchema.optional(),
  })
  .strict()
  .refine((p) => p.sessions.length > 0 || p.binding !== undefined, 'a project profile needs sessions or a binding');

/** The supervisor (services/broker/src/supervisor/): watches evaluated on pane output and a
 * slow timer. `enabled` gates only that automatic evaluation; the tools and
 * supervisor_run_once work either way. `v2_enabled` is the second gate of
 * supervisor2_execute_send (the watch's own policy is the first). */
export const supervisorNotifySchema = z
  .object({
    /** A plain JSON POST of every event (redacted), e.g. an ntfy or Slack webhook. */
    url: z.string().url().max(2000).optional(),
    timeout_seconds: z.number().int().min(1).max(60).default(5),
    retries: z.number().int().min(0).max(5).default(2),
  })
  .strict();

/** A completion verifier the operator allows (supervisor/verify.ts): the worktree it
 * checks and the literal argv it may run there, without a shell. A client names a
 * profile by id (supervisor_set_verifier_policy) and chooses nothing else: no client ever
 * supplies a command line or a directory (effects/processes.ts lists every process). */
export const verifierProfileSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9._-]{1,64}$/, 'verifier profile id: 1-64 characters of a-z 0-9 . _ -'),
    worktree: z
      .string()
      .min(2)
      .max(4096)
      .refine((p) => p.startsWith('/') && !p.includes('\0'), 'worktree must be an absolute path (the root of a git worktree)'),
    require_git_clean: z.boolean().default(true),
    test_command: z.array(z.string().min(1).max(4096).refine((a) => !a.includes('\0'), 'no NUL')).min(1).max(64).optional(),
    timeout_seconds: z.number().int().min(1).max(3600).default(300),
  })
  .strict();

/** Parking agents at a usage limit (supervisor/limit-parks.ts): off unless enabled, and
 * then only for watches whose target matches `session_patterns` or whose key is listed in
 * `watch_keys`. At the reset plus a random 0..`extra_delay_seconds`, `resume_text` is typed
 * through the guarded, audited input path, once per park. */
export const resumeAfterLimitSchema = z
  .object({
    enabled: z.boolean().default(false),
    session_patterns: z.array(pattern).max(100).default([]),
    watch_keys: z.array(z.string().min(1).max(200)).max(100).default([]),
    resume_text: z.string().min(1).max(200).refine((t) => !/[\r\n\0]/.test(t), 'one line').default('continue'),
    extra_delay_seconds: z.number().int().min(0).max(900).default(60),
  })
  .strict();

export const supervisorSchema = z
  .object({
    enabled: z.boolean().default(false),
    v2_enabled: z.boolean().default(false),
    poll_interval_seconds: z.number().int().min(5).max(3600).default(20),
    idle_threshold_seconds: z.number().int().min(1).max(86_400).default(45),
    max_iterations: z.number().int().min(1).max(1_000_000).default(20),
    same_failure_limit: z.number().int().min(1).max(1000).default(2),
    event_retention: z.number().int().min(10).max(1_000_000).default(500),
    watched_session_patterns: z.array(pattern).max(100).default([]),
    watched_bindings: z.array(z.string().regex(/^[a-z0-9._-]{1,64}$/)).max(100).default([]),
    notify: supervisorNotifySchema.default(() => supervisorNotifySchema.parse({})),
    resume_after_limit: resumeAfterLimitSchema.default(() => resumeAfterLimitSchema.parse({})),
    verifier_profiles: z
      .array(verifierProfileSchema)
      .max(50)
      .default([])
      .refine((ps) => new Set(ps.map((p) => p.id)).size === ps.length, 'verifier_profiles ids must be unique'),
  })
  .strict();

/** Where notices for a person go besides the dashboard (attention/center.ts; queued by
 * attention/notice-outbox.ts, sent by the notifier process): each channel a URL, a payload
 * format, which notices and how many a minute. */
export const notificationChannelSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9._-]{1,40}$/),
    url: z.string().url().max(2000),
    /** `json`: the notice as a JSON POST (a generic webhook); `ntfy`: the message as the
     * body with Title, Priority and Tags headers (ntfy.sh and compatible push servers). */
    format: z.enum(['json', 'ntfy']).default('json'),
    /** Only these kinds of notice (default: every kind). */
    kinds: z.array(z.enum(['waiting_for_input', 'waiting_for_human', 'approval_needed', 'session_died', 'supervisor_event', 'agent_message'])).max(6).optional(),
    /** Only notices at this level or above. */
    min_level: z.enum(['info', 'warning', 'urgent']).default('info'),
    /** At most this many deliveries a minute; the rest are dropped (and audited so). */
    per_minute: z.number().int().min(1).max(120).default(10),
    timeout_seconds: z.number().int().min(1).max(60).default(5),
  })
  .strict();

/** The dashboard's secret entry (policy/credential-reader.ts): the programs whose password,
 * passphrase or PIN prompt the operator may answer, by executable basename (a trailing
 * `*` matches any suffix). A shell or interpreter is never one, whatever this lists. */
export const humanInputSchema = z
  .object({
    credential_programs: z
      .array(z.string().regex(/^[A-Za-z0-9._+-]{1,63}\*?$/, 'a program name (basename), optionally ending in *'))
      .max(200)
      .default([...DEFAULT_CREDENTIAL_PROGRAMS]),
    /** The dashboard shows which program (path, pid, user) reads the answer and the
     * operator confirms it; the broker types only into the confirmed process. */
    confirm_program: z.boolean().default(false),
  })
  .strict();

export const notificationsSchema = z
  .object({
    channels: z
      .array(notificationChannelSchema)
      .max(10)
      .default([])
      .refine((cs) => new Set(cs.map((c) => c.name)).size === cs.length, 'notifications.channels names must be unique')
      // The notifier's deliveries to the supervisor webhook go by this name (attention/notice-outbox.ts).
      .refine((cs) => cs.every((c) => c.name !== 'supervisor.notify'), 'notifications.channels: the name supervisor.notify is reserved for the supervisor webhook'),
    /** notify_user: at most this many notices per MCP client a minute. */
    agent_per_minute: z.number().int().min(1).max(60).default(5),
  })
  .strict();

/** Session transcripts (effects/transcripts/): each readable session's output, redacted
 * line by line before it is written, as asciicast v2 segment files under the state dir. */
export const transcriptsSchema = z
  .object({
    /** On by default: recording goes through tmux's own pipe-pane, which attaches no
     * client to the user's server (docs/transcripts.md has the crash table that allowed
     * this). `false` records nothing (no cursors, no replay of gone sessions, no export). */
    enabled: z.boolean().default(true),
    /** A segment file is closed and a new one started past this many bytes of events. */
    segment_bytes: z.number().int().min(4096).max(64 * 1024 * 1024).default(1024 * 1024),
    /** Per recorded session: the oldest segments are deleted past this total. */
    max_bytes_per_session: z.number().int().min(4096).max(1024 * 1024 * 1024).default(8 * 1024 * 1024),
    /** Every transcript together: past it, the transcripts of gone sessions go first
     * (longest gone first), then the oldest segments of live ones. */
    max_total_bytes: z.number().int().min(64 * 1024).max(1024 * 1024 * 1024 * 1024).default(256 * 1024 * 1024),
    /** Transcripts of sessions that are gone are deleted this many days after they ended. */
    retention_days: z.number().int().min(0).max(3650).default(14),
  })
  .strict()
  .refine((t) => t.segment_bytes <= t.max_bytes_per_session, { message: 'segment_bytes must not exceed max_bytes_per_session', path: ['segment_bytes'] })
  .refine((t) => t.max_bytes_per_session <= t.max_total_bytes, { message: 'max_bytes_per_session must not exceed max_total_bytes', path: ['max_bytes_per_session'] });

/** Known-secret fingerprints (docs/redaction.md): the host's credential files are
 * indexed as keyed hashes, and output holding 16+ characters of one is redacted. */
export const knownSecretsSchema = z
  .object({
    enabled: z.boolean().default(true),
    /** More files to index (absolute paths), besides the home directory's credential
     * files and the `.env*` files of each observer.source_roots project. */
    files: z.array(z.string().min(1).max(4096).startsWith('/')).max(200).default([]),
    refresh_seconds: z.number().int().min(1).max(3600).default(10),
  })
  .strict();

export const configSchema = z
  .object({
    permissions: permissionsSchema.default({ terminal_read: true, terminal_input: false, session_lifecycle: false }),
    allowed_session_patterns: z.array(pattern).max(500).default(['claude-*', 'codex-*', 'agent-*', 'test-*']),
    max_capture_lines: z.number().int().min(1).max(50_000).default(2000),
    default_tail_lines: z.number().int().min(1).max(10_000).default(200),
    log_level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    observer: observerSchema.default(() => observerSchema.parse({})),
    gateway: gatewaySchema.default(() => gatewaySchema.parse({})),
    input_policy: inputPolicySchema.default(() => inputPolicySchema.parse({})),
    audit: auditSchema.default(() => auditSchema.parse({})),
    notes: notesSchema.default(() => notesSchema.parse({})),
    session_lifecycle: sessionLifecycleSchema.default(() => sessionLifecycleSchema.parse({})),
    launch_profiles: z
      .array(launchProfileSchema)
      .max(50)
      .default([])
      .refine((ps) => new Set(ps.map((p) => p.name)).size === ps.length, 'launch_profiles names must be unique'),
    project_profiles: z
      .array(projectProfileSchema)
      .max(50)
      .default([])
      .refine((ps) => new Set(ps.map((p) => p.name)).size === ps.length, 'project_profiles names must be unique'),
    supervisor: supervisorSchema.default(() => supervisorSchema.parse({})),
    transcripts: transcriptsSchema.default(() => transcriptsSchema.parse({})),
    notifications: notificationsSchema.default(() => notificationsSchema.parse({})),
    human_input: humanInputSchema.default(() => humanInputSchema.parse({})),
    known_secrets: knownSecretsSchema.default(() => knownSecretsSchema.parse({})),
    /** Other hosts reached over OpenSSH (config/nodes-schema.ts). */
    nodes: nodesSchema,
  })
  .strict()
  .refine((c) => c.project_profiles.every((p) => c.observer.source_roots.some((r) => r.name === p.repo)), {
    message: 'every project_profiles repo must name an observer.source_roots entry',
    path: ['project_profiles'],
  })
  .refine((c) => c.launch_profiles.every((p) => p.node === undefined || c.nodes.some((n) => n.name === p.node)), {
    message: 'every launch_profiles node must name a configured node (nodes:)',
    path: ['launch_profiles'],
  })
  .refine((c) => c.default_tail_lines <= c.max_capture_lines, {
    message: 'default_tail_lines must not exceed max_capture_lines',
    path: ['default_tail_lines'],
  });

export type BrokerConfig = z.output<typeof configSchema>;

export const DEFAULT_CONFIG: BrokerConfig = configSchema.parse({});
