/** SESSION_NOT_FOUND for a name no session has EXACTLY. tmux itself would resolve `foo`
 * to `foobar` by prefix or glob; the broker never hands it a name. */
import { AppError, closeMatches } from '@terminal-mcp/contract';
import type { SessionFacts } from '../effects/tmux/types.js';

const shown = (name: string) => JSON.stringify(name.length > 64 ? `${name.slice(0, 61)}...` : name);

/**
 * Names up to three close matches from the listing so a model can retry with the right
 * name. Only names: discovery (terminal_list_sessions) shows every session's name to
 * every caller already, never content.
 */
export function sessionNotFound(name: string, sessions: readonly SessionFacts[]): AppError {
  const matches = closeMatches(name, sessions.map((s) => s.name));
  const suffix = matches.length > 0 ? `; close matches: ${matches.map(shown).join(', ')}` : '';
  return new AppError('SESSION_NOT_FOUND', `no session has exactly that name${suffix}`);
}
