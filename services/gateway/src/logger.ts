/** JSON logs to stderr, always: on stdio, stdout IS the MCP channel, and one stray byte
 * there corrupts the protocol. Pane text is never logged — log facts (tool, code, ids,
 * durations), not content; the redact paths are a net under that rule, not the rule. */
import pino, { type Logger } from 'pino';

export type { Logger };

export function createGatewayLogger(level: string = process.env.TERMINAL_MCP_LOG_LEVEL || 'info', name = 'terminal-mcp-gateway'): Logger {
  return pino(
    {
      name,
      level,
      redact: {
        paths: ['*.text', '*.token', '*.authorization', 'text', 'token', 'authorization', 'req.headers.authorization'],
        censor: '[REDACTED]',
      },
    },
    pino.destination({ fd: 2, sync: false }),
  );
}
