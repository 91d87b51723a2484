/**
 * `supervisor.json` in the socket directory: the `npm start` supervisor's pid and the
 * pids and URLs of everything it started, so a second `npm start` can say "already
 * running" without touching it, and `terminal-mcp stop` can stop each of them. Written
 * by scripts/start.mjs (which imports this module from dist), removed when it exits.
 */
import { z } from 'zod';
import { pidRecordFile } from './pid-record-file.js';
import { ensureSocketDir } from '../socket-files.js';
import { pidRuns } from './process-info.js';
import { stillRunning } from '../proc/process-identity.js';

export const SUPERVISOR_FILE_NAME = 'supervisor.json';

export const supervisorRunSchema = z.object({
  pid: z.number().int(),
  /** Start times (proc/process-identity.ts) of the supervisor and of each child: `terminal-mcp
   * stop` signals a recorded pid only while it is still that process. Absent in records of
   * older versions. */
  pid_start: z.string().optional(),
  started_at: z.string(),
  checkout: z.string(),
  /** Whether the supervisor started the broker (false: it reused a running one). */
  owns_broker: z.boolean(),
  children: z.array(z.object({ name: z.string(), pid: z.number().int(), pid_start: z.string().optional(), url: z.string().nullable(), log: z.string().nullable() })),
});
export type SupervisorRun = z.infer<typeof supervisorRunSchema>;

const file = pidRecordFile(SUPERVISOR_FILE_NAME, supervisorRunSchema);

export const supervisorRunPath = file.path;

export function writeSupervisorRun(socketDir: string, run: SupervisorRun): void {
  ensureSocketDir(socketDir);
  file.write(socketDir, run);
}

/** The record of a supervisor that is still alive; a dead one's record is stale and ignored. */
export function readLiveSupervisorRun(socketDir: string): SupervisorRun | undefined {
  const run = file.read(socketDir);
  if (!run) return undefined;
  if (run.pid === process.pid) return run;
  const same = run.pid_start === undefined ? pidRuns(run.pid, 'start.mjs') : stillRunning({ pid: run.pid, start: run.pid_start });
  return same ? run : undefined;
}

/** Also the children of a dead supervisor, for `stop` to clean up after a crash. */
export const readSupervisorRunEvenIfStale = file.read;
export const removeSupervisorRun = file.remove;
