/**
 * The dashboard's secret entry: the operator answers a password / passphrase / one-time
 * code prompt in exactly one pane, even while its foreground command is guarded (sudo,
 * ssh): the guard keeps agents out of credentials, not the person. One input attempt
 * (attempt.ts) like every send, of kind `secret`:
 *  - the input authorization lets it past the guard only for a signed-in operator on
 *    web.sock who proved their password within minutes (input/authorize.ts);
 *  - the audit row keeps the operator, the target, the length and the HMAC of the text,
 *    never a preview (attempt.ts); the answer carries the length only;
 *  - the text goes in as a paste on stdin to tmux, then Enter (send.ts pasteThenEnter,
 *    the same act as terminal_send_text), under the pane's lock and tmux's last-instant
 *    foreground check; nothing of it is logged.
 */
import { AppError, type SecretEntryOutput } from '@terminal-mcp/contract';
import { runInputAttempt, type AttemptCaller } from './attempt.js';
import { pasteThenEnter } from './send.js';

export async function answerSecretPrompt(
  caller: AttemptCaller,
  args: { session: string; pane?: string | undefined; secret: string; reauthenticatedAt: number | null; confirmedReader?: { pid: number; exePath: string | null } | undefined },
): Promise<SecretEntryOutput> {
  const result = await runInputAttempt<SecretEntryOutput>(
    caller,
    { tool: 'dashboard_secret', target: { session: args.session, pane: args.pane }, request: { kind: 'secret', text: args.secret, reauthenticatedAt: args.reauthenticatedAt, ...(args.confirmedReader ? { confirmedReader: args.confirmedReader } : {}) }, dryRun: false },
    async ({ target, live, decision, auditId, services }) => {
      if (decision.action !== 'paste_text') throw new AppError('INTERNAL', 'unexpected input decision');
      const value: SecretEntryOutput = { result: 'SENT', session: target.sessionName, audit_id: auditId, text_length: Array.from(decision.text).length };
      const sent = await pasteThenEnter({ target, live, services }, decision.text, true);
      return { decision: sent.decision, errorCode: sent.errorCode, value };
    },
  );
  if (result.kind === 'blocked') throw result.error;
  if (result.kind !== 'acted') throw new AppError('INTERNAL', 'unexpected input attempt result');
  if (result.outcome.decision !== 'SENT') {
    throw result.outcome.errorCode === 'IDENTITY_CHANGED'
      ? new AppError('IDENTITY_CHANGED', "the pane's foreground program changed before the answer was typed: nothing more was typed")
      : new AppError('TMUX_UNAVAILABLE', 'tmux did not confirm the answer reached the pane');
  }
  return result.outcome.value;
}
