/**
 * Broker failures become MCP tool results here, and only here, for every MCP edge (the
 * gateway and the observer). Tool failures are `isError: true` results (never thrown: a
 * thrown message reaches the model verbatim, unvetted). The table below decides, for
 * every code, what a model may see and how loud the log line is; adding a code to the
 * contract fails the build until it is decided.
 */
import { randomUUID } from 'node:crypto';
import { describeBrokerFailure, type BrokerFailure } from '@terminal-mcp/broker-client';
import { ERROR_SPECS, type ErrorCode } from '@terminal-mcp/contract';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export interface ErrorPresentation {
  /**
   * `message`: the broker's message is shown (the broker promises it carries no pane
   * content, path, SQL or argv). `generic`: the model sees a fixed text plus the
   * correlation id; the details stay in the logs.
   */
  disclose: 'message' | 'generic';
  /**
   * `refusal`: the broker answered and said no — normal operation.
   * `unavailable`: something the broker needs (or the broker itself) is down.
   * `fault`: a bug; an operator should look.
   */
  kind: 'refusal' | 'unavailable' | 'fault';
}

const REFUSAL: ErrorPresentation = { disclose: 'message', kind: 'refusal' };
const UNAVAILABLE: ErrorPresentation = { disclose: 'message', kind: 'unavailable' };

export const ERROR_PRESENTATION: Record<ErrorCode, ErrorPresentation> = {
  INVALID_ARGUMENT: REFUSAL,
  SESSION_NOT_FOUND: REFUSAL,
  SESSION_NOT_ALLOWED: REFUSAL,
  READ_DISABLED: REFUSAL,
  INPUT_DISABLED: REFUSAL,
  INPUT_NOT_ALLOWED: REFUSAL,
  WRITE_NOT_ALLOWED: REFUSAL,
  QUOTA_EXCEEDED: REFUSAL,
  COMMAND_GUARDED: REFUSAL,
  FOREGROUND_NOT_ALLOWED: REFUSAL,
  NOT_A_CREDENTIAL_PROMPT: REFUSAL,
  KEY_NOT_ALLOWED: REFUSAL,
  CONFIRMATION_REQUIRED: REFUSAL,
  PANE_IN_COPY_MODE: REFUSAL,
  TEXT_TOO_LONG: REFUSAL,
  TEXT_REJECTED: REFUSAL,
  IDENTITY_CHANGED: REFUSAL,
  INPUT_LINE_NOT_EMPTY: REFUSAL,
  // The broker (or the gateway, for a call cut after it was sent) says exactly this.
  DELIVERY_UNKNOWN: UNAVAILABLE,
  LEASE_BUSY: REFUSAL,
  BINDING_NOT_FOUND: REFUSAL,
  BINDING_EXISTS: REFUSAL,
  BINDING_LIMIT_REACHED: REFUSAL,
  RESUME_TOKEN_INVALID: REFUSAL,
  NOTE_NOT_FOUND: REFUSAL,
  ATTACHMENT_TYPE_REFUSED: REFUSAL,
  WATCH_NOT_FOUND: REFUSAL,
  ACTION_CONFLICT: REFUSAL,
  SUPERVISOR_BLOCKED: REFUSAL,
  LIFECYCLE_DISABLED: REFUSAL,
  PROFILE_NOT_FOUND: REFUSAL,
  LAUNCH_NOT_ALLOWED: REFUSAL,
  SESSION_EXISTS: REFUSAL,
  NOT_FOUND: REFUSAL,
  PATH_NOT_ALLOWED: REFUSAL,
  FILE_TOO_LARGE: REFUSAL,
  BINARY_FILE: REFUSAL,
  UNAUTHENTICATED: REFUSAL,
  FORBIDDEN: REFUSAL,
  RATE_LIMITED: REFUSAL,
  TIMEOUT: UNAVAILABLE,
  TMUX_UNAVAILABLE: UNAVAILABLE,
  NODE_UNAVAILABLE: UNAVAILABLE,
  STORE_UNAVAILABLE: UNAVAILABLE,
  STORE_FULL: UNAVAILABLE,
  AUDIT_UNAVAILABLE: UNAVAILABLE,
  // Not the broker saying no: the service could not reach it at all.
  BROKER_UNAVAILABLE: UNAVAILABLE,
  INTERNAL: { disclose: 'generic', kind: 'fault' },
};

