/** Client credentials at the token and revocation endpoints: HTTP Basic (RFC 6749
 * section 2.3.1, with the form-urlencoding of id and secret it requires) or
 * `client_id` [+ `client_secret`] in the body. Using both at once is refused. The broker
 * decides whether the credentials are right; this only reads them. */
import type { IncomingMessage } from 'node:http';

export type ClientCredentials =
  | { ok: true; clientId: string; clientSecret: string | undefined; via: 'basic' | 'body' }
  | { ok: false; error: 'invalid_request' | 'invalid_client'; description: string; via: 'basic' | 'body' };

const BASIC = /^Basic +([A-Za-z0-9+/=]+) *$/i;
const MAX = 512;

function formDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

export function readClientCredentials(req: IncomingMessage, body: { get(name: string): string | undefined }): ClientCredentials {
  const header = req.headers.authorization;
  const bodyId = body.get('client_id');
  const bodySecret = body.get('client_secret');
  if (header !== undefined) {
    const m = BASIC.exec(header);
    if (!m) return { ok: false, error: 'invalid_client', description: 'unsupported Authorization header', via: 'basic' };
    const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const id = colon < 0 ? undefined : formDecode(decoded.slice(0, colon));
    const secret = colon < 0 ? undefined : formDecode(decoded.slice(colon + 1));
    if (!id || secret === undefined || id.length > MAX || secret.length > MAX) {
      return { ok: false, error: 'invalid_client', description: 'malformed Basic credentials', via: 'basic' };
    }
    if (bodySecret !== undefined) return { ok: false, error: 'invalid_request', description: 'use one client authentication method, not two', via: 'basic' };
    if (bodyId !== undefined && bodyId !== id) return { ok: false, error: 'invalid_request', description: 'client_id differs from the Basic credentials', via: 'basic' };
    return { ok: true, clientId: id, clientSecret: secret === '' ? undefined : secret, via: 'basic' };
  }
  if (bodyId === undefined) return { ok: false, error: 'invalid_client', description: 'client_id is required', via: 'body' };
  if (bodyId.length > MAX || (bodySecret?.length ?? 0) > MAX) return { ok: false, error: 'invalid_client', description: 'client credentials too long', via: 'body' };
  return { ok: true, clientId: bodyId, clientSecret: bodySecret, via: 'body' };
}
