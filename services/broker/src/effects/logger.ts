/** JSON logs to stderr (stdout may be an MCP channel in some processes). Pane content
 * and secrets are never logged: log facts (ids, lengths, codes), not text. */
import pino, { type Logger } from 'pino';

export function createLogger(level: string, name = 'terminal-mcp-broker'): Logger {
  return pino(
    {
      name,
      level,
      redact: { paths: ['*.text', '*.password', '*.token', 'text', 'password', 'token'], censor: '[REDACTED]' },
    },
    pino.destination({ fd: 2, sync: false }),
  );
}
