/**
 * Notices: the one model for everything that wants a person's attention (a pane waiting
 * for input or for a human, an approval to give, a session that died, a supervisor
 * event, an agent's own message). Every notice is redacted once, here, before anything
 * keeps or sends it; a notice that repeats one still fresh (same kind, session and
 * message within DEDUP_MS) is dropped; the dashboard reads the last MAX_KEPT (in memory:
 * a notice is a nudge, the audit log is the record). The notice outbox
 * (attention/notice-outbox.ts) subscribes with `onNotice` and queues each for the
 * notifier, which sends it to the channels that reach a phone.
 */
import { HUMAN_LIMITS, type Notice, type NoticeKind, type NoticeLevel } from '@terminal-mcp/contract';
import { redactSecrets } from '../policy/redact.js';
import { createAgentNoticeLimiter, type AgentNoticeLimiter } from './agent-notice-limiter.js';

const MAX_KEPT = 200;
/** The same notice again within this long is the same nudge. */
export const DEDUP_MS = 60_000;
const MESSAGE_MAX = 500;

export interface NoticeInput {
  kind: NoticeKind;
  level: NoticeLevel;
  session: string | null;
  message: string;
  from: string;
}

export interface AttentionCenter {
  /** The notice as kept (redacted), or null when it repeated a fresh one. */
  raise(input: NoticeInput): Notice | null;
  /** Oldest first; only those after `afterId` when given. */
  list(afterId?: number): Notice[];
  /** Open requests for a person (waiting_for_human), newest last. */
  humanRequests(): Notice[];
  onNotice(listener: (notice: Notice) => void): () => void;
  /** notify_user's per-client rate limit (attention/agent-notice-limiter.ts). */
  readonly agentNotices: AgentNoticeLimiter;
}

export function createAttentionCenter(now: () => number = Date.now): AttentionCenter {
  const kept: Notice[] = [];
  const recent = new Map<string, number>();
  const listeners = new Set<(notice: Notice) => void>();
  let nextId = 1;

  return {
    raise(input) {
      const at = now();
      const message = redactSecrets(input.message.slice(0, MESSAGE_MAX)).text;
      const key = JSON.stringify([input.kind, input.session, message]);
      for (const [k, t] of recent) if (at - t > DEDUP_MS) recent.delete(k);
      if (recent.has(key)) return null;
      recent.set(key, at);
      const notice: Notice = { id: nextId++, at: new Date(at).toISOString(), kind: input.kind, level: input.level, session: input.session, message, from: input.from };
      kept.push(notice);
      if (kept.length > MAX_KEPT) kept.shift();
      for (const listener of listeners) {
        try {
          listener(notice);
        } catch {
          // A channel's failure is its own (it logs and audits it); the notice stays kept.
        }
      }
      return notice;
    },
    list: (afterId) => kept.filter((n) => afterId === undefined || n.id > afterId),
    humanRequests: () => kept.filter((n) => n.kind === 'waiting_for_human').slice(-HUMAN_LIMITS.openRequests),
    onNotice(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    agentNotices: createAgentNoticeLimiter(),
  };
}