/**
 * Where an error result carries its machine-readable details: `_meta`, NOT
 * `structuredContent`. Every tool of ours declares an `outputSchema`, and the MCP SDK
 * client (1.32.2) validates `structuredContent` against it even on `isError` results:
 * an error object there turns the answer into a protocol error (-32602) and the model
 * never sees the hint. The text content carries the same facts for the model.
 */
export const ERROR_META_KEY = 'terminal-mcp/error';

/** The machine-readable error, under `_meta[ERROR_META_KEY]`. */
export interface ToolErrorContent {
  [key: string]: unknown;
  error_code: ErrorCode;
  message: string;
  hint: string;
  correlation_id?: string;
}

export type ToolErrorResult = CallToolResult & { isError: true; _meta: { [ERROR_META_KEY]: ToolErrorContent } };

const MAX_MESSAGE_CHARS = 300;

/** Defence in depth: the broker's messages are meant to be short single lines; keep
 * them so even if one is not. */
function oneLine(text: string): string {
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  return flat.length > MAX_MESSAGE_CHARS ? `${flat.slice(0, MAX_MESSAGE_CHARS - 3)}...` : flat;
}

function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** Builds the result a model sees for a failure whose code is already known. */
export function toolErrorResult(failure: BrokerFailure): ToolErrorResult {
  const code = failure.code;
  const presentation = ERROR_PRESENTATION[code];
  const hint = oneLine(failure.hint || ERROR_SPECS[code].hint);
  const correlationId = failure.correlationId;
  const message =
    presentation.disclose === 'generic'
      ? `internal error${correlationId ? ` (correlation id ${correlationId})` : ''}`
      : oneLine(failure.message) || code.toLowerCase().replace(/_/g, ' ');
  const structured: ToolErrorContent = { error_code: code, message, hint };
  if (correlationId) structured.correlation_id = correlationId;
  return {
    isError: true,
    content: [{ type: 'text', text: `${code}: ${sentence(message)} Hint: ${hint}` }],
    _meta: { [ERROR_META_KEY]: structured },
  };
}

export interface DescribedFailure {
  failure: BrokerFailure;
  presentation: ErrorPresentation;
}

/**
 * Classifies anything a broker call threw. INTERNAL failures always leave here with a
 * correlation id: the broker's own when it sent one, otherwise a fresh one the caller
 * must log next to the real error.
 */
export function describeToolFailure(err: unknown): DescribedFailure {
  const failure = describeBrokerFailure(err);
  if (failure.code === 'INTERNAL' && !failure.correlationId) failure.correlationId = randomUUID();
  return { failure, presentation: ERROR_PRESENTATION[failure.code] };
}

/** An input tool's call whose answer was lost after the broker got it: the input may or
 * may not have been typed (its audit row says which, once the broker wrote it). */
export function deliveryUnknownFailure(why: string): DescribedFailure {
  const failure: BrokerFailure = {
    code: 'DELIVERY_UNKNOWN',
    message: `${why}: the input may or may not have reached the pane; its audit row is the newest of this client in terminal_list_input_audit`,
    hint: ERROR_SPECS.DELIVERY_UNKNOWN.hint,
  };
  return { failure, presentation: ERROR_PRESENTATION.DELIVERY_UNKNOWN };
}

/** A call that ran out of its time budget or was cancelled by the client: no broker
 * answer to describe, so the failure is built here. */
export function timeoutFailure(message: string): DescribedFailure {
  const failure: BrokerFailure = { code: 'TIMEOUT', message, hint: ERROR_SPECS.TIMEOUT.hint };
  return { failure, presentation: ERROR_PRESENTATION.TIMEOUT };
}
