/** The read gate: turns the pure access decision into an error that says only that
 * access is denied — never anything about the session's content. */
import { AppError } from '@terminal-mcp/contract';
import type { BrokerConfig } from '../config/schema.js';
import { decideReadAccess } from '../policy/access.js';

export function readPolicy(config: BrokerConfig) {
  return { terminalRead: config.permissions.terminal_read, allowedPatterns: config.allowed_session_patterns };
}

export function canRead(config: BrokerConfig, name: string): boolean {
  return decideReadAccess(readPolicy(config), name).allowed;
}

export function assertCanRead(config: BrokerConfig, name: string): void {
  const decision = decideReadAccess(readPolicy(config), name);
  if (decision.allowed) return;
  if (decision.reason === 'READ_DISABLED') throw new AppError('READ_DISABLED', 'reading terminals is turned off');
  throw new AppError('SESSION_NOT_ALLOWED', 'access to this session is denied');
}
