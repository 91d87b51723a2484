/** What a RUNNING answer of terminal_run (input/run.ts) keeps behind its resume token, in
 * the same bounded, per-client store as the wait tools' tokens (resume-tokens.ts). */
import type { SocketRole } from '@terminal-mcp/contract';
import type { PaneIdentity } from '../policy/identity.js';

export interface PendingRun {
  readonly role: SocketRole;
  readonly client: string;
  /** The node the pane is on (nodes/node-names.ts), or undefined for this host. */
  readonly node: string | undefined;
  /** The session's name as its host has it. */
  readonly sessionName: string;
  readonly identity: PaneIdentity;
  /** The shell the command was typed into (the foreground group's leader then). */
  readonly shellPid: number | null;
  /** The run's completion channel (effects/tmux/run-signal.ts), released once it is answered. */
  readonly channel: string;
  /** Absolute line of the prompt the command was typed at. */
  readonly startLine: number;
  readonly startedAt: number;
  readonly auditId: number;
}
