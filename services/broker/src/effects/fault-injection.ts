/**
 * Test-only fault injection at a process boundary. With
 * `TERMINAL_MCP_TEST_CRASH_AFTER_AUDIT=1` in the broker's environment, the broker SIGKILLs
 * itself right after an input attempt's audit row (PENDING) is committed and before
 * anything is sent, the way a power cut or OOM kill would. The end-to-end test uses it to
 * prove that such a send reaches the pane at most once and is reported DELIVERY_UNKNOWN
 * after the restart. Never set it in production: every input call would kill the broker.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const REQUESTED = process.env.TERMINAL_MCP_TEST_CRASH_AFTER_AUDIT === '1';
/** Honoured only inside a test run (vitest sets NODE_ENV=test and the test brokers inherit
 * it), so a stray variable in an MCP client's config cannot make every input call kill
 * the broker and leave misleading DELIVERY_UNKNOWN rows. */
const CRASH_AFTER_AUDIT = REQUESTED && process.env.NODE_ENV === 'test';

/** True when the variable is set but ignored because this is not a test run. */
export function crashAfterAuditIgnored(): boolean {
  return REQUESTED && !CRASH_AFTER_AUDIT;
}

export function crashAfterAuditWriteIfRequested(): void {
  if (CRASH_AFTER_AUDIT) process.kill(process.pid, 'SIGKILL');
}


/** With `TERMINAL_MCP_TEST_HANG_ON_STOP` (test runs only, like the above), the broker's
 * stop meets steps that never end: `1` one step (its own deadline passes and the stop goes
 * on), `3` three in a row (the whole stop overruns its deadline: a forced exit), `block`
 * one that blocks the event loop for good (only the watchdog thread ends it). The
 * end-to-end tests use them to prove that SIGTERM always ends the broker within 5 s. */
export function stopFaultRequested(): { hangingSteps: number; blocksLoop: boolean } | undefined {
  if (process.env.NODE_ENV !== 'test') return undefined;
  const value = process.env.TERMINAL_MCP_TEST_HANG_ON_STOP;
  if (value === 'block') return { hangingSteps: 0, blocksLoop: true };
  if (value === '1' || value === '3') return { hangingSteps: Number(value), blocksLoop: false };
  return undefined;
}

/** With `TERMINAL_MCP_TEST_HOLD_START=<file>` (test runs only, like the above), the broker
 * waits, once its sockets listen and before it loads and builds the rest, until that file
 * exists: the end-to-end test uses it to hold a start open for as long as it needs to
 * prove that clients connecting meanwhile are held, not refused (effects/early-sockets.ts). */
export async function holdStartIfRequested(): Promise<void> {
  const path = process.env.TERMINAL_MCP_TEST_HOLD_START;
  if (path === undefined || path === '' || process.env.NODE_ENV !== 'test') return;
  while (!existsSync(path)) await new Promise((r) => setTimeout(r, 20));
}

/** With `TERMINAL_MCP_TEST_HOLD_NODE_RUN=<dir>` (test runs only, like the above), a
 * terminal_run on a node stops at `stage` (before its run channel is made on the node, or
 * right after its line was typed), writes `<dir>/<stage>.reached` and waits until
 * `<dir>/<stage>.go` exists: the end-to-end test cuts the node's link (kills its sshd)
 * there, to prove what the caller is told for a link cut before and after typing. */
export async function holdNodeRunIfRequested(stage: 'before-open' | 'after-typed'): Promise<void> {
  const dir = process.env.TERMINAL_MCP_TEST_HOLD_NODE_RUN;
  if (dir === undefined || dir === '' || process.env.NODE_ENV !== 'test') return;
  writeFileSync(join(dir, `${stage}.reached`), '');
  while (!existsSync(join(dir, `${stage}.go`))) await new Promise((r) => setTimeout(r, 20));
}
