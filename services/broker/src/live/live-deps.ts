/** What live output and waits need beyond the basic broker deps: the pane watcher (one
 * control-mode client per watched session) and the resume tokens of pending waits. */
import { AppError } from '@terminal-mcp/contract';
import type { PaneWatcher } from '../effects/tmux/pane-watch.js';
import { ResumeTokens } from './resume-tokens.js';

export interface LiveDeps {
  paneWatch: PaneWatcher;
  resumeTokens: ResumeTokens;
}

export function createLiveDeps(paneWatch: PaneWatcher, tokens: ResumeTokens = new ResumeTokens()): LiveDeps {
  return { paneWatch, resumeTokens: tokens };
}

/** The live deps, or TMUX_UNAVAILABLE where a broker (a test) was built without them. */
export function requireLive(deps: { live?: LiveDeps | undefined }): LiveDeps {
  if (deps.live === undefined) throw new AppError('TMUX_UNAVAILABLE', 'live pane output is not available in this broker');
  return deps.live;
}
