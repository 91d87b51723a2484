/**
 * Resume tokens of PENDING waits: opaque random strings (256 bits), kept in the
 * broker's memory with what the wait was about. Decided against self-contained signed
 * tokens: the state is tiny, nothing needs to survive a broker restart (a lost token is
 * RESUME_TOKEN_INVALID, and the hint says to start a new wait), and a random key in a
 * map cannot be forged, replayed into another role or decoded by the model holding it.
 *
 * Postfix rule: bounded. At most `max` tokens live; issuing one more forgets the oldest.
 * Each token expires `ttlMs` after it was issued or last renewed (a resume that ends
 * PENDING again renews it and returns the same token); a wait that reaches its state
 * retires it.
 */
import { randomBytes } from 'node:crypto';
import { AppError, type SessionStatus, type SocketRole } from '@terminal-mcp/contract';
import type { SessionIdentity } from './session-identity.js';

export interface PendingWait {
  /** The session name the wait was started with; the read gate is applied to it again. */
  readonly name: string;
  readonly identity: SessionIdentity;
  readonly states: readonly SessionStatus[];
  /** The socket role that started the wait: a token is only valid on the same role. */
  readonly role: SocketRole;
}

interface Entry {
  readonly wait: PendingWait;
  expiresAt: number;
}

export interface ResumeTokensOptions {
  ttlMs?: number;
  max?: number;
  now?: () => number;
}

export interface IssuedToken {
  token: string;
  expiresAt: number;
}

export class ResumeTokens {
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly max: number;
  private readonly now: () => number;

  constructor(options: ResumeTokensOptions = {}) {
    this.ttlMs = options.ttlMs ?? 10 * 60_000;
    this.max = options.max ?? 1_000;
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  issue(wait: PendingWait): IssuedToken {
    this.sweep();
    while (this.entries.size >= this.max) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.entries.delete(oldest.value);
    }
    const token = `rw_${randomBytes(32).toString('base64url')}`;
    const expiresAt = this.now() + this.ttlMs;
    this.entries.set(token, { wait, expiresAt });
    return { token, expiresAt };
  }

  /** The wait behind a live token presented on `role`; RESUME_TOKEN_INVALID otherwise
   * (unknown, expired, retired or from another role: one answer for all). */
  lookup(token: string, role: SocketRole): PendingWait {
    const entry = this.entries.get(token);
    if (entry === undefined || entry.wait.role !== role || entry.expiresAt <= this.now()) {
      if (entry !== undefined && entry.expiresAt <= this.now()) this.entries.delete(token);
      throw new AppError('RESUME_TOKEN_INVALID', 'the resume token is unknown or expired');
    }
    return entry.wait;
  }

  /** Keeps a token for another `ttlMs` (moved to the young end of the eviction order). */
  renew(token: string): IssuedToken | null {
    const entry = this.entries.get(token);
    if (entry === undefined) return null;
    this.entries.delete(token);
    entry.expiresAt = this.now() + this.ttlMs;
    this.entries.set(token, entry);
    return { token, expiresAt: entry.expiresAt };
  }

  retire(token: string): void {
    this.entries.delete(token);
  }

  private sweep(): void {
    const now = this.now();
    for (const [token, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(token);
  }
}
