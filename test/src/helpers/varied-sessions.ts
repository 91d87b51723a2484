/**
 * A realistic mix of tmux sessions for measuring list answers (issue 31): agents of several
 * kinds (readable, some open to input), build and private sessions nobody may read,
 * different programs, some with a second window. Used by test/src/answer-bytes.test.ts and
 * `npm run bench -- --only answers`, so the figure and the budget are measured on the same mix.
 */
import type { TmuxTestServer } from './tmux-server.js';

const KINDS = [
  { prefix: 'claude', command: 'bash --norc --noprofile' },
  { prefix: 'codex', command: 'sleep 3600' },
  { prefix: 'agent', command: 'python3 -q' },
  { prefix: 'build', command: 'cat' },
  { prefix: 'notes', command: 'sleep 3600' },
];
const WORDS = ['refactor', 'login-bug', 'docs', 'tests', 'deploy', 'review', 'perf', 'api-v2', 'frontend'];

/** The broker config the mix is meant for: claude-*, codex-* and agent-* readable, claude-* open to input. */
export const VARIED_SESSIONS_CONFIG = {
  permissions: { terminal_read: true, terminal_input: true },
  allowed_session_patterns: ['claude-*', 'codex-*', 'agent-*'],
  input_policy: { allowed_session_patterns: ['claude-*'] },
};

export const variedSessionName = (i: number) => `${KINDS[i % KINDS.length]!.prefix}-${WORDS[i % WORDS.length]}-${i}`;
/** Session i has a second window when this holds. */
export const variedSessionHasTwoWindows = (i: number) => i % 7 === 3;

/** Adds sessions `from` .. `to - 1` of the mix to `tmux`. */
export async function addVariedSessions(tmux: TmuxTestServer, from: number, to: number): Promise<void> {
  for (let i = from; i < to; i++) {
    const s = await tmux.newSession(variedSessionName(i), KINDS[i % KINDS.length]!.command, { width: 80, height: 24 });
    if (variedSessionHasTwoWindows(i)) await tmux.tmux(['new-window', '-d', '-t', `${s.sessionId}:`, 'sleep 3600']);
  }
}
