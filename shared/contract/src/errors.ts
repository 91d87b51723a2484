/**
 * The one closed set of error codes every Terminal MCP process speaks.
 *
 * Each edge (MCP tool result, HTTP status, dashboard message) maps these
 * exhaustively with a `Record<ErrorCode, ...>`, so adding a code here fails the
 * build until every edge decides what it means. Match on `code`, never on
 * `instanceof`: error classes do not survive the tRPC wire or bundle boundaries.
 */
export const ERROR_CODES = [
  'INVALID_ARGUMENT',
  'SESSION_NOT_FOUND',
  'SESSION_NOT_ALLOWED',
  'READ_DISABLED',
  'INPUT_DISABLED',
  'INPUT_NOT_ALLOWED',
  'WRITE_NOT_ALLOWED',
  'COMMAND_GUARDED',
  'FOREGROUND_NOT_ALLOWED',
  'NOT_A_CREDENTIAL_PROMPT',
  'KEY_NOT_ALLOWED',
  'CONFIRMATION_REQUIRED',
  'PANE_IN_COPY_MODE',
  'TEXT_TOO_LONG',
  'TEXT_REJECTED',
  'IDENTITY_CHANGED',
  'INPUT_LINE_NOT_EMPTY',
  'DELIVERY_UNKNOWN',
  'LEASE_BUSY',
  'BINDING_NOT_FOUND',
  'BINDING_EXISTS',
  'BINDING_LIMIT_REACHED',
  'QUOTA_EXCEEDED',
  'RESUME_TOKEN_INVALID',
  'NOTE_NOT_FOUND',
  'ATTACHMENT_TYPE_REFUSED',
  'WATCH_NOT_FOUND',
  'ACTION_CONFLICT',
  'SUPERVISOR_BLOCKED',
  'LIFECYCLE_DISABLED',
  'PROFILE_NOT_FOUND',
  'LAUNCH_NOT_ALLOWED',
  'SESSION_EXISTS',
  'NOT_FOUND',
  'PATH_NOT_ALLOWED',
  'FILE_TOO_LARGE',
  'BINARY_FILE',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'RATE_LIMITED',
  'TIMEOUT',
  'TMUX_UNAVAILABLE',
  'NODE_UNAVAILABLE',
  'STORE_UNAVAILABLE',
  'STORE_FULL',
  'AUDIT_UNAVAILABLE',
  'BROKER_UNAVAILABLE',
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}

/** How each code travels: the tRPC error code the broker throws with, the HTTP status
 * an HTTP edge answers with, and a default recovery hint a caller can act on. */
export interface ErrorSpec {
  readonly trpc:
    | 'BAD_REQUEST'
    | 'UNAUTHORIZED'
    | 'FORBIDDEN'
    | 'NOT_FOUND'
    | 'CONFLICT'
    | 'PRECONDITION_FAILED'
    | 'PAYLOAD_TOO_LARGE'
    | 'TOO_MANY_REQUESTS'
    | 'TIMEOUT'
    | 'INTERNAL_SERVER_ERROR'
    | 'SERVICE_UNAVAILABLE';
  readonly http: number;
  readonly hint: string;
}

