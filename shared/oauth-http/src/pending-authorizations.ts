/**
 * Authorization requests waiting for the operator's decision, kept in memory between the
 * login page (GET /authorize) and its form (POST /authorize). The form carries only an
 * opaque, single-use token naming the request, so the parameters the operator saw cannot
 * be swapped; the token is also bound to the browser that loaded the page by a nonce in
 * an HttpOnly, SameSite=Strict cookie, so a form posted from anywhere else (CSRF, a token
 * lifted from a page) is refused. Entries live ten minutes; a restart forgets them (the
 * operator starts again from the client).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export interface PendingAuthorization {
  clientId: string;
  clientName: string;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  /** The scopes the consent page shows (see requestedScopes). */
  scopes: string[];
  state: string | undefined;
}

interface Entry {
  request: PendingAuthorization;
  browserHash: Buffer;
  expiresAt: number;
}

const NONCE = /^[A-Za-z0-9_-]{43}$/;
const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
const random = () => randomBytes(32).toString('base64url');

export interface PendingAuthorizationsOptions {
  ttlMs?: number;
  /** Oldest entries are dropped beyond this many (an open page costs memory). */
  max?: number;
  now?: () => number;
}

export class PendingAuthorizations {
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly max: number;
  private readonly now: () => number;

  constructor(options: PendingAuthorizationsOptions = {}) {
    this.ttlMs = options.ttlMs ?? 10 * 60_000;
    this.max = options.max ?? 1000;
    this.now = options.now ?? Date.now;
  }

  /** A well-formed browser nonce from the cookie, or a fresh one. */
  static browserNonce(cookieValue: string | undefined): string {
    return cookieValue !== undefined && NONCE.test(cookieValue) ? cookieValue : random();
  }

  get ttlSeconds(): number {
    return Math.floor(this.ttlMs / 1000);
  }

  /** Stores the request; returns the token for the form. */
  open(request: PendingAuthorization, browserNonce: string): string {
    this.sweep();
    while (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    const token = random();
    this.entries.set(digest(token).toString('hex'), { request, browserHash: digest(browserNonce), expiresAt: this.now() + this.ttlMs });
    return token;
  }

  /** Takes the request out (single use): undefined when unknown, expired, or opened in
   * another browser. */
  take(token: string | undefined, browserNonce: string | undefined): PendingAuthorization | undefined {
    if (token === undefined || token.length > 128) return undefined;
    const key = digest(token).toString('hex');
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.now()) return undefined;
    if (browserNonce === undefined || !timingSafeEqual(digest(browserNonce), entry.browserHash)) return undefined;
    return entry.request;
  }

  get size(): number {
    return this.entries.size;
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
  }
}

export const BROWSER_COOKIE = 'tmcp_authz';

export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function browserCookie(nonce: string, secure: boolean, maxAgeSeconds: number): string {
  return `${BROWSER_COOKIE}=${nonce}; Path=/authorize; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}
