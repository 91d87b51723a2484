/** The dashboard's text box: text (and optionally Enter) through the broker's guarded,
 * audited input path, the same one the MCP tools use (global gate, input policy,
 * current-command guard, copy-mode guard). The page hides the box when input would be
 * refused; this action does not rely on that: the broker decides every time. */
import { fail, type RequestEvent } from '@sveltejs/kit';
import { INPUT_LIMITS, LIMITS, PANE_REF_PATTERN } from '@terminal-mcp/contract';
import type { UiError } from '../ui-error.js';
import { requireUser } from './auth.js';
import { broker } from './broker.js';
import { toUiError } from './failure.js';

export async function sendAction(event: RequestEvent) {
  requireUser(event);
  const form = await event.request.formData();
  const session = form.get('session');
  const text = form.get('text');
  const enter = form.get('enter') === 'on' || form.get('enter') === 'true';
  // The full view's pane tab (`%id` or `window.pane`; the broker checks it again); absent or
  // empty: the session's active pane.
  const pane = form.get('pane');
  if (typeof session !== 'string' || session.length === 0 || session.length > LIMITS.sessionName) {
    return fail(400, { send: { session: '', error: { code: 'INVALID_ARGUMENT', detail: 'session' } satisfies UiError } });
  }
  if (typeof text !== 'string' || text.length === 0 || text.length > INPUT_LIMITS.textMax) {
    return fail(400, { send: { session, error: { code: text ? 'TEXT_TOO_LONG' : 'INVALID_ARGUMENT', detail: 'text' } satisfies UiError } });
  }
  if (pane !== null && pane !== '' && (typeof pane !== 'string' || !PANE_REF_PATTERN.test(pane))) {
    return fail(400, { send: { session, error: { code: 'INVALID_ARGUMENT', detail: 'pane' } satisfies UiError } });
  }
  try {
    await broker().input.sendText.mutate({ session, text, enter, ...(typeof pane === 'string' && pane !== '' ? { pane } : {}) });
    return { send: { session, ok: true as const } };
  } catch (err) {
    const { status, error } = toUiError(err);
    return fail(status, { send: { session, error } });
  }
}
