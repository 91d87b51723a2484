/**
 * What is on a shell's input line before text is submitted there (issue 43: input that
 * never glues). Text left on the line (a paste whose Enter never came because the broker
 * was killed, a person's half-typed command) would run joined to the next submitted
 * input, and the audit row would describe a command the shell never ran as written.
 *
 * Only for this host's bash and zsh whose shell integration is installed
 * (effects/tmux/shell-integration.ts; a terminal_run installs it) and that sit at their
 * prompt: there the line editor tells the broker what its line holds, over the
 * integration's private FIFO, without drawing anything. Elsewhere (a REPL, an agent's own
 * input box, a node's pane, a shell no run has touched) nothing is read and text is
 * typed as before: docs/tools.md says so.
 *
 * The rule for a submit (terminal_send_text with enter, terminal_send_task, terminal_run):
 * the line must be empty, or hold exactly what this broker typed there since the shell's
 * last prompt for the same caller (a client's partial typing across sends), else
 * INPUT_LINE_NOT_EMPTY with the leftover shown redacted; `clear_line: true` clears the
 * line with the editor's own variables first. terminal_run requires the empty line (it
 * types exactly the command, and its audit row says so).
 */
import { redactSecrets } from '../policy/redact.js';
import { INTEGRABLE_SHELLS, type IntegrableShell } from '../effects/tmux/shell-hook.js';
import type { ShellIntegration, ShellKey } from '../effects/tmux/shell-integration.js';
import { authorizedForeground, type ActContext } from './attempt.js';

/** A refusal of the act (nothing of the text typed), answered after its audit row. */
export interface LineRefusal {
  refused: { code: 'FOREGROUND_NOT_ALLOWED' | 'INPUT_LINE_NOT_EMPTY'; message: string; hint?: string };
}

export const isIntegrable = (shell: string): shell is IntegrableShell => (INTEGRABLE_SHELLS as readonly string[]).includes(shell);

/** What is on an input line, as an answer may show it: redacted, and cut. */
export function shownLeftover(text: string): string {
  // Redacted whole, then cut: a secret cut in half would escape the redactor.
  const shown = redactSecrets(text).text;
  return shown.length > 80 ? `${shown.slice(0, 80)}…` : shown;
}

/** Who typed, as the line's record keeps it. */
export const lineOwner = (caller: { role: string; actor: string }) => `${caller.role}:${caller.actor}`;

/** The refusal of text already on the line. */
export function lineNotEmpty(shell: string, line: { length: number; text: string }, typing: string, ownAccepted: boolean): LineRefusal {
  const whose = ownAccepted ? ' that this caller did not type since the prompt' : '';
  return {
    refused: {
      code: 'INPUT_LINE_NOT_EMPTY',
      message: `the ${shell}'s input line already holds ${line.length} character(s)${whose}: ${JSON.stringify(shownLeftover(line.text))}; ${typing} now would join them to it. Nothing was typed`,
      hint: 'Call again with clear_line: true to clear that line (with the line editor) before typing, or find out who typed it (terminal_read_since).',
    },
  };
}

/** Whether the editor's report of its line (its length, and its first 200 characters with
 * newlines as spaces: shell-hook.ts) is exactly `text`. */
function lineIs(line: { length: number; text: string }, text: string): boolean {
  const chars = Array.from(text);
  return line.length === chars.length && line.text === chars.slice(0, 200).join('').replace(/[\n\r]/g, ' ');
}

/** The shell at its prompt in the target pane whose line can be read, or null (typed as
 * before). A shell whose hook an earlier broker installed is adopted here when the
 * process tree shows it leading the terminal with no command under it. */
export async function integratedShellAtPrompt(ctx: Pick<ActContext, 'target' | 'live' | 'services' | 'node'>): Promise<{ key: ShellKey; shell: IntegrableShell; adopted: boolean } | null> {
  const shells = ctx.services.shells;
  if (ctx.node !== undefined || shells === undefined) return null;
  const paneId = ctx.target.identity.paneId;
  const panePid = ctx.live.panePid;
  const known = shells.known(paneId, panePid);
  const candidates = known !== null ? [] : shells.adoptable(paneId, panePid);
  if (known === null && candidates.length === 0) return null;
  // The tree as it is now: the shell must lead the terminal with nothing running under it
  // (the marks say the same for a known shell, unless its hook was removed meanwhile).
  const tree = await ctx.services.processTree(panePid, ctx.live.currentCommand);
  if (tree.source !== 'proc') return null;
  const leader = tree.processes.find((p) => p.pid === tree.foregroundGroup);
  if (leader === undefined || tree.processes.some((p) => p.foreground && p.ppid === leader.pid)) return null;
  if (known !== null) {
    if (known.key.shellPid !== leader.pid || shells.state(known.key) !== 'prompt') return null;
    return { ...known, adopted: false };
  }
  const found = candidates.find((c) => c.shellPid === leader.pid && (leader.exe === c.shell || leader.comm === c.shell));
  if (found === undefined) return null;
  const key = { paneId, panePid, shellPid: found.shellPid };
  return shells.adopt(key, found.shell) ? { key, shell: found.shell, adopted: true } : null;
}

/**
 * Reads (or with `clear`, clears) the shell's input line before a submit: null when the
 * submit may go on; a refusal otherwise. `mine`: what the caller typed there since the
 * prompt is accepted as the line (null for terminal_run: the line must be empty).
 */
export async function checkLineBeforeSubmit(
  ctx: Pick<ActContext, 'target' | 'live' | 'services'>,
  at: { key: ShellKey; shell: IntegrableShell; adopted: boolean },
  clear: boolean,
  mine: string | null,
  typing: string,
): Promise<LineRefusal | null> {
  const shells = ctx.services.shells as ShellIntegration;
  const paneId = ctx.target.identity.paneId;
  const foreground = authorizedForeground(ctx.live);
  const line = await shells.inputLine(at.key, clear, (which) => ctx.services.delivery.pressEditorKeys(paneId, which, foreground));
  if (line === null) {
    // An adopted hook that does not answer is not there any more: the next send types as
    // before (and the next terminal_run installs it again).
    if (at.adopted) shells.drop(at.key);
    return {
      refused: {
        code: 'FOREGROUND_NOT_ALLOWED',
        message: `the ${at.shell}'s line editor did not say what is on its input line; nothing was typed`,
        hint: 'Retry in a moment; terminal_read_since shows what the pane is doing.',
      },
    };
  }
  if (line.length === 0) return null;
  const typed = shells.typedSincePrompt(at.key);
  if (mine !== null && typed !== null && typed.owner === mine && lineIs(line, typed.text)) return null;
  return lineNotEmpty(at.shell, line, typing, mine !== null);
}
