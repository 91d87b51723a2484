/** The /review page's data and form actions: review mode's queue (broker
 * rpc/procedures/review.ts), each call made as the signed-in operator, who is the approver
 * the broker records. */
import { fail, type RequestEvent } from '@sveltejs/kit';
import type { ListApprovalsOutput } from '@terminal-mcp/contract';
import type { UiError } from '../ui-error.js';
import { requireUser } from './auth.js';
import { broker } from './broker.js';
import { toUiError } from './failure.js';

export async function loadReview(): Promise<ListApprovalsOutput> {
  return broker().review.list.query();
}

const positiveInt = (v: FormDataEntryValue | null) => (typeof v === 'string' && /^[1-9]\d{0,12}$/.test(v) ? Number(v) : null);

export async function decideAction(event: RequestEvent) {
  requireUser(event);
  const form = await event.request.formData();
  const id = positiveInt(form.get('approval_id'));
  const decision = form.get('decision');
  if (id === null) return fail(400, { error: { code: 'INVALID_ARGUMENT', detail: 'approval_id' } satisfies UiError });
  if (decision !== 'approve' && decision !== 'reject') return fail(400, { error: { code: 'INVALID_ARGUMENT', detail: 'decision' } satisfies UiError });
  try {
    const view = decision === 'approve' ? await broker().review.approve.mutate({ approval_id: id }) : await broker().review.reject.mutate({ approval_id: id });
    return { decided: view.state };
  } catch (err) {
    const { status, error } = toUiError(err);
    return fail(status, { error });
  }
}
