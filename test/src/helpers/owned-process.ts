/**
 * Signals for processes a test did not spawn itself (a broker the stdio launcher started in
 * the background, a pid read from a record): only after proving the process is this
 * test's, by a private marker in its environment (an entry such as
 * TERMINAL_MCP_SOCKET_DIR=<the test's own temp dir>, which no other process carries) and
 * its start time, checked again at the moment of signalling. A pid alone may by then name
 * someone else's process (the kernel reuses pids), and a test never signals that.
 */
import { readFileSync } from 'node:fs';
import { identityOf, signalIdentified, stillRunning, type ProcessIdentity } from '@terminal-mcp/broker/process-identity';

/** The identity of `pid` if its environment holds `marker` (a whole `NAME=value` entry). */
export function ownedProcess(pid: number, marker: string): ProcessIdentity | undefined {
  const id = identityOf(pid);
  if (!id) return undefined;
  let environ: string;
  try {
    environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
  } catch {
    return undefined;
  }
  return environ.split('\0').includes(marker) && stillRunning(id) ? id : undefined;
}

/** SIGTERM, then SIGKILL after `graceMs`, each only while `id` is still that process;
 * resolves once it is gone. */
export async function stopOwned(id: ProcessIdentity, graceMs = 30_000): Promise<void> {
  if (!signalIdentified(id, 'SIGTERM')) return;
  const deadline = Date.now() + graceMs;
  while (stillRunning(id) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  if (signalIdentified(id, 'SIGKILL')) while (stillRunning(id)) await new Promise((r) => setTimeout(r, 50));
}

/** Whether a process with this pid exists (a zombie counts until its parent reaps it). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
