/** Records pane-content reads in the read audit (queued; see read-audit.ts). */
import { readAppErrorData } from '@terminal-mcp/contract';
import type { Caller } from '../access/caller.js';
import type { Logger } from 'pino';
import type { ReadRecord } from '../effects/store/audit-store.js';
import type { ReadAuditRecorder } from './read-audit.js';

/** Who read, and where the read audit is queued. */
export type ReadCaller = Caller & { deps: { input: { reads: ReadAuditRecorder }; log: Logger } };

export interface ReadFacts {
  session: string | null;
  sessionId?: string | null;
  paneId?: string | null;
  lineCount?: number | null;
  errorCode?: string | null;
  project?: string | null;
  path?: string | null;
}

/** The read audit row of one read by `caller` (a socket's role and actor, or the broker's
 * own supervisor). */
export function readRecord(caller: { role: string; actor: string }, tool: string, facts: ReadFacts, at = Date.now()): ReadRecord {
  return {
    at,
    role: caller.role,
    actor: caller.actor,
    tool,
    sessionName: facts.session,
    sessionId: facts.sessionId ?? null,
    paneId: facts.paneId ?? null,
    lineCount: facts.lineCount ?? null,
    errorCode: facts.errorCode ?? null,
    project: facts.project ?? null,
    path: facts.path ?? null,
  };
}

export function recordRead(ctx: ReadCaller, tool: string, facts: ReadFacts): void {
  try {
    ctx.deps.input.reads.record(readRecord(ctx, tool, facts));
  } catch (err) {
    ctx.deps.log.warn({ event: 'audit.read_record_failed', tool, err: (err as Error).message }, 'read not audited');
  }
}

/** Runs a read and records it, with its line count or its error code. */
export async function auditedRead<T>(
  ctx: ReadCaller,
  tool: string,
  session: string | null,
  read: () => Promise<T>,
  facts: (result: T) => Omit<ReadFacts, 'session'>,
): Promise<T> {
  try {
    const result = await read();
    recordRead(ctx, tool, { session, ...facts(result) });
    return result;
  } catch (err) {
    recordRead(ctx, tool, { session, errorCode: readAppErrorData(err)?.code ?? 'INTERNAL' });
    throw err;
  }
}