export const ERROR_SPECS: Record<ErrorCode, ErrorSpec> = {
  INVALID_ARGUMENT: { trpc: 'BAD_REQUEST', http: 400, hint: 'Fix the named argument (the tool\'s input schema lists every argument) and call the tool again.' },
  SESSION_NOT_FOUND: { trpc: 'NOT_FOUND', http: 404, hint: 'Call terminal_list_sessions and retry with an exact name from it (names match exactly, never by prefix).' },
  SESSION_NOT_ALLOWED: { trpc: 'FORBIDDEN', http: 403, hint: 'Pick a session whose access has r in terminal_list_sessions. To open this one, the operator grants "view output" on the dashboard\'s Sessions page (http://127.0.0.1:8768/sessions by default) or adds it to allowed_session_patterns in config.yaml.' },
  READ_DISABLED: { trpc: 'FORBIDDEN', http: 403, hint: 'Reading is off on this host: the operator sets permissions.terminal_read: true in config.yaml and restarts the broker.' },
  INPUT_DISABLED: { trpc: 'FORBIDDEN', http: 403, hint: 'Input is off: the operator sets permissions.terminal_input: true in config.yaml and restarts the broker; through a binding, rebind with terminal_bind input_enabled: true. terminal_input_context shows the gates.' },
  INPUT_NOT_ALLOWED: { trpc: 'FORBIDDEN', http: 403, hint: 'The input policy refuses this session: the operator grants "send prompt" on the dashboard\'s Sessions page (http://127.0.0.1:8768/sessions by default) or adds it to input_policy.allowed_session_patterns. terminal_list_sessions shows i in a session\'s access when input is allowed.' },
  WRITE_NOT_ALLOWED: { trpc: 'FORBIDDEN', http: 403, hint: 'This connection may only read: the operator approved it without terminal:write. Reconnect the client and tick "Change notes, bindings and watches" on the consent page.' },
  COMMAND_GUARDED: { trpc: 'FORBIDDEN', http: 403, hint: 'The pane runs a guarded command (ssh, sudo, psql...): wait until it exits (terminal_wait_for_state), or the operator allows it for this session under input_policy.guarded_command_allow.' },
  FOREGROUND_NOT_ALLOWED: { trpc: 'FORBIDDEN', http: 403, hint: 'The message names what is in the pane\'s foreground and why it may not take input (a shell not at its prompt, a running command, a program not in input_policy.allowed_foreground_commands): wait (terminal_wait_for_state), use terminal_send_task, or the operator lists the program in config.yaml.' },
  NOT_A_CREDENTIAL_PROMPT: { trpc: 'FORBIDDEN', http: 403, hint: "The secret entry answers only a credential program (sudo, ssh, gpg's pinentry... by its executable, human_input.credential_programs): the pane's program shown next to the entry is not one (a shell's read, a script). Nothing was typed; answer only a prompt a real credential program shows." },
  KEY_NOT_ALLOWED: { trpc: 'BAD_REQUEST', http: 400, hint: 'Use key names listed in the terminal_send_keys description, e.g. Enter, Escape, Up, Down, C-c.' },
  CONFIRMATION_REQUIRED: { trpc: 'PRECONDITION_FAILED', http: 428, hint: 'This key interrupts the program: call again with confirm_sensitive: true if that is intended.' },
  PANE_IN_COPY_MODE: { trpc: 'CONFLICT', http: 409, hint: 'The pane is in copy mode: press q in it, or call terminal_send_keys with keys ["q"], then retry.' },
  TEXT_TOO_LONG: { trpc: 'PAYLOAD_TOO_LARGE', http: 413, hint: 'Send at most max_text_length characters (terminal_input_context shows it; input_policy.max_text_length): split the text into several calls.' },
  TEXT_REJECTED: { trpc: 'BAD_REQUEST', http: 400, hint: 'Remove control characters (ESC, a lone \\r...): only printable text, newline and tab may be sent; press keys with terminal_send_keys.' },
  IDENTITY_CHANGED: { trpc: 'CONFLICT', http: 409, hint: 'The session or pane was replaced since it was bound: check it with terminal_list_sessions, then call terminal_bind with replace: true if it is the one you mean.' },
  INPUT_LINE_NOT_EMPTY: { trpc: 'CONFLICT', http: 409, hint: 'Text already sits on the shell\'s input line (shown redacted in the message) and would be joined to yours: call again with clear_line: true to clear it with the line editor first, or find out who typed it (terminal_read_since).' },
  DELIVERY_UNKNOWN: { trpc: 'CONFLICT', http: 409, hint: 'The input may or may not have reached the pane (the message gives the audit id): look before retrying (terminal_read_since shows the pane, terminal_list_input_audit the attempt); only a retry with the same idempotency_key is safe, any other may type twice.' },
  LEASE_BUSY: { trpc: 'CONFLICT', http: 409, hint: 'Another sender is typing into this pane: call the tool again in a few seconds.' },
  BINDING_NOT_FOUND: { trpc: 'NOT_FOUND', http: 404, hint: 'Call terminal_list_bindings, or create it with terminal_bind.' },
  BINDING_EXISTS: { trpc: 'CONFLICT', http: 409, hint: 'The binding already points elsewhere: pass replace: true to remap it.' },
  BINDING_LIMIT_REACHED: { trpc: 'FORBIDDEN', http: 403, hint: 'This client holds the most bindings allowed: remove ones it no longer needs with terminal_unbind (see terminal_list_bindings), or remap one with replace: true.' },
  QUOTA_EXCEEDED: { trpc: 'FORBIDDEN', http: 403, hint: 'This client holds as much as it may (notes, attachment bytes): delete what it no longer needs (note_delete, note_remove_attachment), or the operator does on the dashboard.' },
  RESUME_TOKEN_INVALID: { trpc: 'BAD_REQUEST', http: 400, hint: 'The resume token is unknown or expired: start a new wait with terminal_wait_for_state (same session and states).' },
  NOTE_NOT_FOUND: { trpc: 'NOT_FOUND', http: 404, hint: 'Find the note id with note_search or note_list; a deleted note is brought back with note_restore.' },
  ATTACHMENT_TYPE_REFUSED: { trpc: 'BAD_REQUEST', http: 415, hint: 'Attach a PNG, JPEG, GIF or WebP image: the type is read from the bytes, not from a name or extension.' },
  WATCH_NOT_FOUND: { trpc: 'NOT_FOUND', http: 404, hint: 'Call supervisor_list_watches for the watched targets, or create the watch with supervisor_watch.' },
  ACTION_CONFLICT: { trpc: 'CONFLICT', http: 409, hint: 'The action is not in the state this call needs, or another client holds the watch\'s open action: call supervisor2_list_actions and act on its current state.' },
  SUPERVISOR_BLOCKED: { trpc: 'PRECONDITION_FAILED', http: 412, hint: 'A hard stop or stop pattern halted this watch\'s automation (see blocked_reason in supervisor2_get_policy): a human handles the pane, then resets the policy with supervisor2_set_policy.' },
  LIFECYCLE_DISABLED: { trpc: 'FORBIDDEN', http: 403, hint: 'Starting, closing and restarting sessions is off: the operator sets permissions.session_lifecycle: true in config.yaml and restarts the broker.' },
  PROFILE_NOT_FOUND: { trpc: 'NOT_FOUND', http: 404, hint: 'Use a profile name from config.yaml launch_profiles (terminal_session_start lists them in its error message).' },
  LAUNCH_NOT_ALLOWED: { trpc: 'FORBIDDEN', http: 403, hint: 'The profile does not allow this: pick a name matching its name_pattern and a cwd under its roots; only sessions a profile started can be closed or restarted (session_lifecycle.close_unmanaged allows more).' },
  SESSION_EXISTS: { trpc: 'CONFLICT', http: 409, hint: 'A session already has that name: pick another name, or close or restart that session (terminal_session_close, terminal_session_restart).' },
  NOT_FOUND: { trpc: 'NOT_FOUND', http: 404, hint: 'The named item does not exist: list what exists first (source_list_projects, source_list_files, source_list_refs, source_git_log).' },
  PATH_NOT_ALLOWED: { trpc: 'FORBIDDEN', http: 403, hint: 'Use a path inside the project from source_list_files; .git internals and protected files (.env, keys, credentials) are never readable.' },
  FILE_TOO_LARGE: { trpc: 'PAYLOAD_TOO_LARGE', http: 413, hint: 'Read a smaller range: pass start_line and end_line.' },
  BINARY_FILE: { trpc: 'BAD_REQUEST', http: 415, hint: 'The file is binary and cannot be shown as text; pick another file from source_list_files.' },
  UNAUTHENTICATED: { trpc: 'UNAUTHORIZED', http: 401, hint: 'Sign in or supply a valid token.' },
  FORBIDDEN: { trpc: 'FORBIDDEN', http: 403, hint: 'This caller may not perform this action.' },
  RATE_LIMITED: { trpc: 'TOO_MANY_REQUESTS', http: 429, hint: 'Too many attempts: wait and retry later.' },
  TIMEOUT: { trpc: 'TIMEOUT', http: 504, hint: 'The operation took too long: call again, or narrow it (fewer lines, a path, a smaller range).' },
  TMUX_UNAVAILABLE: { trpc: 'SERVICE_UNAVAILABLE', http: 503, hint: 'The tmux server is not reachable. Check that tmux is running for this user; the broker reconnects by itself.' },
  NODE_UNAVAILABLE: { trpc: 'SERVICE_UNAVAILABLE', http: 503, hint: 'That node (another host, reached over ssh) is down or not reachable now; the broker reconnects with backoff. Call terminal_node_health for its state and the fix.' },
  STORE_UNAVAILABLE: { trpc: 'SERVICE_UNAVAILABLE', http: 503, hint: 'A broker store could not be opened or written: the operator runs terminal-mcp doctor and checks the broker log. Reads of tmux may still work.' },
  STORE_FULL: { trpc: 'SERVICE_UNAVAILABLE', http: 507, hint: 'The disk holding the broker\'s state directory is full, so nothing was saved: the operator frees space there (terminal-mcp doctor names the directory); the call can then be repeated.' },
  AUDIT_UNAVAILABLE: { trpc: 'SERVICE_UNAVAILABLE', http: 503, hint: 'The audit log could not be written, so nothing was done: the operator checks the broker log and free disk space.' },
  BROKER_UNAVAILABLE: { trpc: 'SERVICE_UNAVAILABLE', http: 503, hint: 'Could not reach the broker. Start it with `npm start` or `node_modules/.bin/terminal-mcp-broker` in the checkout, or check its socket directory.' },
  INTERNAL: { trpc: 'INTERNAL_SERVER_ERROR', http: 500, hint: 'An internal error occurred. Quote the correlation id to the operator.' },
};

