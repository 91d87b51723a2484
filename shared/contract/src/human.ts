/** Schemas of the hand-off to a person: an agent asks for the operator
 * (terminal_request_human), and the operator answers a password / passphrase / OTP prompt
 * through the dashboard's secret entry. Every string is capped. */
import { z } from 'zod';
import { sourceIpSchema } from './auth.js';
import { paneArg, sessionNameSchema } from './sessions.js';

export const HUMAN_LIMITS = {
  reasonMax: 300,
  /** A password, passphrase or one-time code: generous, far below a text's cap. */
  secretMax: 1024,
  passwordMax: 1024,
  /** Open requests kept (oldest dropped first). */
  openRequests: 100,
} as const;

// ---- terminal_request_human -------------------------------------------------------------

export const requestHumanInputShape = {
  session: sessionNameSchema.describe('exact session name'),
  reason: z.string().trim().min(1, 'reason is empty').max(HUMAN_LIMITS.reasonMax).describe('what to type and why (never the secret)'),
};
export const requestHumanInputSchema = z.object(requestHumanInputShape).strict();
export type RequestHumanInput = z.infer<typeof requestHumanInputSchema>;


export const requestHumanOutputSchema = z.object({
  request_id: z.number().int(),
  session: z.string(),
  status: z.string().describe('the pane status now (WAITING_HUMAN when a password prompt waits)'),
  notified: z.boolean().describe('shown on the dashboard and sent to the notification channels'),
});
export type RequestHumanOutput = z.infer<typeof requestHumanOutputSchema>;

// ---- the dashboard's secret entry ---------------------------------------------------------

export const secretEntryInputSchema = z
  .object({
    session: sessionNameSchema,
    /** The pane whose prompt is answered (the full view's tab); absent: the active pane. */
    pane: paneArg,
    secret: z.string().min(1, 'secret is empty').max(HUMAN_LIMITS.secretMax),
    /** The operator's own dashboard password; may be left out within five minutes of
     * signing in (the broker decides). */
    operator_password: z.string().min(1).max(HUMAN_LIMITS.passwordMax).optional(),
    /** Where the dashboard's request came from: the password check is throttled like a login. */
    source_ip: sourceIpSchema,
    /** The program the operator confirmed reads the answer (the page showed it), required
     * when human_input.confirm_program is on: the broker types only into that very process. */
    confirmed_reader: z.object({ pid: z.number().int().positive(), exe_path: z.string().max(4096).nullable() }).strict().optional(),
  })
  .strict();
export type SecretEntryInput = z.infer<typeof secretEntryInputSchema>;

/** What the secret entry answers: never the text, only its length. */
export const secretEntryOutputSchema = z.object({
  result: z.literal('SENT'),
  session: z.string(),
  audit_id: z.number().int(),
  text_length: z.number().int(),
});
export type SecretEntryOutput = z.infer<typeof secretEntryOutputSchema>;

// ---- what would read the secret entry's answer -------------------------------------------

export const promptReaderInputSchema = z.object({ session: sessionNameSchema, pane: paneArg }).strict();
export type PromptReaderInput = z.infer<typeof promptReaderInputSchema>;

/** One process as read from the pane's process tree (never from the screen). */
export const programFactsSchema = z.object({
  pid: z.number().int(),
  exe_path: z.string().nullable().describe('the executable (/proc/<pid>/exe); null when unreadable'),
  name: z.string(),
  uid: z.number().int().nullable(),
  user: z.string().nullable().describe('the user it runs as'),
});
export type ProgramFacts = z.infer<typeof programFactsSchema>;

/** The pane's foreground program as the secret entry judges it (policy/credential-reader.ts). */
export const promptReaderOutputSchema = z.object({
  session: z.string(),
  pane_id: z.string(),
  admitted: z.boolean().describe('the secret entry would type into it'),
  reason: z.string(),
  readers: z.array(programFactsSchema).describe('what holds the terminal'),
  chain: z.array(programFactsSchema).describe('its parent chain, from the pane process down'),
  password_needed: z.boolean().describe("the operator's sign-in is older than the freshness window: the entry asks for their password"),
  confirm_required: z.boolean().describe('human_input.confirm_program: the operator confirms the reading program before the answer is accepted'),
});
export type PromptReaderOutput = z.infer<typeof promptReaderOutputSchema>;

// ---- notices: one model for everything that wants a person's attention --------------------

export const NOTICE_KINDS = ['waiting_for_input', 'waiting_for_human', 'approval_needed', 'session_died', 'supervisor_event', 'agent_message'] as const;
export const noticeKindSchema = z.enum(NOTICE_KINDS);
export type NoticeKind = z.infer<typeof noticeKindSchema>;
export const noticeLevelSchema = z.enum(['info', 'warning', 'urgent']);
export type NoticeLevel = z.infer<typeof noticeLevelSchema>;

export const noticeSchema = z.object({
  id: z.number().int(),
  at: z.string().describe('ISO 8601'),
  kind: noticeKindSchema,
  level: noticeLevelSchema,
  session: z.string().nullable(),
  message: z.string().describe('redacted'),
  from: z.string().describe('who raised it: an MCP client, the broker, the supervisor'),
});
export type Notice = z.infer<typeof noticeSchema>;

export const listNoticesInputSchema = z.object({ after_id: z.number().int().min(0).optional() }).strict();

// ---- notify_user ---------------------------------------------------------------------------

export const notifyUserInputShape = {
  message: z
    .string()
    .trim()
    .min(1, 'message is empty')
    .max(HUMAN_LIMITS.reasonMax)
    // One line, as described: a line break would forge a second line in a push notice.
    .refine((m) => !/[\r\n\u0085\u2028\u2029]/.test(m), 'message: one line, no line breaks')
    .describe('one line (redacted)'),
  level: noticeLevelSchema.optional().describe('info (default), warning or urgent'),
  session: sessionNameSchema.optional().describe('the session it is about (readable)'),
};
export const notifyUserInputSchema = z.object(notifyUserInputShape).strict();
export type NotifyUserInput = z.infer<typeof notifyUserInputSchema>;

export const notifyUserOutputSchema = z.object({
  notice_id: z.number().int().describe('0 when it repeated a notice still fresh (not sent again)'),
  deduplicated: z.boolean(),
});
export type NotifyUserOutput = z.infer<typeof notifyUserOutputSchema>;
