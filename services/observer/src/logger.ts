/** JSON logs to stderr. Tokens, codes, passwords and pane or file text are never logged:
 * log facts (endpoint, client id, user, error code, durations); the redact paths are a
 * net under that rule, not the rule. */
import pino, { type Logger } from 'pino';

export type { Logger };

export function createObserverLogger(level: string = process.env.TERMINAL_MCP_LOG_LEVEL || 'info'): Logger {
  return pino(
    {
      name: 'terminal-mcp-observer',
      level,
      redact: {
        paths: ['*.text', '*.token', '*.password', '*.code', '*.authorization', 'text', 'token', 'password', 'authorization', 'req.headers.authorization', 'req.headers.cookie'],
        censor: '[REDACTED]',
      },
    },
    pino.destination({ fd: 2, sync: false }),
  );
}
