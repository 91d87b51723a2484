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
  'COMMAND_GUARDED',
  'KEY_NOT_ALLOWED',
  'CONFIRMATION_REQUIRED',
  'PANE_IN_COPY_MODE',
  'TEXT_TOO_LONG',
  'TEXT_REJECTED',
  'IDENTITY_CHANGED',
  'LEASE_BUSY',
  'BINDING_NOT_FOUND',
  'BINDING_EXISTS',
  'BINDING_LIMIT_REACHED',
  'RESUME_TOKEN_INVALID',
  'NOTE_NOT_FOUND',
  'ATTACHMENT_TYPE_REFUSED',
  'NOT_FOUND',
  'PATH_NOT_ALLOWED',
  'FILE_TOO_LARGE',
  'BINARY_FILE',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'RATE_LIMITED',
  'TIMEOUT',
  'TMUX_UNAVAILABLE',
  'STORE_UNAVAILABLE',
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
  INVALID_ARGUMENT: { trpc: 'BAD_REQUEST', http: 400, hint: 'Check the arguments against the tool schema and try again.' },
  SESSION_NOT_FOUND: { trpc: 'NOT_FOUND', http: 404, hint: 'Call terminal_list_sessions to see the exact session names.' },
  SESSION_NOT_ALLOWED: { trpc: 'FORBIDDEN', http: 403, hint: 'Access to this session is denied. Ask the operator to allow it.' },
  READ_DISABLED: { trpc: 'FORBIDDEN', http: 403, hint: 'Reading terminals is turned off (permissions.terminal_read). Ask the operator to enable it.' },
  INPUT_DISABLED: { trpc: 'FORBIDDEN', http: 403, hint: 'Input is turned off. Ask the operator to enable permissions.terminal_input or the binding\'s input flag.' },
  INPUT_NOT_ALLOWED: { trpc: 'FORBIDDEN', http: 403, hint: 'Input to this session is denied by the input policy. Ask the operator to allow it.' },
  COMMAND_GUARDED: { trpc: 'FORBIDDEN', http: 403, hint: 'The pane is running a guarded command (e.g. ssh, sudo). Input is refused unless the operator allows it for this session.' },
  KEY_NOT_ALLOWED: { trpc: 'BAD_REQUEST', http: 400, hint: 'Use a key from the allowlist, e.g. Enter, Escape, Up, Down, C-c.' },
  CONFIRMATION_REQUIRED: { trpc: 'PRECONDITION_FAILED', http: 428, hint: 'This key interrupts the program: call again with confirm_sensitive: true if that is intended.' },
  PANE_IN_COPY_MODE: { trpc: 'CONFLICT', http: 409, hint: 'The pane is in copy mode: press q in it, or call terminal_send_keys with keys ["q"], then retry.' },
  TEXT_TOO_LONG: { trpc: 'PAYLOAD_TOO_LARGE', http: 413, hint: 'Send a shorter text, or split it into several sends.' },
  TEXT_REJECTED: { trpc: 'BAD_REQUEST', http: 400, hint: 'Remove control characters: only printable text, newline and tab may be sent.' },
  IDENTITY_CHANGED: { trpc: 'CONFLICT', http: 409, hint: 'The session was replaced since it was resolved or bound. Re-check it with terminal_list_sessions and rebind if intended.' },
  LEASE_BUSY: { trpc: 'CONFLICT', http: 409, hint: 'Another sender is typing into this pane. Retry in a few seconds.' },
  BINDING_NOT_FOUND: { trpc: 'NOT_FOUND', http: 404, hint: 'Call terminal_list_bindings, or create it with terminal_bind.' },
  BINDING_EXISTS: { trpc: 'CONFLICT', http: 409, hint: 'The binding already points elsewhere: pass replace: true to remap it.' },
  BINDING_LIMIT_REACHED: { trpc: 'FORBIDDEN', http: 403, hint: 'This client holds the most bindings allowed: remove ones it no longer needs with terminal_unbind (see terminal_list_bindings), or remap one with replace: true.' },
  RESUME_TOKEN_INVALID: { trpc: 'BAD_REQUEST', http: 400, hint: 'The resume token is unknown or expired: start a new wait.' },
  NOTE_NOT_FOUND: { trpc: 'NOT_FOUND', http: 404, hint: 'Find the note id with note_search or note_list; a deleted note is brought back with note_restore.' },
  ATTACHMENT_TYPE_REFUSED: { trpc: 'BAD_REQUEST', http: 415, hint: 'Attach a PNG, JPEG, GIF or WebP image: the type is read from the bytes, not from a name or extension.' },
  NOT_FOUND: { trpc: 'NOT_FOUND', http: 404, hint: 'The named item does not exist. List what exists first.' },
  PATH_NOT_ALLOWED: { trpc: 'FORBIDDEN', http: 403, hint: 'That path is outside the project root or is a protected file.' },
  FILE_TOO_LARGE: { trpc: 'PAYLOAD_TOO_LARGE', http: 413, hint: 'Read a smaller line range.' },
  BINARY_FILE: { trpc: 'BAD_REQUEST', http: 415, hint: 'The file is binary and cannot be shown as text.' },
  UNAUTHENTICATED: { trpc: 'UNAUTHORIZED', http: 401, hint: 'Sign in or supply a valid token.' },
  FORBIDDEN: { trpc: 'FORBIDDEN', http: 403, hint: 'This caller may not perform this action.' },
  RATE_LIMITED: { trpc: 'TOO_MANY_REQUESTS', http: 429, hint: 'Too many attempts: wait and retry later.' },
  TIMEOUT: { trpc: 'TIMEOUT', http: 504, hint: 'The operation took too long. Retry, or narrow the request.' },
  TMUX_UNAVAILABLE: { trpc: 'SERVICE_UNAVAILABLE', http: 503, hint: 'The tmux server is not reachable. Check that tmux is running for this user; the broker reconnects by itself.' },
  STORE_UNAVAILABLE: { trpc: 'SERVICE_UNAVAILABLE', http: 503, hint: 'A broker store could not be opened. Check the broker logs and the state directory.' },
  AUDIT_UNAVAILABLE: { trpc: 'SERVICE_UNAVAILABLE', http: 503, hint: 'The audit log could not be written, so nothing was done. Check the broker logs.' },
  BROKER_UNAVAILABLE: { trpc: 'SERVICE_UNAVAILABLE', http: 503, hint: 'Could not reach the broker. Start it with `npx terminal-mcp-broker` or check its socket directory.' },
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
