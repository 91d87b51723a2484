/** Reading OAuth request parameters (query strings and urlencoded bodies). RFC 6749
 * section 3.1: a parameter sent twice is an invalid request, never "take the first" —
 * two parsers that pick different copies are how parameter-pollution attacks work. */
import type { IncomingMessage } from 'node:http';
import { readLimitedBody } from '@terminal-mcp/http-guard';

export type Params = { ok: true; get(name: string): string | undefined } | { ok: false; duplicate: string };

export function readParams(search: URLSearchParams): Params {
  const seen = new Map<string, string>();
  for (const [k, v] of search) {
    if (seen.has(k)) return { ok: false, duplicate: k };
    seen.set(k, v);
  }
  return {
    ok: true,
    // An empty value is the same as an absent one (RFC 6749 section 3.1).
    get: (name) => {
      const v = seen.get(name);
      return v === undefined || v === '' ? undefined : v;
    },
  };
}

export type FormResult = Params | { ok: false; reason: 'too_large' | 'aborted' | 'content_type' };

/** An `application/x-www-form-urlencoded` body of at most `maxBytes`. */
export async function readForm(req: IncomingMessage, maxBytes: number): Promise<FormResult> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') return { ok: false, reason: 'content_type' };
  const body = await readLimitedBody(req, maxBytes);
  if (!body.ok) return { ok: false, reason: body.reason };
  return readParams(new URLSearchParams(body.text));
}

export function searchOf(req: IncomingMessage): URLSearchParams {
  const raw = req.url ?? '/';
  const q = raw.indexOf('?');
  return new URLSearchParams(q === -1 ? '' : raw.slice(q + 1));
}

export function pathOf(req: IncomingMessage): string {
  const raw = req.url ?? '/';
  const q = raw.indexOf('?');
  return q === -1 ? raw : raw.slice(0, q);
}
