/** Resolves a session name the caller gave to the session tmux has, EXACTLY. tmux itself
 * would resolve `foo` to `foobar` by prefix or glob; we never hand it a name. */
import { AppError, closeMatches } from '@terminal-mcp/contract';
import type { SessionFacts, TmuxAdapter } from '../effects/tmux/types.js';

const shown = (name: string) => JSON.stringify(name.length > 64 ? `${name.slice(0, 61)}...` : name);

/**
 * SESSION_NOT_FOUND, naming up to three close matches from the listing so a model can
 * retry with the right name. Only names: discovery (terminal_list_sessions) shows every
 * session's name to every caller already, never content.
 */
export function sessionNotFound(name: string, sessions: readonly SessionFacts[]): AppError {
  const matches = closeMatches(name, sessions.map((s) => s.name));
  const suffix = matches.length > 0 ? `; close matches: ${matches.map(shown).join(', ')}` : '';
  return new AppError('SESSION_NOT_FOUND', `no session has exactly that name${suffix}`);
}

export function findSessionByName(sessions: readonly SessionFacts[], name: string): SessionFacts {
  const found = sessions.find((s) => s.name === name);
  if (!found) throw sessionNotFound(name, sessions);
  return found;
}

export async function resolveSessionTarget(tmux: TmuxAdapter, name: string): Promise<SessionFacts> {
  return findSessionByName(await tmux.listSessions(), name);
}
