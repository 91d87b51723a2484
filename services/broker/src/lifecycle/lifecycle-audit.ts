/**
 * Every lifecycle call leaves a row in the input audit (audit.db input_audit), like input:
 * a refusal as BLOCKED with its code, a dry run as DRY_RUN, and an action as a PENDING
 * row written BEFORE tmux is asked to do anything (if that write fails, nothing is done:
 * AUDIT_UNAVAILABLE), then finished SENT or FAILED. The row's preview says which profile
 * and directory, never a command line from a client (there is none).
 */
import { AppError, readAppErrorData, sessionNameSchema, type AuditDecision, type ErrorCode } from '@terminal-mcp/contract';
import type { InputAttempt } from '../effects/store/audit-store.js';
import type { LifecycleCaller } from './lifecycle-deps.js';

export type LifecycleTool = 'terminal_session_start' | 'terminal_session_close' | 'terminal_session_restart' | 'terminal_resize' | 'terminal_session_forget' | 'session_recovery';

export interface AuditedTarget {
  serverPid: number;
  sessionId: string;
  sessionCreated: number;
  paneId: string | null;
  panePid: number | null;
}

/** One lifecycle call's audit trail. */
export interface LifecycleAudit {
  /** The session the call is about, once known (the row records it). */
  session(name: string | null, target?: AuditedTarget): void;
  dryRun(summary: string): number;
  /** Writes the PENDING row; throws AUDIT_UNAVAILABLE when it cannot. */
  begin(summary: string): number;
  finish(decision: Extract<AuditDecision, 'SENT' | 'FAILED'>, errorCode: ErrorCode | null, receipt: string | null): void;
}

function row(caller: LifecycleCaller, tool: LifecycleTool, name: string | null, target: AuditedTarget | undefined, decision: AuditDecision, errorCode: string | null, preview: string | null): InputAttempt {
  const now = Date.now();
  return {
    at: now,
    role: caller.role,
    actor: caller.actor,
    tool,
    sessionName: name,
    binding: null,
    serverPid: target?.serverPid ?? null,
    sessionId: target?.sessionId ?? null,
    sessionCreated: target?.sessionCreated ?? null,
    paneId: target?.paneId ?? null,
    panePid: target?.panePid ?? null,
    decision,
    errorCode,
    textLength: null,
    textHmac: null,
    preview: preview?.slice(0, 120) ?? null,
    keys: null,
    finishedAt: decision === 'PENDING' ? null : now,
    receipt: null,
    receiptJson: null,
  };
}

/**
 * Runs `act` with an audit trail: an AppError thrown before `begin` is recorded as BLOCKED
 * with its code; one thrown after it finishes the PENDING row as FAILED. The error is
 * rethrown either way.
 */
export async function withLifecycleAudit<T>(caller: LifecycleCaller, tool: LifecycleTool, act: (audit: LifecycleAudit) => Promise<T>): Promise<T> {
  const store = caller.deps.input.audit;
  let name: string | null = null;
  let target: AuditedTarget | undefined;
  let pending: number | null = null;
  let finished = false;
  const audit: LifecycleAudit = {
    session(n, t) {
      name = n;
      target = t;
    },
    dryRun(summary) {
      return store.insertAttempt(row(caller, tool, name, target, 'DRY_RUN', null, summary));
    },
    begin(summary) {
      try {
        pending = store.insertAttempt(row(caller, tool, name, target, 'PENDING', null, summary));
        return pending;
      } catch (err) {
        caller.deps.log.error({ event: 'audit.write_failed', tool, err: (err as Error).message }, 'lifecycle audit row not written: nothing done');
        throw new AppError('AUDIT_UNAVAILABLE', 'the audit log is not available, so nothing was done');
      }
    },
    finish(decision, errorCode, receipt) {
      if (pending === null || finished) return;
      finished = true;
      store.finishAttempt(pending, { decision, errorCode, finishedAt: Date.now(), receipt });
    },
  };
  try {
    return await act(audit);
  } catch (err) {
    const code = readAppErrorData(err)?.code ?? 'INTERNAL';
    if (pending === null) {
      try {
        store.insertAttempt(row(caller, tool, name, target, 'BLOCKED', code, null));
      } catch {
        // The refusal stands whether or not it could be recorded.
      }
    } else {
      audit.finish('FAILED', code, null);
    }
    throw err;
  }
}

/** The public tool behind each lifecycle procedure (the last part of its path). */
const LIFECYCLE_TOOLS: Readonly<Record<string, LifecycleTool>> = {
  start: 'terminal_session_start',
  close: 'terminal_session_close',
  restart: 'terminal_session_restart',
  resize: 'terminal_resize',
  forget: 'terminal_session_forget',
};

/**
 * A lifecycle call refused at the procedure's door (the caller's principal lacks the
 * `lifecycle` effect, a web call without an operator session, an input its schema
 * refused) never reaches withLifecycleAudit: it is written here, BLOCKED with its code,
 * like a refusal inside the use case, so every call leaves one row (docs/tools.md). The
 * raw input is hostile by assumption: only a well-formed session name is kept.
 */
export function recordRefusedLifecycleCall(caller: Pick<LifecycleCaller, 'role' | 'actor' | 'deps'>, path: string, raw: unknown, code: ErrorCode): void {
  const tool = LIFECYCLE_TOOLS[path.slice(path.lastIndexOf('.') + 1)];
  if (tool === undefined) return;
  const value = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>).session ?? (raw as Record<string, unknown>).name : undefined;
  const parsed = sessionNameSchema.safeParse(value);
  try {
    caller.deps.input.audit.insertAttempt(row(caller as LifecycleCaller, tool, parsed.success ? parsed.data : null, undefined, 'BLOCKED', code, null));
  } catch {
    // The refusal stands whether or not it could be recorded.
  }
}
