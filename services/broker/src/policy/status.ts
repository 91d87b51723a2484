/**
 * What is a pane doing: RUNNING, IDLE, WAITING_INPUT, WAITING_HUMAN (a password,
 * passphrase or one-time-code prompt: only a person should answer it, through the
 * dashboard's secret entry), or UNKNOWN when the evidence is weak. Pure: a function of the sanitized screen lines and a few tmux facts. The reason
 * is one short line naming the evidence, for the agent reading the status and for the
 * operator wondering why.
 *
 * Evidence, strongest first (see classifyPaneStatus): the agent CLIs' own footers and
 * menus; an interactive prompt on the last lines; a shell or REPL prompt at the bottom;
 * then the foreground command and how recently it wrote. Matching is conservative:
 * prompts count only at the bottom of the screen, where the cursor waits, so prose that
 * mentions "password" or "permission" higher up is never taken for a prompt, and nothing
 * is guessed: weak evidence is UNKNOWN.
 *
 * Agent CLI screens (from Codex's TUI snapshot tests, and from Claude Code screens quoted in
 * issues and in other tools' state detectors; newer Claude Code builds may drop the hint,
 * hence the spinner pattern):
 * - Claude Code busy: `✻ Thinking… (12s · ↑ 1.2k tokens · esc to interrupt)`, newer
 *   footers `⏵⏵ accept edits on · esc to interrupt`, and spinner lines without the hint
 *   `✳ Simplifying… (2m 18s · ↓ 4.8k tokens)`. Idle: the input box (`❯` between two
 *   `─` rules, or the older `│ >` box) with `? for shortcuts` or `(shift+tab to cycle)`.
 *   Permission menu: `Do you want to proceed?` / `❯ 1. Yes` / `2. ...` / `Esc to cancel`.
 * - Codex busy: `• Working (5s • esc to interrupt)`. Idle: `? for shortcuts`,
 *   `⏎ send   ⌃J newline`. Approval: `Would you like to run the following command?` /
 *   `› 1. Yes, proceed (y)` / `Press enter to confirm or esc to cancel`.
 */

import { findUsageLimit, type UsageLimit, type UsageLimitContext } from './usage-limit.js';

export type PaneStatus = 'RUNNING' | 'IDLE' | 'WAITING_INPUT' | 'WAITING_HUMAN' | 'UNKNOWN';

export interface PaneEvidence {
  /** Sanitized pane lines, bottom of the screen last; may end with blank padding lines. */
  readonly lines: readonly string[];
  /** tmux `#{pane_current_command}`. */
  readonly currentCommand: string;
  /** tmux `#{pane_in_mode}`: the pane shows copy mode, possibly scrolled back. */
  readonly inCopyMode: boolean;
  /** Seconds since the pane last produced output. */
  readonly idleSeconds: number;
  /** The clock and zones a usage-limit message's reset time is read with (usage-limit.ts);
   * without it no usage limit is recognised. */
  readonly limitContext?: UsageLimitContext | undefined;
}

export interface PaneStatusDecision {
  readonly status: PaneStatus;
  /** One short line naming the evidence. */
  readonly reason: string;
  /** Set when an agent CLI at the bottom says it hit a usage limit (status WAITING_INPUT). */
  readonly limit?: UsageLimit;
}

/** Output at most this many seconds old counts as "producing output now". */
export const RECENT_OUTPUT_SECONDS = 3;

export const SHELL_COMMANDS: readonly string[] = ['bash', 'zsh', 'sh', 'dash', 'fish', 'ksh', 'tcsh', 'csh', 'mksh', 'ash'];

/** How many non-empty lines from the bottom the agent CLI checks look at. */
const AGENT_WINDOW = 15;
/** Footers and menu hints sit on the last few non-empty lines. */
const FOOTER_WINDOW = 4;
/** Bracketed answers such as [y/N] count on the last few non-empty lines only. */
const PROMPT_WINDOW = 3;
const QUOTE_MAX = 60;

type Found = PaneStatusDecision;

const found = (status: PaneStatus, reason: string): Found => ({ status, reason });

function quote(text: string): string {
  const t = text.trim();
  return JSON.stringify(t.length > QUOTE_MAX ? `${t.slice(0, QUOTE_MAX - 1)}…` : t);
}

