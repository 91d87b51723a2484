/**
 * The MCP client's own name (`clientInfo.name` from `initialize`) for HTTP requests, so the
 * audit log names the same actor over HTTP as over stdio.
 *
 * A live session (mcp-sessions.ts) knows its client's name from initialize; a request
 * served statelessly (no id, or its session expired; hosted clients such as ChatGPT do
 * not reliably echo Mcp-Session-Id) does not carry the initialize request's clientInfo.
 * The session id fills the gap without making any request depend on an earlier one: it is
 * random (128 bits), clients that follow the spec (the SDK's) send it back on every later
 * request, and it maps to the recorded name for longer than the session lives. An unknown, expired or missing id is not
 * an error: the request is served the same and the actor falls back to the User-Agent.
 *
 * Security: the name is recorded, never trusted (the broker sanitises and caps it, and
 * with OAuth takes the actor from the token); presenting another client's id gains nothing
 * a client could not claim in its own initialize. The table is bounded in size and age.
 */
import { randomBytes } from 'node:crypto';

export const SESSION_ID_HEADER = 'mcp-session-id';
const SESSION_ID_RE = /^[A-Za-z0-9_-]{16,64}$/;
const NAME_MAX = 200;

export interface ClientNames {
  /** Records the name of a client that just initialized; returns its new session id. */
  remember(name: string): string;
  /** The recorded name for a session id header value, if any. */
  lookup(sessionId: string | string[] | undefined): string | undefined;
}

export function createClientNames(options: { max?: number; ttlMs?: number; now?: () => number } = {}): ClientNames {
  const max = options.max ?? 4096;
  const ttlMs = options.ttlMs ?? 24 * 60 * 60 * 1000;
  const now = options.now ?? Date.now;
  // Map keeps insertion order: the first entry is the oldest.
  const names = new Map<string, { name: string; at: number }>();
  return {
    remember(name) {
      const id = randomBytes(16).toString('base64url');
      names.set(id, { name: name.slice(0, NAME_MAX), at: now() });
      while (names.size > max) names.delete(names.keys().next().value as string);
      return id;
    },
    lookup(header) {
      const id = Array.isArray(header) ? header[0] : header;
      if (id === undefined || !SESSION_ID_RE.test(id)) return undefined;
      const entry = names.get(id);
      if (entry === undefined) return undefined;
      if (now() - entry.at > ttlMs) {
        names.delete(id);
        return undefined;
      }
      return entry.name;
    },
  };
}

/** `clientInfo.name` of an initialize request (alone or in a batch), if the body is one. */
export function initializeClientName(body: unknown): string | undefined {
  for (const message of Array.isArray(body) ? body : [body]) {
    if (typeof message !== 'object' || message === null) continue;
    const m = message as { method?: unknown; params?: { clientInfo?: { name?: unknown } } };
    const name = m.method === 'initialize' ? m.params?.clientInfo?.name : undefined;
    if (typeof name === 'string' && name.trim() !== '') return name;
  }
  return undefined;
}
