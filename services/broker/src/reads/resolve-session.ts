/** Resolves a session name the caller gave to the session tmux has, EXACTLY. tmux itself
 * would resolve `foo` to `foobar` by prefix or glob; we never hand it a name. */
import { AppError } from '@terminal-mcp/contract';
import type { SessionFacts, TmuxAdapter } from '../effects/tmux/types.js';

export function findSessionByName(sessions: readonly SessionFacts[], name: string): SessionFacts {
  const found = sessions.find((s) => s.name === name);
  if (!found) throw new AppError('SESSION_NOT_FOUND', 'no session has exactly that name');
  return found;
}

export async function resolveSessionTarget(tmux: TmuxAdapter, name: string): Promise<SessionFacts> {
  return findSessionByName(await tmux.listSessions(), name);
}
