/**
 * `supervisor.json` in the socket directory: the `npm start` supervisor's pid and the
 * pids and URLs of everything it started, so a second `npm start` can say "already
 * running" without touching it, and `terminal-mcp stop` can stop each of them. Written
 * by scripts/start.mjs (which imports this module from dist), removed when it exits.
 */
import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ensureSocketDir } from '../socket-files.js';
import { pidRuns } from './process-info.js';

export const SUPERVISOR_FILE_NAME = 'supervisor.json';

export const supervisorRunSchema = z.object({
  pid: z.number().int(),
  started_at: z.string(),
  checkout: z.string(),
  /** Whether the supervisor started the broker (false: it reused a running one). */
  owns_broker: z.boolean(),
  children: z.array(z.object({ name: z.string(), pid: z.number().int(), url: z.string().nullable(), log: z.string().nullable() })),
});
export type SupervisorRun = z.infer<typeof supervisorRunSchema>;

export function supervisorRunPath(socketDir: string): string {
  return join(socketDir, SUPERVISOR_FILE_NAME);
}

export function writeSupervisorRun(socketDir: string, run: SupervisorRun): void {
  ensureSocketDir(socketDir);
  const path = supervisorRunPath(socketDir);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(run, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, path);
}

/** The record of a supervisor that is still alive; a dead one's record is stale and ignored. */
export function readLiveSupervisorRun(socketDir: string): SupervisorRun | undefined {
  try {
    const parsed = supervisorRunSchema.safeParse(JSON.parse(readFileSync(supervisorRunPath(socketDir), 'utf8')));
    if (!parsed.success) return undefined;
    return parsed.data.pid === process.pid || pidRuns(parsed.data.pid, 'start.mjs') ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Also the children of a dead supervisor, for `stop` to clean up after a crash. */
export function readSupervisorRunEvenIfStale(socketDir: string): SupervisorRun | undefined {
  try {
    const parsed = supervisorRunSchema.safeParse(JSON.parse(readFileSync(supervisorRunPath(socketDir), 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export function removeSupervisorRun(socketDir: string, pid = process.pid): void {
  if (readSupervisorRunEvenIfStale(socketDir)?.pid !== pid) return;
  try {
    unlinkSync(supervisorRunPath(socketDir));
  } catch {
    /* already gone */
  }
}
