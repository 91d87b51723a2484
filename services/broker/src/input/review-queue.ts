/**
 * The review queue (input_policy.review): inputs an MCP client proposed that wait for a
 * person. The attempt (attempt.ts) queues an input at its check phase, after every gate
 * passed, with a QUEUED audit row; the row's id is the approval id. An operator on the
 * dashboard (web.sock, rpc/procedures/review.ts) approves or rejects; no MCP procedure
 * can, so the proposer never approves its own input.
 *
 * Approval re-enters the input attempt as the approved delivery (`deliver`): the target's
 * identity is checked against the one queued, every gate runs again, and the text goes
 * through the one guarded path, audited with the proposer and the approver. The state
 * moves pending → approving before that call, so a second approval (a double click, two
 * operators) finds it no longer pending and sends nothing: exactly once.
 *
 * Held in memory only, like the pane locks: the text an agent proposed is not written to
 * disk (the audit keeps its redacted preview, length and HMAC). A broker that restarts
 * forgets pending items; they are never sent, and a wait on one answers NOT_FOUND.
 */
import { AppError, type ApprovalState, type ApprovalView } from '@terminal-mcp/contract';

export interface DeliveryResult {
  sent: boolean;
  auditId: number | null;
  errorCode: string | null;
}

export interface QueuedInputSpec {
  id: number;
  tool: string;
  sessionName: string;
  paneId: string;
  proposedBy: string;
  /** Redacted, whole: what the operator approves. */
  preview: string | null;
  keys: string[] | null;
  reason: string;
  expiresAt: number;
  /** The approved delivery (re-enters runInputAttempt). */
  deliver(approvedBy: string): Promise<DeliveryResult>;
  /** Writes the audit row of a rejection or an expiry (nothing sent). */
  close(state: 'rejected' | 'expired', by: string): void;
}

interface Entry {
  spec: QueuedInputSpec;
  state: ApprovalState;
  decidedBy: string | null;
  deliveryAuditId: number | null;
  errorCode: string | null;
  createdAt: number;
  waiters: Set<() => void>;
  timer: NodeJS.Timeout | null;
}

export interface ReviewQueue {
  enqueue(spec: QueuedInputSpec): ApprovalView;
  get(id: number): ApprovalView | null;
  /** Newest first; pending ones and those decided recently (the last 200). */
  list(): ApprovalView[];
  approve(id: number, operator: string): Promise<ApprovalView>;
  reject(id: number, operator: string): ApprovalView;
  /** Waits until the item leaves pending/approving or timeoutMs pass. */
  waitForDecision(id: number, timeoutMs: number): Promise<ApprovalView>;
}

const KEEP_DECIDED = 200;
const iso = (ms: number) => new Date(ms).toISOString();

export function createReviewQueue(now: () => number = Date.now): ReviewQueue {
  const entries = new Map<number, Entry>();

  const view = (e: Entry): ApprovalView => ({
    approval_id: e.spec.id,
    state: e.state,
    tool: e.spec.tool,
    session: e.spec.sessionName,
    pane_id: e.spec.paneId,
    proposed_by: e.spec.proposedBy,
    decided_by: e.decidedBy,
    preview: e.spec.preview,
    keys: e.spec.keys,
    reason: e.spec.reason,
    queued_audit_id: e.spec.id,
    delivery_audit_id: e.deliveryAuditId,
    error_code: e.errorCode,
    created_at: iso(e.createdAt),
    expires_at: iso(e.spec.expiresAt),
  });

  const settle = (e: Entry, state: ApprovalState) => {
    e.state = state;
    if (e.timer) clearTimeout(e.timer);
    e.timer = null;
    for (const wake of e.waiters) wake();
    e.waiters.clear();
    const decided = [...entries.values()].filter((x) => x.state !== 'pending' && x.state !== 'approving');
    for (const old of decided.slice(0, Math.max(0, decided.length - KEEP_DECIDED))) entries.delete(old.spec.id);
  };

  const expire = (e: Entry) => {
    if (e.state !== 'pending') return;
    e.decidedBy = 'broker:review_timeout';
    try {
      e.spec.close('expired', e.decidedBy);
    } finally {
      settle(e, 'expired');
    }
  };

  /** Lazily too: a timer may be late on a busy machine, the deadline is not. */
  const current = (id: number): Entry | null => {
    const e = entries.get(id) ?? null;
    if (e && e.state === 'pending' && now() >= e.spec.expiresAt) expire(e);
    return e;
  };

  const require = (id: number): Entry => {
    const e = current(id);
    if (!e) throw new AppError('NOT_FOUND', `no queued input with approval_id ${id}`, 'The approval is unknown or was forgotten by a broker restart (it was never sent): list the queue on the dashboard\'s Review page.');
    return e;
  };

  return {
    enqueue(spec) {
      const e: Entry = { spec, state: 'pending', decidedBy: null, deliveryAuditId: null, errorCode: null, createdAt: now(), waiters: new Set(), timer: null };
      e.timer = setTimeout(() => expire(e), Math.max(0, spec.expiresAt - now()));
      e.timer.unref();
      entries.set(spec.id, e);
      return view(e);
    },
    get(id) {
      const e = current(id);
      return e ? view(e) : null;
    },
    list() {
      return [...entries.keys()].reverse().map((id) => view(current(id) as Entry));
    },
    async approve(id, operator) {
      const e = require(id);
      if (e.state !== 'pending') throw new AppError('ACTION_CONFLICT', `approval ${id} is ${e.state}, not pending: nothing more is sent`);
      // Before the delivery: a second approval finds it approving and sends nothing.
      e.state = 'approving';
      e.decidedBy = operator;
      if (e.timer) clearTimeout(e.timer);
      let result: DeliveryResult;
      try {
        result = await e.spec.deliver(operator);
      } catch (err) {
        result = { sent: false, auditId: null, errorCode: (err as { code?: string }).code ?? 'INTERNAL' };
      }
      e.deliveryAuditId = result.auditId;
      e.errorCode = result.errorCode;
      settle(e, result.sent ? 'sent' : 'failed');
      return view(e);
    },
    reject(id, operator) {
      const e = require(id);
      if (e.state !== 'pending') throw new AppError('ACTION_CONFLICT', `approval ${id} is ${e.state}, not pending`);
      e.decidedBy = operator;
      try {
        e.spec.close('rejected', operator);
      } finally {
        settle(e, 'rejected');
      }
      return view(e);
    },
    async waitForDecision(id, timeoutMs) {
      const e = require(id);
      if (e.state !== 'pending' && e.state !== 'approving') return view(e);
      const deadline = Math.min(now() + timeoutMs, e.spec.expiresAt);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.max(0, deadline - now()));
        function done() {
          clearTimeout(timer);
          e.waiters.delete(done);
          resolve();
        }
        e.waiters.add(done);
      });
      return view(current(id) ?? e);
    },
  };
}
