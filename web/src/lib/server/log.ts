/** One JSON line per event on stderr (the broker and gateway log the same way). Never
 * pass tokens, passwords or pane text here. */
export function logEvent(level: 'info' | 'warn' | 'error', fields: Record<string, unknown>): void {
  process.stderr.write(`${JSON.stringify({ level, time: new Date().toISOString(), service: 'terminal-mcp-web', ...fields })}\n`);
}
