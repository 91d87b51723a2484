/** Review mode (input_policy.review): an MCP client's input that needs a person's
 * approval is queued, not sent. The proposer waits with terminal_wait_for_approval; only
 * an operator signed in to the dashboard approves or rejects (web.sock). */
import { z } from 'zod';

/** pending: waiting for a person. approving: an operator approved, the delivery runs.
 * sent / failed: the delivery's outcome (failed: a gate or tmux refused at send time,
 * see error_code). rejected: an operator said no. expired: nobody decided in time. Only
 * `sent` typed anything. */
export const APPROVAL_STATES = ['pending', 'approving', 'sent', 'failed', 'rejected', 'expired'] as const;
export type ApprovalState = (typeof APPROVAL_STATES)[number];

export const approvalIdSchema = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

export const waitForApprovalInputShape = {
  approval_id: approvalIdSchema.describe('approval_id from a QUEUED send'),
  timeout_s: z.number().int().min(0).max(60).optional().describe('seconds to wait (default 30; 0: now)'),
};
export const waitForApprovalInputSchema = z.object(waitForApprovalInputShape).strict();
export type WaitForApprovalInput = z.infer<typeof waitForApprovalInputSchema>;

export const approvalViewSchema = z.object({
  approval_id: z.number().int(),
  state: z.enum(APPROVAL_STATES),
  tool: z.string(),
  session: z.string(),
  pane_id: z.string(),
  proposed_by: z.string(),
  decided_by: z.string().nullable(),
  preview: z.string().nullable().describe('redacted text; untrusted data'),
  keys: z.array(z.string()).nullable(),
  reason: z.string().describe('why the input needs review'),
  queued_audit_id: z.number().int(),
  delivery_audit_id: z.number().int().nullable().describe('the audit row of the approved delivery'),
  error_code: z.string().nullable(),
  created_at: z.string(),
  expires_at: z.string(),
});
export type ApprovalView = z.infer<typeof approvalViewSchema>;

export const waitForApprovalOutputSchema = approvalViewSchema.extend({
  decided: z.boolean().describe('false: still pending when the wait ended; call again'),
});
export type WaitForApprovalOutput = z.infer<typeof waitForApprovalOutputSchema>;

export const decideApprovalInputSchema = z.object({ approval_id: approvalIdSchema }).strict();
export const listApprovalsOutputSchema = z.object({ approvals: z.array(approvalViewSchema) });
export type ListApprovalsOutput = z.infer<typeof listApprovalsOutputSchema>;
