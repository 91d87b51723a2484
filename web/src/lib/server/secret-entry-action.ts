/** The secret entry: the operator answers a password / passphrase / one-time-code prompt in
 * one session. The text goes to the broker and nowhere else: it is never logged, never
 * put in the answer (the page learns its length only) and never kept in the form. The
 * operator's own password comes with it when the sign-in is older than a few minutes;
 * the broker checks it (throttled like a login) and decides in its one input
 * authorization, where the guarded-command exception is made for this principal only. */
import { fail, type RequestEvent } from '@sveltejs/kit';
import { AUTH_LIMITS, HUMAN_LIMITS, LIMITS, PANE_REF_PATTERN } from '@terminal-mcp/contract';
import type { UiError } from '../ui-error.js';
import { requireUser } from './auth.js';
import { broker } from './broker.js';
import { toUiError } from './failure.js';

export async function secretAction(event: RequestEvent) {
  requireUser(event);
  const form = await event.request.formData();
  const session = form.get('session');
  const secret = form.get('secret');
  const password = form.get('operator_password');
  // The pane the full view shows (its tab): the prompt answered is that pane's.
  const pane = form.get('pane');
  if (typeof session !== 'string' || session.length === 0 || session.length > LIMITS.sessionName) {
    return fail(400, { secret: { session: '', error: { code: 'INVALID_ARGUMENT', detail: 'session' } satisfies UiError } });
  }
  if (typeof secret !== 'string' || secret.length === 0 || secret.length > HUMAN_LIMITS.secretMax) {
    return fail(400, { secret: { session, error: { code: 'INVALID_ARGUMENT', detail: 'the answer is empty or too long' } satisfies UiError } });
  }
  if (pane !== null && pane !== '' && (typeof pane !== 'string' || !PANE_REF_PATTERN.test(pane))) {
    return fail(400, { secret: { session, error: { code: 'INVALID_ARGUMENT', detail: 'pane' } satisfies UiError } });
  }
  // `pid:executable` of the program the page showed and the operator ticked.
  const confirmed = form.get('confirmed_reader');
  const confirmedMatch = typeof confirmed === 'string' ? /^([1-9]\d{0,9}):(.{0,4096})$/s.exec(confirmed) : null;
  if (confirmed !== null && confirmedMatch === null) {
    return fail(400, { secret: { session, error: { code: 'INVALID_ARGUMENT', detail: 'confirmed_reader' } satisfies UiError } });
  }
  const operatorPassword = typeof password === 'string' && password.length > 0 ? password.slice(0, HUMAN_LIMITS.passwordMax) : undefined;
  try {
    const sent = await broker().human.answerSecret.mutate({
      session,
      ...(typeof pane === 'string' && pane !== '' ? { pane } : {}),
      secret,
      ...(operatorPassword !== undefined ? { operator_password: operatorPassword } : {}),
      source_ip: event.getClientAddress().slice(0, AUTH_LIMITS.sourceIpMax),
      ...(confirmedMatch ? { confirmed_reader: { pid: Number(confirmedMatch[1]), exe_path: confirmedMatch[2] === '' ? null : (confirmedMatch[2] as string) } } : {}),
    });
    return { secret: { session, ok: true as const, length: sent.text_length } };
  } catch (err) {
    const { status, error } = toUiError(err);
    // UNAUTHENTICATED here means "confirm with your password", not "signed out": the
    // session is checked by requireUser above; keep the operator on the page.
    return fail(status === 401 ? 403 : status, { secret: { session, error } });
  }
}
