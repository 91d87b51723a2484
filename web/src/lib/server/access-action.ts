/** The access dialog's form action, shared by `/` and `/sessions`: two switches (read,
 * input), an optional time box, one or many sessions. Read off revokes. The broker
 * re-checks everything (sensitive names, input-needs-read, identity) and audits the
 * change under the signed-in operator's name. */
import { fail, type RequestEvent } from '@sveltejs/kit';
import { GRANT_LIMITS, LIMITS } from '@terminal-mcp/contract';
import type { UiError } from '../ui-error.js';
import { requireUser } from './auth.js';
import { broker } from './broker.js';
import { toUiError } from './failure.js';

export interface AccessResult {
  access: { updated: number; refused: { session: string; error: UiError }[] };
}

const EXPIRY_CHOICES: ReadonlySet<number> = new Set([3600, 8 * 3600, 24 * 3600]);
const on = (v: FormDataEntryValue | null) => v === 'on' || v === 'true' || v === '1';

export async function accessAction(event: RequestEvent) {
  requireUser(event);
  const form = await event.request.formData();
  const sessions = form.getAll('session').filter((v): v is string => typeof v === 'string' && v.length > 0 && v.length <= LIMITS.sessionName);
  const unique = [...new Set(sessions)];
  if (unique.length === 0 || unique.length > GRANT_LIMITS.bulkSessions) {
    return fail(400, { error: { code: 'INVALID_ARGUMENT', detail: 'choose 1-100 sessions' } satisfies UiError });
  }
  const input = on(form.get('input'));
  const read = on(form.get('read')) || input;
  const expiresRaw = Number(form.get('expires_in_s') ?? '');
  const expiry = read && EXPIRY_CHOICES.has(expiresRaw) ? { expires_in_s: expiresRaw } : {};

  try {
    if (unique.length === 1) {
      const session = unique[0]!;
      if (!read) await broker().grants.revoke.mutate({ session });
      else {
        const sid = form.get('expect_session_id');
        const created = form.get('expect_created');
        const expect = typeof sid === 'string' && /^(?:[a-z][a-z0-9_-]{0,31}:)?\$\d{1,10}$/.test(sid) && typeof created === 'string' && created.length <= 40 ? { expect: { session_id: sid, created } } : {};
        await broker().grants.set.mutate({ session, read, input, ...expiry, ...expect });
      }
      return { access: { updated: 1, refused: [] } } satisfies AccessResult;
    }
    const { results } = await broker().grants.bulkSet.mutate({ sessions: unique, read, input, ...expiry });
    const refused = results.flatMap((r) => (r.ok ? [] : [{ session: r.session, error: toUiError({ data: { app: { code: r.error_code, hint: '' } }, message: r.message }).error }]));
    return { access: { updated: results.length - refused.length, refused } } satisfies AccessResult;
  } catch (err) {
    const { status, error } = toUiError(err);
    return fail(status, { error });
  }
}
