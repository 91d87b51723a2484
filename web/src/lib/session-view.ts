/** What a page knows about one tmux session. Built on the server; a restricted session
 * carries metadata only (no status, command or screen). */
import type { ListedNode, SessionStatus } from '@terminal-mcp/contract';

export interface SessionView {
  name: string;
  session_id: string;
  created: string;
  attached: number;
  windows: number;
  last_activity: string;
  read_allowed: boolean;
  read_granted: boolean;
  input_allowed: boolean;
  input_granted: boolean;
  whitelisted: boolean;
  sensitive: boolean;
  grantable: boolean;
  /** The stored grant's flags and time box, when one is active. */
  grant: { read: boolean; input: boolean; expires_at: string | null } | null;
  /** Set when a launch profile started this very session (its recovery state). */
  recovery?: { profile: string; state: string; recover: 'on_exit' | 'never'; restarts: number; max: number };
  /** Readable sessions only. */
  current_command?: string;
  in_copy_mode?: boolean;
  status?: { status: SessionStatus; reason: string };
  /** Set for a session of another host (`node:session`): grants, reads and input as here;
   * no resizing there (docs/nodes.md), so the page does not offer it. */
  node?: string;
  /** Input is allowed and the pane's foreground is a shell (the broker reads the pane's
   * process tree): the input box warns that typing there reaches every session. */
  foreground_shell?: boolean;
}

export interface SessionsPageData {
  sessions: SessionView[];
  read_enabled: boolean;
  input_enabled: boolean;
  /** Other hosts that are not up (down, or slow to answer): their sessions are not in
   * `sessions` (down) or are as last listed (slow), and the page says so. */
  nodesNotUp: ListedNode[];
}

/** The node a listed name is on (`node:session`); undefined for this host's. tmux never
 * puts a `:` in a session name, so the first one ends the node's name. */
export function nodeOfName(name: string): string | undefined {
  const colon = name.indexOf(':');
  return colon > 0 ? name.slice(0, colon) : undefined;
}

export type AccessState = 'whitelisted' | 'read-input' | 'read' | 'none';

export function accessState(s: SessionView): AccessState {
  if (s.read_granted || s.grant?.read) return s.input_granted || s.grant?.input ? 'read-input' : 'read';
  if (s.whitelisted) return 'whitelisted';
  return 'none';
}

/** Why the operator cannot type into a session, as a message key; null when input is
 * allowed. The broker decides every send; this only explains the disabled controls. */
export type InputBlockReason = 'inputDisabled' | 'sensitive' | 'notReadable' | 'notGranted';

export function inputBlockReason(s: SessionView, inputEnabled: boolean): InputBlockReason | null {
  if (s.input_allowed) return null;
  if (!inputEnabled) return 'inputDisabled';
  if (s.sensitive) return 'sensitive';
  if (!s.read_allowed) return 'notReadable';
  return 'notGranted';
}
