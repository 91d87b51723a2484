/** The dashboard's session lifecycle: "New session" from a launch profile, close and
 * restart (the page asks for confirmation first; the broker also requires `confirm`),
 * through the broker's same gates and audit as the MCP tools, under the signed-in
 * operator. The form values are checked here only for shape: the broker decides. */
import { fail, type RequestEvent } from '@sveltejs/kit';
import { ERROR_CODES, LIFECYCLE_LIMITS, LIMITS, type ErrorCode, type LaunchProfileView, type ManagedSessionState } from '@terminal-mcp/contract';
import type { UiError } from '../ui-error.js';
import { requireUser } from './auth.js';
import { broker } from './broker.js';
import { toUiError } from './failure.js';

export interface LifecyclePage {
  enabled: boolean;
  profiles: LaunchProfileView[];
  managed: ManagedSessionState[];
}

export async function loadLifecycle(): Promise<LifecyclePage> {
  const [{ enabled, profiles }, managed] = await Promise.all([broker().lifecycle.profiles.query(), broker().lifecycle.managed.query()]);
  return { enabled, profiles, managed };
}

/** The broker's code for a refused first prompt, as one of the closed set (anything else
 * is shown as the generic failure). */
const promptCode = (code: string): ErrorCode => ((ERROR_CODES as readonly string[]).includes(code) ? (code as ErrorCode) : 'INTERNAL');

const field = (form: FormData, key: string, max: number): string | undefined => {
  const v = form.get(key);
  return typeof v === 'string' && v.length > 0 && v.length <= max ? v : undefined;
};
const invalid = (what: string, detail: string) => fail(400, { [what]: { error: { code: 'INVALID_ARGUMENT', detail } satisfies UiError } });

export async function startAction(event: RequestEvent) {
  requireUser(event);
  const form = await event.request.formData();
  const profile = field(form, 'profile', 64);
  if (!profile) return invalid('start', 'profile');
  const name = field(form, 'name', LIMITS.sessionName);
  const cwd = field(form, 'cwd', LIFECYCLE_LIMITS.cwdChars);
  const prompt = field(form, 'prompt', 32_000);
  try {
    const r = await broker().lifecycle.start.mutate({ profile, ...(name ? { name } : {}), ...(cwd ? { cwd } : {}), ...(prompt ? { prompt } : {}) });
    // Each step's outcome, for the page to show: the session started, then the first
    // prompt sent or refused with its code (the session runs either way).
    const firstPrompt = r.prompt === null ? null : { result: r.prompt.result, error: r.prompt.error_code === null ? null : ({ code: promptCode(r.prompt.error_code) } satisfies UiError) };
    return { start: { ok: true as const, session: r.session, session_id: r.session_id, foreground: r.foreground, prompt: firstPrompt } };
  } catch (err) {
    const { status, error } = toUiError(err);
    return fail(status, { start: { error } });
  }
}

/** Close or restart: `confirm` must come with the form (the page's confirmation step). */
export function pinnedAction(kind: 'close' | 'restart') {
  return async (event: RequestEvent) => {
    requireUser(event);
    const form = await event.request.formData();
    const session = field(form, 'session', LIMITS.sessionName);
    // `$3`, or `node:$3` for a node's session (a node name is up to 32 characters).
    const expect = field(form, 'expect_session_id', 44);
    if (!session || !expect) return invalid(kind, 'session');
    const confirm = form.get('confirm') === 'true';
    try {
      const input = { session, expect_session_id: expect, confirm };
      if (kind === 'close') {
        const r = await broker().lifecycle.close.mutate(input);
        return { close: { ok: true as const, session, result: r.result, session_id: r.session_id } };
      }
      const r = await broker().lifecycle.restart.mutate(input);
      return { restart: { ok: true as const, session, result: r.result, previous_session_id: r.previous_session_id, session_id: r.session_id, foreground: r.foreground } };
    } catch (err) {
      const { status, error } = toUiError(err);
      return fail(status, { [kind]: { session, error } });
    }
  };
}

/** Remove on the Gone sessions page: the gone session's registry rows become tombstones
 * under the registry-cleanup rules (the broker decides; the page asked for confirmation). */
export async function forgetAction(event: RequestEvent) {
  requireUser(event);
  const form = await event.request.formData();
  const session = field(form, 'session', LIMITS.sessionName);
  const expect = field(form, 'expect_session_id', 44);
  if (!session || !expect) return invalid('forget', 'session');
  try {
    const r = await broker().lifecycle.forget.mutate({ session, expect_session_id: expect, confirm: true });
    return { forget: { ok: true as const, session: r.session, session_id: r.session_id, rows: r.rows } };
  } catch (err) {
    const { status, error } = toUiError(err);
    return fail(status, { forget: { session, session_id: expect, error } });
  }
}

/** The full view's window size (the broker checks the bounds again, and the input policy). */
export async function resizeAction(event: RequestEvent) {
  requireUser(event);
  const form = await event.request.formData();
  const session = field(form, 'session', LIMITS.sessionName);
  const width = Number(form.get('width'));
  const height = Number(form.get('height'));
  if (!session || !Number.isInteger(width) || !Number.isInteger(height)) return invalid('resize', 'size');
  try {
    const r = await broker().lifecycle.resize.mutate({ session, width, height });
    return { resize: { ok: true as const, width: r.width, height: r.height } };
  } catch (err) {
    const { status, error } = toUiError(err);
    return fail(status, { resize: { error } });
  }
}