/** What travels in tRPC error `data.app` and in MCP `structuredContent`. */
export interface AppErrorData {
  readonly code: ErrorCode;
  readonly hint: string;
  /** Present on INTERNAL errors so an operator can find the log line. */
  readonly correlationId?: string;
  /** Present on RATE_LIMITED errors: whole seconds until a retry may succeed
   * (an HTTP edge sends it as `Retry-After`). */
  readonly retryAfterSeconds?: number;
}

/**
 * An error the broker raises on purpose. `message` is safe to show a caller: it never
 * contains pane content, paths, SQL or argv (a denied session's error says only that
 * access is denied).
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly hint: string;
  readonly retryAfterSeconds?: number;
  constructor(code: ErrorCode, message?: string, hint?: string, details?: { retryAfterSeconds?: number }) {
    super(message ?? defaultMessage(code));
    this.name = 'AppError';
    this.code = code;
    this.hint = hint ?? ERROR_SPECS[code].hint;
    if (details?.retryAfterSeconds !== undefined) this.retryAfterSeconds = details.retryAfterSeconds;
  }
}

export function defaultMessage(code: ErrorCode): string {
  return code.toLowerCase().replace(/_/g, ' ');
}

/** Reads our error data out of anything that crossed a boundary (tRPC client error,
 * plain object), by shape rather than by class. */
export function readAppErrorData(err: unknown): AppErrorData | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const candidates: unknown[] = [
    (err as { data?: { app?: unknown } }).data?.app,
    (err as { shape?: { data?: { app?: unknown } } }).shape?.data?.app,
    (err as { app?: unknown }).app,
    err,
  ];
  for (const c of candidates) {
    if (typeof c === 'object' && c !== null && isErrorCode((c as { code?: unknown }).code)) {
      const code = (c as { code: ErrorCode }).code;
      const hint = typeof (c as { hint?: unknown }).hint === 'string' ? (c as { hint: string }).hint : ERROR_SPECS[code].hint;
      const correlationId = (c as { correlationId?: unknown }).correlationId;
      const retryAfterSeconds = (c as { retryAfterSeconds?: unknown }).retryAfterSeconds;
      return {
        code,
        hint,
        ...(typeof correlationId === 'string' ? { correlationId } : {}),
        ...(typeof retryAfterSeconds === 'number' && Number.isSafeInteger(retryAfterSeconds) && retryAfterSeconds >= 0 ? { retryAfterSeconds } : {}),
      };
    }
  }
  return undefined;
}
