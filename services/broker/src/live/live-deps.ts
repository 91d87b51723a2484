/** What live output and waits need beyond the basic broker deps: the pane watcher (one
 * control-mode client per watched session) and the resume tokens of pending waits. */
import type { PaneWatcher } from '../effects/tmux/pane-watch.js';
import type { PendingRun } from './run-tokens.js';
import { ResumeTokens } from './resume-tokens.js';

export interface LiveDeps {
  paneWatch: PaneWatcher;
  resumeTokens: ResumeTokens;
  /** Runs of terminal_run still going at their time limit (same rules as waits). */
  runTokens: ResumeTokens<PendingRun>;
}

export function createLiveDeps(paneWatch: PaneWatcher, tokens: ResumeTokens = new ResumeTokens()): LiveDeps {
  return { paneWatch, resumeTokens: tokens, runTokens: new ResumeTokens<PendingRun>() };
}
