/** The broker's pure policy decisions: functions of (config, facts), no I/O. */
export {
  SENSITIVE_NAME_WORDS,
  decideReadAccess,
  isSensitiveName,
  matchesAny,
  matchesGlob,
  type ReadAccessDecision,
  type ReadAccessReason,
  type ReadPolicy,
} from './access.js';
export { splitLines, stripTerminalControls, terminalControlLengthAt, trimTrailingBlankLines } from './sanitize.js';
export { SECRET_KINDS, redactSecrets, type RedactionResult, type SecretKind } from './redact.js';
export {
  RECENT_OUTPUT_SECONDS,
  SHELL_COMMANDS,
  classifyPaneStatus,
  type PaneEvidence,
  type PaneStatus,
  type PaneStatusDecision,
} from './status.js';
export {
  checkGrantRequest,
  effectiveGrant,
  grantState,
  resolveGrantExpiry,
  sameIdentity,
  type EffectiveGrant,
  type GrantExpiry,
  type GrantRecord,
  type GrantRequestRefusal,
  type GrantState,
  type SessionIdentity,
} from './grants.js';
