/** The full view's take-over: one keystroke batch from the browser (text, or allowlisted
 * key names) through the broker's guarded, audited input path — the same gates as the
 * text box and the MCP tools (global switch, input policy, grants, guarded commands, copy
 * mode, key allowlist, confirmation for C-c / C-d). The page offers this only where input
 * is allowed; the broker decides every time. Validated here with zod and again in the
 * broker. */
import { json, type RequestEvent } from '@sveltejs/kit';
import { INPUT_LIMITS, LIMITS, paneRefSchema } from '@terminal-mcp/contract';
import { z } from 'zod';
import type { UiError } from '../ui-error.js';
import { requireUser } from './auth.js';
import { broker } from './broker.js';
import { toUiError } from './failure.js';

/** Keystroke batches are small; this also keeps a runaway page from posting megabytes. */
const BODY_MAX_BYTES = 8 * 1024;

const takeoverSchema = z.union([
  z.object({ session: z.string().min(1).max(LIMITS.sessionName), pane: paneRefSchema.optional(), text: z.string().min(1).max(2048) }).strict(),
  z
    .object({
      session: z.string().min(1).max(LIMITS.sessionName),
      pane: paneRefSchema.optional(),
      keys: z.array(z.string().min(1).max(INPUT_LIMITS.keyNameMax)).min(1).max(INPUT_LIMITS.keysPerCall),
      confirm: z.boolean().optional(),
    })
    .strict(),
]);

const refuse = (status: number, error: UiError) => json({ ok: false, error }, { status });

export async function takeoverInput(event: RequestEvent): Promise<Response> {
  requireUser(event);
  const raw = await event.request.text();
  if (raw.length > BODY_MAX_BYTES) return refuse(413, { code: 'INVALID_ARGUMENT', detail: 'too much input at once' });
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return refuse(400, { code: 'INVALID_ARGUMENT', detail: 'body: JSON expected' });
  }
  const parsed = takeoverSchema.safeParse(body);
  if (!parsed.success) return refuse(400, { code: 'INVALID_ARGUMENT', detail: 'session and text, or session and keys' });
  const input = parsed.data;
  try {
    // `pane`: the pane the full view shows (its tab), else the session's active pane.
    const pane = input.pane !== undefined ? { pane: input.pane } : {};
    if ('text' in input) await broker().input.sendText.mutate({ session: input.session, ...pane, text: input.text, enter: false });
    else await broker().input.sendKeys.mutate({ session: input.session, ...pane, keys: input.keys, confirm_sensitive: input.confirm ?? false });
    return json({ ok: true });
  } catch (err) {
    const { status, error } = toUiError(err);
    return refuse(status, error);
  }
}
