/**
 * What the browser learns about a failure: the broker's error code plus at most a
 * retry delay, a rule text (INVALID_ARGUMENT / FORBIDDEN from the password rules) or a
 * correlation id. Turned into a sentence in the user's language by an exhaustive map, so
 * a new code in the contract fails the build until it has a message here.
 */
import type { ErrorCode } from '@terminal-mcp/contract';
import type { MessageKey, Translate } from './i18n/index.js';

export interface UiError {
  code: ErrorCode;
  retryAfterSeconds?: number;
  /** The broker's own caller-safe text, for INVALID_ARGUMENT and FORBIDDEN only. */
  detail?: string;
  correlationId?: string;
}

export const ERROR_MESSAGE_KEYS: Record<ErrorCode, MessageKey> = {
  INVALID_ARGUMENT: 'error.INVALID_ARGUMENT',
  SESSION_NOT_FOUND: 'error.SESSION_NOT_FOUND',
  SESSION_NOT_ALLOWED: 'error.SESSION_NOT_ALLOWED',
  READ_DISABLED: 'error.READ_DISABLED',
  INPUT_DISABLED: 'error.INPUT_DISABLED',
  INPUT_NOT_ALLOWED: 'error.INPUT_NOT_ALLOWED',
  WRITE_NOT_ALLOWED: 'error.WRITE_NOT_ALLOWED',
  QUOTA_EXCEEDED: 'error.QUOTA_EXCEEDED',
  COMMAND_GUARDED: 'error.COMMAND_GUARDED',
  FOREGROUND_NOT_ALLOWED: 'error.FOREGROUND_NOT_ALLOWED',
  NOT_A_CREDENTIAL_PROMPT: 'error.NOT_A_CREDENTIAL_PROMPT',
  KEY_NOT_ALLOWED: 'error.KEY_NOT_ALLOWED',
  CONFIRMATION_REQUIRED: 'error.CONFIRMATION_REQUIRED',
  PANE_IN_COPY_MODE: 'error.PANE_IN_COPY_MODE',
  TEXT_TOO_LONG: 'error.TEXT_TOO_LONG',
  TEXT_REJECTED: 'error.TEXT_REJECTED',
  IDENTITY_CHANGED: 'error.IDENTITY_CHANGED',
  INPUT_LINE_NOT_EMPTY: 'error.INPUT_LINE_NOT_EMPTY',
  DELIVERY_UNKNOWN: 'error.DELIVERY_UNKNOWN',
  LEASE_BUSY: 'error.LEASE_BUSY',
  BINDING_NOT_FOUND: 'error.BINDING_NOT_FOUND',
  BINDING_EXISTS: 'error.BINDING_EXISTS',
  // The dashboard never creates bindings; should it ever show this, the generic refusal fits.
  BINDING_LIMIT_REACHED: 'error.FORBIDDEN',
  RESUME_TOKEN_INVALID: 'error.RESUME_TOKEN_INVALID',
  NOTE_NOT_FOUND: 'error.NOTE_NOT_FOUND',
  ATTACHMENT_TYPE_REFUSED: 'error.ATTACHMENT_TYPE_REFUSED',
  WATCH_NOT_FOUND: 'error.WATCH_NOT_FOUND',
  ACTION_CONFLICT: 'error.ACTION_CONFLICT',
  SUPERVISOR_BLOCKED: 'error.SUPERVISOR_BLOCKED',
  LIFECYCLE_DISABLED: 'error.LIFECYCLE_DISABLED',
  PROFILE_NOT_FOUND: 'error.PROFILE_NOT_FOUND',
  LAUNCH_NOT_ALLOWED: 'error.LAUNCH_NOT_ALLOWED',
  SESSION_EXISTS: 'error.SESSION_EXISTS',
  NOT_FOUND: 'error.NOT_FOUND',
  PATH_NOT_ALLOWED: 'error.PATH_NOT_ALLOWED',
  FILE_TOO_LARGE: 'error.FILE_TOO_LARGE',
  BINARY_FILE: 'error.BINARY_FILE',
  UNAUTHENTICATED: 'error.UNAUTHENTICATED',
  FORBIDDEN: 'error.FORBIDDEN',
  RATE_LIMITED: 'error.RATE_LIMITED',
  TIMEOUT: 'error.TIMEOUT',
  TMUX_UNAVAILABLE: 'error.TMUX_UNAVAILABLE',
  NODE_UNAVAILABLE: 'error.NODE_UNAVAILABLE',
  STORE_UNAVAILABLE: 'error.STORE_UNAVAILABLE',
  STORE_FULL: 'error.STORE_FULL',
  AUDIT_UNAVAILABLE: 'error.AUDIT_UNAVAILABLE',
  BROKER_UNAVAILABLE: 'error.BROKER_UNAVAILABLE',
  INTERNAL: 'error.INTERNAL',
};

/** The broker's password-rule sentences (webauth/passwords.ts, change-password.ts), so a
 * Vietnamese operator reads the rule in Vietnamese. Unknown texts are shown as sent. */
const RULES: { pattern: RegExp; key: MessageKey; param?: 'min' | 'max' }[] = [
  { pattern: /at least (\d+) characters/, key: 'rule.minLength', param: 'min' },
  { pattern: /at most (\d+) characters/, key: 'rule.maxLength', param: 'max' },
  { pattern: /must not contain the user name/, key: 'rule.containsName' },
  { pattern: /user name reversed/, key: 'rule.reversedName' },
  { pattern: /too common/, key: 'rule.common' },
  { pattern: /one character repeated/, key: 'rule.repeated' },
  { pattern: /run of digits/, key: 'rule.digits' },
  { pattern: /must differ from the current/, key: 'rule.differ' },
  { pattern: /current password is wrong/, key: 'rule.currentWrong' },
];

export function translateDetail(t: Translate, detail: string | undefined): string {
  if (!detail) return '';
  for (const rule of RULES) {
    const m = rule.pattern.exec(detail);
    if (m) return t(rule.key, rule.param ? { [rule.param]: m[1] ?? '' } : undefined);
  }
  return detail;
}

export function errorMessage(t: Translate, err: UiError | undefined | null): string {
  if (!err) return '';
  const key = ERROR_MESSAGE_KEYS[err.code] ?? 'error.generic';
  return t(key, {
    detail: translateDetail(t, err.detail),
    seconds: err.retryAfterSeconds ?? 1,
    id: err.correlationId ?? '-',
  });
}