/** `-bash` (login shell) and `/usr/bin/python3` name the same commands as `bash` and `python3`. */
function commandName(raw: string): string {
  const trimmed = raw.trim().replace(/^-/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

function isShell(command: string): boolean {
  return SHELL_COMMANDS.includes(command.toLowerCase());
}

/** The last `count` non-empty lines, top to bottom, right-trimmed. */
function bottomLines(lines: readonly string[], count: number): string[] {
  const out: string[] = [];
  for (let i = lines.length - 1; i >= 0 && out.length < count; i -= 1) {
    const line = (lines[i] as string).trimEnd();
    if (line.trim() !== '') out.push(line);
  }
  return out.reverse();
}

function fromBottom(position: number): string {
  return position === 0 ? 'on the last line' : `${position + 1} lines from the bottom`;
}

// ---------------------------------------------------------------------------------
// a. Agent CLIs (Claude Code, Codex)

/** Hints that only a selection menu or dialog prints. */
const MENU_HINT = /\b(?:press enter to confirm or esc to cancel|enter to (?:select|submit|confirm))\b/i;
/** A numbered option with the selection cursor on it: `❯ 1. Yes`, `› 2. No`. */
const CURSOR_OPTION = /^[\s│┃|]*[❯›▶]\s*\d{1,2}[.)]\s+\S/;
/** Any numbered option line, with or without the cursor. */
const OPTION = /^[\s│┃|]*(?:[❯›▶]\s*)?\d{1,2}[.)]\s+\S/;
const QUESTION = /\?[\s│┃|]*$/;
const RULE = /^\s*[─━]{3,}\s*$/;
const SPINNER = /^\s*[✻✽✶✳✢✺✹✸✷✱✲✴✵⋆·*]\s+\S.*…\s*\((?:\d+h\s*)?(?:\d+m\s*)?\d+s\s*·/;
const IDLE_FOOTERS: readonly RegExp[] = [
  /\?\s+for shortcuts/i,
  /⏎\s*send\b/,
  /(?:ctrl|⌃)\s*\+?\s*j\s+newline/i,
  /\(shift\+tab to cycle\)/i,
];

function agentLabel(command: string, evidence: readonly string[]): string {
  const c = command.toLowerCase();
  if (c.includes('claude')) return 'claude code';
  if (c.includes('codex')) return 'codex';
  const text = evidence.join('\n');
  if (/[•›⏎⌃]/.test(text)) return 'codex';
  if (/[·❯⏵✻✽✶✳✢]/.test(text)) return 'claude code';
  return 'agent CLI';
}

/** `esc to interrupt` as the CLIs print it: inside a status parenthesis or after a `·`/`•` separator. */
function busyHint(line: string): boolean {
  const at = line.toLowerCase().indexOf('esc to interrupt');
  return at >= 0 && /[(·•]/.test(line.slice(0, at));
}

/** A numbered menu with the cursor on one option, another option next to it, and a question above or a cancel hint. */
function numberedMenu(bottom: readonly string[]): string | null {
  const footer = bottom.slice(-FOOTER_WINDOW).join('\n');
  for (let i = bottom.length - 1; i >= 0; i -= 1) {
    if (!CURSOR_OPTION.test(bottom[i] as string)) continue;
    const near = (j: number): boolean =>
      j >= 0 && j < bottom.length && OPTION.test(bottom[j] as string) && !RULE.test(bottom[(i + j) >> 1] as string);
    if (!(near(i - 1) || near(i + 1) || near(i - 2) || near(i + 2))) continue;
    for (let q = i - 1; q >= Math.max(0, i - 8); q -= 1) {
      const line = bottom[q] as string;
      if (QUESTION.test(line) && !OPTION.test(line)) return line.replace(/[\s│┃|]+$/, '').replace(/^[\s│┃|]+/, '');
    }
    if (/\besc to cancel\b/i.test(footer)) return (bottom[i] as string).replace(/^[\s│┃|]+/, '');
  }
  return null;
}

/** The agent's input box at the bottom: `❯` between two rules, or the older `│ >` box. */
function inputBoxAtBottom(bottom: readonly string[]): boolean {
  const start = Math.max(1, bottom.length - 6);
  for (let i = start; i < bottom.length; i += 1) {
    const line = bottom[i] as string;
    const above = bottom[i - 1] as string;
    const below = bottom.slice(i + 1, i + 4);
    if (/^\s*[❯>]/.test(line) && RULE.test(above) && below.some((l) => RULE.test(l))) return true;
    if (/^\s*│\s*>/.test(line) && /^\s*╭─/.test(above) && below.some((l) => /^\s*╰─/.test(l))) return true;
  }
  return false;
}

function agentEvidence(bottom: readonly string[], command: string): Found | null {
  const footer = bottom.slice(-FOOTER_WINDOW);
  for (let i = footer.length - 1; i >= 0; i -= 1) {
    const hint = MENU_HINT.exec(footer[i] as string);
    if (hint !== null) return found('WAITING_INPUT', `${agentLabel(command, bottom)} menu ${quote(hint[0])}`);
  }
  const question = numberedMenu(bottom);
  if (question !== null) return found('WAITING_INPUT', `${agentLabel(command, bottom)} approval menu ${quote(question)}`);

  for (let i = bottom.length - 1; i >= 0; i -= 1) {
    const line = bottom[i] as string;
    if (busyHint(line)) return found('RUNNING', `${agentLabel(command, [line])} busy footer "esc to interrupt"`);
    if (SPINNER.test(line)) return found('RUNNING', `${agentLabel(command, [line])} busy spinner ${quote(line)}`);
  }

  for (let i = footer.length - 1; i >= 0; i -= 1) {
    const line = footer[i] as string;
    for (const pattern of IDLE_FOOTERS) {
      const m = pattern.exec(line);
      if (m !== null) return found('IDLE', `${agentLabel(command, bottom)} idle footer ${quote(m[0])}`);
    }
  }
  if (inputBoxAtBottom(bottom)) return found('IDLE', `${agentLabel(command, bottom)} input box at the bottom`);
  return null;
}

// ---------------------------------------------------------------------------------
// b. Interactive prompts

/** `[y/N]`, `[Y/n]`, `(y/n)`, `(yes/no)`, `(yes/no/[fingerprint])`, dnf's `[y/d/N]`. */
const YES_NO = /[[(](?:y|yes|n|no)(?:\/\[?[a-z]{1,12}\]?){1,4}[\])]/i;
/** Programs whose `-i` questions end in `?` with nothing else to mark them (coreutils). */
const ASKING_COMMANDS = /^(?:rm|cp|mv|ln|rmdir|install|shred|unlink)$/;
/** A prompt for a secret on the very last line: sudo's `[sudo] password for alice:`, ssh's
 * `alice@host's password:`, `Enter passphrase for key '…':`, git's `Password for '…':`,
 * PAM's one-time codes (`Verification code:`, Duo's `Passcode or option (1-3):`). An agent
 * may not type these (the guard refuses sudo and ssh anyway); the pane is WAITING_HUMAN. */
const SECRET_PROMPT =
  /\b(?:password|passphrase|passcode|pin|verification code|one-time (?:password|code|pin)|otp|2fa code|authenticator code|security code|token code)\b(?:[^:'\n]|'[^'\n]{0,80}'){0,80}:$/i;

/** Prompts that only count on the very last line, where the cursor waits for the answer. */
const LAST_LINE_PROMPTS: readonly RegExp[] = [
  // git's credential prompt: `Username for 'https://github.com':`.
  /\b(?:username|user name|login)\b(?:[^:'\n]|'[^'\n]{0,80}'){0,80}:$/i,
  /\b(?:press|hit)\s+\[?(?:enter|return|any key|a key)\b/i,
  /\b(?:continue|proceed|are you sure)\b[^\n]{0,80}\?$/i,
  // coreutils -i: `rm: remove regular file 'x'?`, `cp: overwrite 'b'?`, `mv: replace 'c', overriding mode 0444?`.
  /^[\w./-]+: (?:remove|overwrite|replace|descend into|unlink)\b[^\n]*\?$/,
  // npx: `Ok to proceed? (y)`.
  /\?\s*\(y\)$/i,
  // git add -p: `Stage this hunk [y,n,q,a,d,e,?]?`.
  /\[(?:[a-z?/],){2,}[a-z?/]\]\??$/i,
  // unzip: `replace a.txt? [y]es, [n]o, [A]ll, [N]one, [r]ename:`.
  /\[y\]es, \[n\]o\b/i,
  // ssh-keygen `Enter file in which to save the key (...):`, terraform `Enter a value:`.
  /^\s*enter\b[^\n]{0,100}:$/i,
  // Inquirer-style pickers: `? Which framework? (Use arrow keys)`.
  /\(use arrow keys\)$/i,
];
/** A yes/no marker with no answer typed after it (`Continue? [y/N] y` was answered). */
function unansweredYesNo(line: string): string | null {
  const m = YES_NO.exec(line);
  if (m === null) return null;
  const after = line.slice(m.index + m[0].length);
  return /^[\s:?>]*$/.test(after) ? m[0] : null;
}

function lastLinePrompt(line: string, command: string): string | null {
  const yesNo = unansweredYesNo(line);
  if (yesNo !== null) return yesNo;
  const text = line.trim();
  if (ASKING_COMMANDS.test(command) && text.endsWith('?')) return text;
  for (const pattern of LAST_LINE_PROMPTS) {
    const m = pattern.exec(line.trimEnd());
    if (m !== null) return m[0];
  }
  return null;
}

// ---------------------------------------------------------------------------------
// c. Shell and REPL prompts

interface ReplPrompt {
  readonly prompt: RegExp;
  /** When set, the prompt only counts with one of these foreground commands. */
  readonly commands?: RegExp;
  /** The REPL's name when the prompt itself says which REPL it is. */
  readonly name?: string;
}

const PYTHON = /^(?:python[\d.]*|pypy[\d.]*|ipython[\d.]*)$/i;
const REPL_PROMPTS: readonly ReplPrompt[] = [
  { prompt: /^>>>$/ },
  { prompt: /^\.\.\.$/, commands: PYTHON },
  { prompt: /^In \[\d+\]:$/, name: 'ipython' },
  { prompt: /^irb\([^()]*\):\d+:\d+[>*"']$/, name: 'irb' },
  { prompt: /^>$/, commands: /^(?:node|nodejs|deno|bun)$/ },
  { prompt: /^(?:sqlite|mysql|MariaDB \[[^\]]*\])>$/ },
  { prompt: /^[\w-]+[=-][#>]$/, commands: /^psql$/ },
  { prompt: /^\((?:gdb|Pdb|lldb)\)$/ },
];
const SHELL_PROMPT_END = /[$#%>❯]$/;

function idlePromptAtBottom(last: string, command: string, shell: boolean): Found | null {
  if (shell) return SHELL_PROMPT_END.test(last) ? found('IDLE', `${command} prompt at the bottom`) : null;
  const text = last.trim();
  for (const repl of REPL_PROMPTS) {
    if (!repl.prompt.test(text)) continue;
    if (repl.commands !== undefined && !repl.commands.test(command)) continue;
    return found('IDLE', `${repl.name ?? (command || 'unknown')} REPL prompt ${quote(text)} at the bottom`);
  }
  return null;
}

// ---------------------------------------------------------------------------------

/** What the screen alone says, or null when it says nothing reliable. */
function screenEvidence(bottom: readonly string[], command: string, shell: boolean): Found | null {
  if (!shell) {
    const agent = agentEvidence(bottom, command);
    if (agent !== null) return agent;
  }
  const last = bottom.at(-1);
  if (last === undefined) return null;
  const secret = SECRET_PROMPT.exec(last.trimEnd());
  // A shell holding the terminal under a password prompt is its own builtin (`read -s`, a
  // script): anyone who may type there could have printed it, and the secret entry
  // refuses it (policy/credential-reader.ts). Only another program's prompt is a person's.
  if (secret !== null && shell) return found('WAITING_INPUT', `prompt ${quote(secret[0])} ${fromBottom(0)} read by the shell itself (${command}), not by a credential program`);
  if (secret !== null) return found('WAITING_HUMAN', `secret prompt ${quote(secret[0])} ${fromBottom(0)}: a person answers it (terminal_request_human)`);
  const onLast = lastLinePrompt(last, command);
  if (onLast !== null) return found('WAITING_INPUT', `prompt ${quote(onLast)} ${fromBottom(0)}`);
  // A shell or REPL prompt below an older question means the question was answered.
  const idle = idlePromptAtBottom(last, command, shell);
  if (idle !== null) return idle;
  const prompts = bottom.slice(-PROMPT_WINDOW);
  for (let position = 1; position < prompts.length; position += 1) {
    const marker = unansweredYesNo(prompts[prompts.length - 1 - position] as string);
    if (marker !== null) return found('WAITING_INPUT', `prompt ${quote(marker)} ${fromBottom(position)}`);
  }
  return null;
}

/**
 * Classify a pane from its screen and tmux facts. Evidence in order:
 * a. (non-shell foreground) agent CLI menus => WAITING_INPUT, busy footers => RUNNING,
 *    idle footers or input box => IDLE;
 * b. a password, passphrase or one-time-code prompt on the last line => WAITING_HUMAN,
 *    unless a shell holds the terminal (its own `read -s`: WAITING_INPUT);
 *    another interactive prompt on the last line ([y/N], (Y/n), Username for ...:,
 *    Press Enter, Continue?, git's [y,n,q,...]?, npx's (y), or any `?` question from a
 *    coreutils -i program in the foreground) => WAITING_INPUT, however recent the output;
 *    => WAITING_INPUT;
 * c. a shell prompt (shell in the foreground) or a REPL prompt on the last line => IDLE;
 *    otherwise an unanswered [y/N]-style marker 2-3 lines up => WAITING_INPUT;
 * d. a non-shell foreground command that wrote within RECENT_OUTPUT_SECONDS => RUNNING;
 *    anything else => UNKNOWN.
 * In copy mode the screen may be scrolled back, so screen evidence is only reported in
 * the reason; the status is RUNNING on recent output, else UNKNOWN.
 */
export function classifyPaneStatus(e: PaneEvidence): PaneStatusDecision {
  const command = commandName(e.currentCommand);
  const shell = isShell(command);
  const bottom = bottomLines(e.lines, AGENT_WINDOW);
  const age = Number.isFinite(e.idleSeconds) ? Math.max(0, Math.floor(e.idleSeconds)) : null;
  const writing = command !== '' && !shell && age !== null && age <= RECENT_OUTPUT_SECONDS;

  if (e.inCopyMode) {
    if (writing) return found('RUNNING', `pane in copy mode; ${command} produced output ${age}s ago`);
    const screen = screenEvidence(bottom, command, shell);
    return found('UNKNOWN', `pane in copy mode, screen may be scrolled${screen === null ? '' : `; it shows ${screen.reason}`}`);
  }

  // Before the agents' footers: at its limit Claude Code shows its idle input box under the
  // message, and the pane waits for the reset, not for the next task. WAITING_INPUT rather
  // than a status of its own: the agent waits for an input (the resume text, after the
  // reset), and every client that already handles WAITING_INPUT keeps working.
  if (!shell && e.limitContext !== undefined) {
    const limit = findUsageLimit(e.lines, e.limitContext);
    if (limit !== null) {
      const zone = limit.zoneSource === 'message' ? `${limit.zone}, from the message` : `${limit.zone}, the ${limit.zoneSource}'s zone`;
      return { status: 'WAITING_INPUT', reason: `usage limit: ${limit.program} ${limit.kind} limit, resets ${new Date(limit.resetsAt).toISOString()} (${zone})`, limit };
    }
  }

  const screen = screenEvidence(bottom, command, shell);
  if (screen !== null) return screen;

  if (command === '') return found('UNKNOWN', 'foreground command unknown and no prompt recognised');
  if (writing) return found('RUNNING', `${command} produced output ${age}s ago`);
  if (bottom.length === 0) return found('UNKNOWN', `pane is empty, ${command} in the foreground`);
  if (shell) return found('UNKNOWN', `${command} in the foreground, no prompt recognised at the bottom`);
  if (age === null) return found('UNKNOWN', `${command} in the foreground, output age unknown`);
  return found('UNKNOWN', `${command} in the foreground, no output for ${age}s`);
}
