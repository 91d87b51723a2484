/** config.yaml as the pure rules take it: `permissions.terminal_read` and the whitelist
 * for policy/access.ts, `permissions.terminal_input` and `input_policy` for
 * policy/input.ts. When `input_policy.allowed_session_patterns` is not set, input follows
 * the read whitelist: a session the whitelist does not admit takes input only through an
 * explicit operator input grant (a read grant alone never admits input). */
import type { ReadPolicy } from '../policy/access.js';
import type { InputPolicy } from '../policy/input.js';
import type { BrokerConfig } from './schema.js';

export function readPolicyOf(config: BrokerConfig): ReadPolicy {
  return { terminalRead: config.permissions.terminal_read, allowedPatterns: config.allowed_session_patterns };
}

export function inputPolicyOf(config: BrokerConfig): InputPolicy {
  const p = config.input_policy;
  return {
    terminalInput: config.permissions.terminal_input,
    allowSendText: p.allow_send_text,
    allowedPatterns: p.allowed_session_patterns ?? config.allowed_session_patterns,
    deniedPatterns: p.denied_session_patterns,
    maxTextLength: p.max_text_length,
    guardedCommands: p.guarded_commands,
    guardedCommandAllow: p.guarded_command_allow,
    allowedForegroundCommands: p.allowed_foreground_commands ?? null,
    runAllowedShells: p.run_allowed_shells,
    credentialPrograms: config.human_input.credential_programs,
    confirmCredentialReader: config.human_input.confirm_program,
    allowInvisibleCharacters: p.allow_invisible_characters,
  };
}
