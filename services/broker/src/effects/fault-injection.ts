/**
 * Test-only fault injection at a process boundary. With
 * `TERMINAL_MCP_TEST_CRASH_AFTER_AUDIT=1` in the broker's environment, the broker SIGKILLs
 * itself right after an input attempt's audit row (PENDING) is committed and before
 * anything is sent, the way a power cut or OOM kill would. The end-to-end test uses it to
 * prove that such a send reaches the pane at most once and is reported DELIVERY_UNKNOWN
 * after the restart. Never set it in production: every input call would kill the broker.
 */
const CRASH_AFTER_AUDIT = process.env.TERMINAL_MCP_TEST_CRASH_AFTER_AUDIT === '1';

export function crashAfterAuditWriteIfRequested(): void {
  if (CRASH_AFTER_AUDIT) process.kill(process.pid, 'SIGKILL');
}

export function crashAfterAuditEnabled(): boolean {
  return CRASH_AFTER_AUDIT;
}
