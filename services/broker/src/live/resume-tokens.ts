/**
 * Resume tokens of PENDING waits: opaque random strings (256 bits), kept in the
 * broker's memory with what the wait was about. Decided against self-contained signed
 * tokens: the state is tiny, nothing needs to survive a broker restart (a lost token is
 * RESUME_TOKEN_INVALID, and the hint says to start a new wait), and a random key in a
 * map cannot be forged, replayed into another role or decoded by the model holding it.
 *
 * Postfix rule: bounded, per client. One client (role and actor, e.g. `gateway:claude`)
 * holds at most `maxPerClient` tokens: its next one forgets its own oldest, never another
 * client's. At most `max` tokens live in all; when that is reached, the oldest token of
 * the client holding the most goes (ties: the newest client), so a client with no more
 * waits than any other keeps them however hard another one fills the store. Each token expires `ttlMs` after it was issued or last
 * renewed (a resume that ends PENDING again renews it and returns the same token); a wait
 * that reaches its state retires it. A token resumes only for the client that got it.
 */
import { randomBytes } from 'node:crypto';
import { AppError, type SessionStatus, type SocketRole } from '@terminal-mcp/contract';
import type { SessionIdentity } from '../policy/identity.js';

export interface PendingWait {
  /** The session name the wait was started with; the read gate is applied to it again. */
  readonly name: string;
  /** The pane of that session the wait was started on (`%id` or `window.pane`), if any. */
  readonly pane?: string | undefined;
  readonly identity: SessionIdentity;
  readonly states: readonly SessionStatus[];
  /** The socket role that started the wait: a token is only valid on the same role. */
  readonly role: SocketRole;
  /** The client that started it (the request's actor): its quota, and the only client
   * the token resumes for. */
  readonly client: string;
}

/** What every token remembers: who may resume it. A run of terminal_run (input/run.ts)
 * keeps its own record under the same rules. */
export interface TokenHolder {
  readonly role: SocketRole;
  readonly client: string;
}

interface Entry<W extends TokenHolder> {
  readonly wait: W;
  expiresAt: number;
}

export interface ResumeTokensOptions {
  ttlMs?: number;
  max?: number;
  maxPerClient?: number;
  now?: () => number;
}

export interface IssuedToken {
  token: string;
  expiresAt: number;
}

/** A client's tokens, oldest first (a Map keeps insertion order; renewing re-inserts). */
type ClientTokens<W extends TokenHolder> = Map<string, Entry<W>>;

export class ResumeTokens<W extends TokenHolder = PendingWait> {
  private readonly byClient = new Map<string, ClientTokens<W>>();
  private readonly clientOf = new Map<string, string>();
  private readonly ttlMs: number;
  private readonly max: number;
  private readonly maxPerClient: number;
  private readonly now: () => number;

  constructor(options: ResumeTokensOptions = {}) {
    this.ttlMs = options.ttlMs ?? 10 * 60_000;
    this.max = options.max ?? 1_000;
    this.maxPerClient = Math.min(options.maxPerClient ?? 100, this.max);
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.clientOf.size;
  }

  /** How many live tokens `client` holds. */
  sizeOf(client: string): number {
    return this.byClient.get(client)?.size ?? 0;
  }

  issue(wait: W): IssuedToken {
    this.sweep();
    const own = this.byClient.get(wait.client) ?? new Map<string, Entry<W>>();
    while (own.size >= this.maxPerClient) this.forgetOldest(wait.client, own);
    while (this.clientOf.size >= this.max) {
      const [client, tokens] = this.largestHolder();
      this.forgetOldest(client, tokens);
    }
    const token = `rw_${randomBytes(32).toString('base64url')}`;
    const expiresAt = this.now() + this.ttlMs;
    own.set(token, { wait, expiresAt });
    this.byClient.set(wait.client, own);
    this.clientOf.set(token, wait.client);
    return { token, expiresAt };
  }

  /** The wait behind a live token presented by `client` on `role`; RESUME_TOKEN_INVALID
   * otherwise (unknown, expired, retired, another role's or another client's: one answer
   * for all). */
  lookup(token: string, role: SocketRole, client: string): W {
    const entry = this.entryOf(token);
    if (entry === undefined || entry.wait.role !== role || entry.wait.client !== client || entry.expiresAt <= this.now()) {
      if (entry !== undefined && entry.expiresAt <= this.now()) this.retire(token);
      throw new AppError('RESUME_TOKEN_INVALID', 'the resume token is unknown or expired');
    }
    return entry.wait;
  }

  /** Keeps a token for another `ttlMs` (moved to the young end of its client's order). */
  renew(token: string): IssuedToken | null {
    const client = this.clientOf.get(token);
    const own = client === undefined ? undefined : this.byClient.get(client);
    const entry = own?.get(token);
    if (own === undefined || entry === undefined) return null;
    own.delete(token);
    entry.expiresAt = this.now() + this.ttlMs;
    own.set(token, entry);
    return { token, expiresAt: entry.expiresAt };
  }

  retire(token: string): void {
    const client = this.clientOf.get(token);
    if (client === undefined) return;
    this.clientOf.delete(token);
    const own = this.byClient.get(client);
    own?.delete(token);
    if (own?.size === 0) this.byClient.delete(client);
  }

  private entryOf(token: string): Entry<W> | undefined {
    const client = this.clientOf.get(token);
    return client === undefined ? undefined : this.byClient.get(client)?.get(token);
  }

  private forgetOldest(client: string, tokens: ClientTokens<W>): void {
    const oldest = tokens.keys().next();
    if (oldest.done !== true) this.retire(oldest.value);
    else this.byClient.delete(client);
  }

  /** Ties go to the newest client: one that keeps making up new names evicts itself. */
  private largestHolder(): [string, ClientTokens<W>] {
    let largest: [string, ClientTokens<W>] | undefined;
    for (const holder of this.byClient) if (largest === undefined || holder[1].size >= largest[1].size) largest = holder;
    return largest!;
  }

  private sweep(): void {
    const now = this.now();
    for (const tokens of [...this.byClient.values()]) {
      for (const [token, entry] of [...tokens]) if (entry.expiresAt <= now) this.retire(token);
    }
  }
}
