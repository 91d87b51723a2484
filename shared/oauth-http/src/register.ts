/**
 * POST /register: dynamic client registration (RFC 7591) for hosted clients such as
 * claude.ai. Open by design (a client cannot do anything before the operator approves it
 * on the consent page), but narrow: the broker accepts only redirect URIs on the
 * operator's allowlist or loopback, and caps how many clients exist. Unknown metadata is
 * ignored; the answer states what was actually registered.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { TOKEN_ENDPOINT_AUTH_METHODS, type RegisterClientInput, type TokenEndpointAuthMethod } from '@terminal-mcp/contract';
import { readLimitedBody, sendJson } from '@terminal-mcp/http-guard';
import type { Logger } from 'pino';
import { callBroker, type OAuthBroker } from './broker-call.js';
import { clientAddress } from './public-url.js';
import type { RegistrationLimits } from './rate-window.js';
import { sendOAuthError } from './responses.js';

export interface RegisterDeps {
  broker: OAuthBroker;
  log: Logger;
  brokerTimeoutMs: number;
  registrations: RegistrationLimits;
  clientIpHeader: string | undefined;
}


const MAX_BODY_BYTES = 32 * 1024;

type Parsed = { ok: true; input: RegisterClientInput } | { ok: false; error: string; description: string };

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** RFC 7591 metadata (snake_case JSON) to the broker's input; shape errors only. */
export function parseRegistration(body: unknown): Parsed {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { ok: false, error: 'invalid_client_metadata', description: 'send a JSON object' };
  const m = body as Record<string, unknown>;
  if (!isStringArray(m.redirect_uris) || m.redirect_uris.length === 0 || m.redirect_uris.length > 10) {
    return { ok: false, error: 'invalid_redirect_uri', description: 'redirect_uris must be a list of 1 to 10 URIs' };
  }
  if (m.redirect_uris.some((u) => u.length === 0 || u.length > 2048)) return { ok: false, error: 'invalid_redirect_uri', description: 'a redirect URI is empty or too long' };
  // RFC 7591 section 2: the default method is client_secret_basic.
  const method = m.token_endpoint_auth_method ?? 'client_secret_basic';
  if (typeof method !== 'string' || !(TOKEN_ENDPOINT_AUTH_METHODS as readonly string[]).includes(method)) {
    return { ok: false, error: 'invalid_client_metadata', description: `token_endpoint_auth_method must be one of ${TOKEN_ENDPOINT_AUTH_METHODS.join(', ')}` };
  }
  for (const key of ['grant_types', 'response_types'] as const) {
    if (m[key] !== undefined && (!isStringArray(m[key]) || m[key].length > 10 || m[key].some((x) => x.length > 64))) {
      return { ok: false, error: 'invalid_client_metadata', description: `${key} must be a short list of strings` };
    }
  }
  for (const key of ['client_name', 'scope'] as const) {
    if (m[key] !== undefined && (typeof m[key] !== 'string' || m[key].length > 400)) {
      return { ok: false, error: 'invalid_client_metadata', description: `${key} must be a short string` };
    }
  }
  return {
    ok: true,
    input: {
      redirectUris: m.redirect_uris,
      tokenEndpointAuthMethod: method as TokenEndpointAuthMethod,
      ...(typeof m.client_name === 'string' ? { clientName: m.client_name } : {}),
      ...(m.grant_types !== undefined ? { grantTypes: m.grant_types as string[] } : {}),
      ...(m.response_types !== undefined ? { responseTypes: m.response_types as string[] } : {}),
      ...(typeof m.scope === 'string' ? { scope: m.scope } : {}),
    },
  };
}

export async function handleRegister(req: IncomingMessage, res: ServerResponse, deps: RegisterDeps): Promise<void> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') return sendOAuthError(res, 400, 'invalid_client_metadata', 'send application/json');
  const body = await readLimitedBody(req, MAX_BODY_BYTES);
  if (!body.ok) {
    if (body.reason === 'aborted') res.destroy();
    else sendOAuthError(res, 413, 'invalid_client_metadata', 'registration request too large', { Connection: 'close' });
    return;
  }
  let json: unknown;
  try {
    json = JSON.parse(body.text);
  } catch {
    return sendOAuthError(res, 400, 'invalid_client_metadata', 'invalid JSON');
  }
  const parsed = parseRegistration(json);
  if (!parsed.ok) return sendOAuthError(res, 400, parsed.error, parsed.description);
  const source = clientAddress(req.socket.remoteAddress, deps.clientIpHeader ? req.headers[deps.clientIpHeader] : undefined);
  // The source's own window first: a source over its share does not use up everyone's.
  const wait = deps.registrations.perSource.take(source) || deps.registrations.total.take();
  if (wait > 0) {
    deps.log.warn({ event: 'security.oauth_registration_throttled', source: source.slice(0, 64), retryAfterSeconds: wait }, 'client registration throttled');
    return sendOAuthError(res, 429, 'temporarily_unavailable', 'too many registrations: retry later', { 'Retry-After': String(wait) });
  }

  const result = await callBroker((signal) => deps.broker.registerClient.mutate(parsed.input, { signal }), deps.brokerTimeoutMs);
  if (!result.ok) {
    if (result.failure.code === 'INVALID_ARGUMENT') return sendOAuthError(res, 400, 'invalid_client_metadata', 'a metadata value is malformed or too long');
    deps.log.error({ event: 'oauth.broker_failed', endpoint: 'register', error_code: result.failure.code }, 'client registration failed');
    return sendOAuthError(res, 503, 'temporarily_unavailable', 'try again later');
  }
  const answer = result.value;
  if (!answer.ok) return sendOAuthError(res, answer.error === 'temporarily_unavailable' ? 503 : 400, answer.error, answer.description);
  const c = answer.client;
  sendJson(res, 201, {
    client_id: c.clientId,
    ...(c.clientSecret === undefined ? {} : { client_secret: c.clientSecret, client_secret_expires_at: 0 }),
    client_id_issued_at: c.clientIdIssuedAt,
    client_name: c.clientName,
    redirect_uris: c.redirectUris,
    grant_types: c.grantTypes,
    response_types: c.responseTypes,
    token_endpoint_auth_method: c.tokenEndpointAuthMethod,
    scope: c.scope,
  });
}
