/**
 * Live MCP sessions over HTTP: one McpServer and one stateful transport per client that
 * initialized and sends its Mcp-Session-Id back, so a tool call no longer builds a server
 * and a transport (the costliest part of a stateless request). Clients that do not echo
 * the id (hosted ones such as ChatGPT) are still served statelessly (mcp-http-endpoint.ts).
 *
 * Security: a session id never authenticates. The request has passed the service's
 * authentication (mcp-http-service.ts) before it gets here, and a session answers only
 * the principal that created it (the gateway's principalKey: the same OAuth user, client
 * and scopes, or the static token, or nobody). Anyone else presenting the id is refused
 * (`foreign`), so a leaked id neither borrows another client's tools (scopes) nor its
 * audit name.
 * The table is bounded in size (the least recently used session goes first) and idle
 * sessions expire; an evicted session's id then falls back to the stateless path.
 */
export interface LiveSession {
  /** Who may use the session (see principalKey). */
  readonly principal: string;
  close(): void;
}

export type SessionLookup<S> = { kind: 'live'; session: S } | { kind: 'foreign' } | { kind: 'none' };

export interface McpSessionTable<S extends LiveSession> {
  lookup(id: string | undefined, principal: string): SessionLookup<S>;
  add(id: string, session: S): void;
  /** Drops the session without closing it (its transport closed itself). */
  remove(id: string, session: S): void;
  readonly size: number;
  /** Closes every session (service shutdown). */
  closeAll(): void;
}

export const DEFAULT_MAX_SESSIONS = 128;
export const DEFAULT_SESSION_IDLE_MS = 15 * 60 * 1000;

export function createMcpSessionTable<S extends LiveSession>(options: { max?: number; idleMs?: number; now?: () => number } = {}): McpSessionTable<S> {
  const max = options.max ?? DEFAULT_MAX_SESSIONS;
  const idleMs = options.idleMs ?? DEFAULT_SESSION_IDLE_MS;
  const now = options.now ?? Date.now;
  // Map order is use order: re-inserted on every use, so the first entry is the least recent.
  const sessions = new Map<string, { session: S; usedAt: number }>();

  const evict = (id: string) => {
    const entry = sessions.get(id);
    sessions.delete(id);
    entry?.session.close();
  };
  const expireIdle = () => {
    const cutoff = now() - idleMs;
    for (const [id, entry] of sessions) {
      if (entry.usedAt >= cutoff) break;
      evict(id);
    }
  };

  return {
    lookup(id, principal) {
      expireIdle();
      const entry = id === undefined ? undefined : sessions.get(id);
      if (entry === undefined) return { kind: 'none' };
      if (entry.session.principal !== principal) return { kind: 'foreign' };
      sessions.delete(id!);
      entry.usedAt = now();
      sessions.set(id!, entry);
      return { kind: 'live', session: entry.session };
    },
    add(id, session) {
      expireIdle();
      evict(id);
      sessions.set(id, { session, usedAt: now() });
      while (sessions.size > max) evict(sessions.keys().next().value as string);
    },
    remove(id, session) {
      if (sessions.get(id)?.session === session) sessions.delete(id);
    },
    get size() {
      return sessions.size;
    },
    closeAll() {
      for (const id of [...sessions.keys()]) evict(id);
    },
  };
}
