/**
 * May this input go to this pane? Pure: a function of (input policy, facts about the
 * target read from tmux at the moment of asking, the request). Every refusal carries the
 * contract error code the caller sees and the audit log records.
 *
 * Gates, in order (the first refusal wins):
 *  1. INPUT_DISABLED     permissions.terminal_input off; the binding's input flag off;
 *                        text while input_policy.allow_send_text is off.
 *  2. INPUT_NOT_ALLOWED  a denied pattern matches (deny wins over everything); a sensitive
 *                        name not listed literally in allowed_session_patterns; a session
 *                        the caller may not read (no blind input); a name neither the
 *                        allowed patterns nor an operator grant admits.
 *  3. COMMAND_GUARDED    a guarded command (ssh, sudo, psql, tmux, ...) runs anywhere in
 *                        the pane's process tree (policy/foreground.ts: every process
 *                        under its executable, kernel and argv[0] names, not only tmux's
 *                        foreground command) and no guarded_command_allow entry names this
 *                        session and command; also when the tree could not be read.
 *     FOREGROUND_NOT_ALLOWED  input_policy.allowed_foreground_commands is set and does not
 *                        list the program holding the terminal (a shell, say).
 *  4. PANE_IN_COPY_MODE  nothing is typed into copy mode; the only key accepted there is
 *                        `q`, which leaves it.
 *  5. TEXT_TOO_LONG      longer than max_text_length characters (code points, after
 *                        `\r\n` became `\n`).
 *  6. TEXT_REJECTED      a control character other than `\n` and `\t`, or a lone UTF-16
 *                        surrogate: refused, never stripped, naming the character and its
 *                        position. tmux 3.3a does not sanitize pasted text, so an
 *                        `ESC[201~` would end a bracketed paste and the rest would run as
 *                        typed keys.
 *  7. KEY_NOT_ALLOWED    a key outside ALLOWED_KEYS.
 *  8. CONFIRMATION_REQUIRED  C-c or C-d without confirm_sensitive: true.
 *
 * The dashboard's secret entry (kind `secret`) skips the guarded-command and foreground
 * gates but must be read by a credential program (policy/credential-reader.ts), else
 * NOT_A_CREDENTIAL_PROMPT.
 *
 * A command for terminal_run (kind `command`) passes gates 1-6 as text (a newline is
 * refused: it is one command line), then two of its own: the pane's foreground program
 * must be a shell listed in input_policy.run_allowed_shells (else FOREGROUND_NOT_ALLOWED,
 * with terminal_send_task as the way to type into anything else), and the command line,
 * as the bash grammar parses it, may not run a guarded command nor anything its parse
 * cannot name (COMMAND_GUARDED, policy/guarded-command-text.ts; the same list and
 * per-session allowances as the process tree: `ssh host`, `env ssh host` and `${a}h host`
 * are refused before they start). Text sent with Enter to a shell at its prompt
 * (`submit`) is judged the same way.
 *
 * `grant` is the operator's dashboard grant for this session, already checked for
 * identity and expiry by the caller: an input grant admits a name the allowed patterns do
 * not, but never past the global switch, a deny pattern, the sensitive-name rule or the
 * per-call gates.
 */
import { ALLOWED_KEYS, COPY_MODE_EXIT_KEY, SENSITIVE_KEYS, type AllowedKey } from '@terminal-mcp/contract';
import { isSensitiveName, matchesAny } from './access.js';
import { DEFAULT_CREDENTIAL_PROGRAMS, judgeCredentialReader, type TerminalReadFacts } from './credential-reader.js';
import { judgeGuardedCommandText } from './guarded-command-text.js';
import type { ShellParse } from './shell-review.js';
import { commandName, firstGuardedCommand, foregroundAdmitted, foregroundLeader, nameIs, summarizeForeground, type PaneProcessFacts } from './foreground.js';

/** What an operator may not type into by default: programs holding credentials, another
 * machine's shell or a cloud/cluster control plane, where a stray line does the most harm;
 * and tmux itself, whose client reaches every session on the server. */
export const DEFAULT_GUARDED_COMMANDS: readonly string[] = [
  'ssh',
  'mosh',
  'telnet',
  'sftp',
  'sudo',
  'su',
  'doas',
  'pkexec',
  'passwd',
  'mysql',
  'mariadb',
  'psql',
  'mongo',
  'mongosh',
  'redis-cli',
  'docker',
  'kubectl',
  'gcloud',
  'aws',
  'az',
  'tmux',
];

export interface InputPolicy {
  /** permissions.terminal_input: the master switch. */
  readonly terminalInput: boolean;
  readonly allowSendText: boolean;
  readonly allowedPatterns: readonly string[];
  readonly deniedPatterns: readonly string[];
  readonly maxTextLength: number;
  readonly guardedCommands: readonly string[];
  readonly guardedCommandAllow: readonly { readonly session: string; readonly commands: readonly string[] }[];
  /** input_policy.allowed_foreground_commands; null: any foreground program. */
  readonly allowedForegroundCommands: readonly string[] | null;
  /** input_policy.run_allowed_shells: the shells terminal_run types into. */
  readonly runAllowedShells: readonly string[];
  /** human_input.credential_programs: what the secret entry may answer
   * (policy/credential-reader.ts); absent: the default list. */
  readonly credentialPrograms?: readonly string[];
  /** input_policy.allow_invisible_characters: bidirectional overrides and zero-width
   * characters pass in text (absent: refused). */
  readonly allowInvisibleCharacters?: boolean;
  /** human_input.confirm_program: a secret goes only to the process the operator confirmed. */
  readonly confirmCredentialReader?: boolean;
}

export interface InputTargetFacts {
  readonly sessionName: string;
  /** The read gate admits this session for this caller. */
  readonly readable: boolean;
  /** tmux `#{pane_current_command}` of the target pane, read now. */
  readonly currentCommand: string;
  /** The pane's process tree, read now (or tmux's command alone where there is no /proc). */
  readonly processes: PaneProcessFacts;
  readonly inCopyMode: boolean;
  /** Present when the call came through a binding. */
  readonly binding?: { readonly name: string; readonly inputEnabled: boolean } | null;
  /** The operator's effective dashboard grant, if any. */
  readonly grant?: { readonly input: boolean } | null;
}

/** What the attempt hands the decision about the shell the text is typed into: the loaded
 * bash grammar (effects/shell-syntax/bash-parser.ts; null when it could not be loaded) and
 * the shell integration's state of the shell with this pid (effects/tmux/shell-integration.ts:
 * `running` while a command it started runs, e.g. a `read`; null: no integration). */
export interface ShellFacts {
  readonly parse: ShellParse | null;
  readonly stateOf?: (shellPid: number | null) => 'prompt' | 'running' | null;
}

export type InputRequest =
  /** `submit`: Enter is pressed after the text (terminal_send_text `enter: true`). */
  | { readonly kind: 'text'; readonly text: string; readonly submit?: boolean; readonly shell?: ShellFacts }
  | { readonly kind: 'keys'; readonly keys: readonly string[]; readonly confirmSensitive: boolean }
  /** One command line for terminal_run, typed at a shell prompt. */
  | { readonly kind: 'command'; readonly text: string; readonly shell?: ShellFacts }
  /** The operator's answer to a password / passphrase / one-time-code prompt, from the
   * dashboard's secret entry (input/secret-entry.ts). Passes the guarded-command and
   * foreground gates: they exist to keep agents out of credentials, and this is the person
   * typing one. Who may send it is decided by the input authorization (input/authorize.ts:
   * a signed-in operator on web.sock who re-authenticated at `reauthenticatedAt`), never
   * here. One line, Enter is pressed after it. */
  | {
      readonly kind: 'secret';
      readonly text: string;
      readonly reauthenticatedAt: number | null;
      readonly terminal?: TerminalReadFacts;
      /** The reading program the operator confirmed on the page (human_input.confirm_program). */
      readonly confirmedReader?: { readonly pid: number; readonly exePath: string | null };
    };

export type InputRefusalCode =
  | 'INPUT_DISABLED'
  | 'INPUT_NOT_ALLOWED'
  | 'COMMAND_GUARDED'
  | 'FOREGROUND_NOT_ALLOWED'
  | 'PANE_IN_COPY_MODE'
  | 'TEXT_TOO_LONG'
  | 'TEXT_REJECTED'
  | 'KEY_NOT_ALLOWED'
  | 'CONFIRMATION_REQUIRED'
  | 'NOT_A_CREDENTIAL_PROMPT';

export interface InputRefusal {
  readonly allowed: false;
  readonly code: InputRefusalCode;
  /** One line, safe to show the caller: never pane content. */
  readonly message: string;
}

export type InputDecision =
  | { readonly allowed: true; readonly action: 'paste_text'; readonly text: string; readonly crlfNormalized: boolean }
  | { readonly allowed: true; readonly action: 'press_keys'; readonly keys: readonly AllowedKey[] }
  | { readonly allowed: true; readonly action: 'exit_copy_mode' }
  /** `shell`: the allowed shell holding the terminal, by the name that admitted it. */
  | { readonly allowed: true; readonly action: 'run_command'; readonly text: string; readonly shell: string; readonly shellPid: number | null }
  | InputRefusal;

const refuse = (code: InputRefusalCode, message: string): InputRefusal => ({ allowed: false, code, message });

/** `\r\n` becomes `\n` (what a Windows clipboard gives); a lone `\r` stays and is refused. */
export function normalizeNewlines(text: string): { text: string; crlfNormalized: boolean } {
  if (!text.includes('\r\n')) return { text, crlfNormalized: false };
  return { text: text.replaceAll('\r\n', '\n'), crlfNormalized: true };
}

const C0_NAMES = [
  'NUL', 'SOH', 'STX', 'ETX', 'EOT', 'ENQ', 'ACK', 'BEL', 'BS', 'HT', 'LF', 'VT', 'FF', 'CR', 'SO', 'SI',
  'DLE', 'DC1', 'DC2', 'DC3', 'DC4', 'NAK', 'SYN', 'ETB', 'CAN', 'EM', 'SUB', 'ESC', 'FS', 'GS', 'RS', 'US',
];

function codePointLabel(cp: number): string {
  const hex = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  if (cp < 0x20) return `${hex} (${C0_NAMES[cp]})`;
  if (cp === 0x7f) return `${hex} (DEL)`;
  if (cp >= 0x80 && cp <= 0x9f) return `${hex} (C1 control)`;
  return `${hex} (lone surrogate)`;
}

/** The first character that may not be sent: its 1-based position (in characters) and
 * code point; null when the text is clean. */
export function findRejectedCharacter(text: string): { position: number; codePoint: number } | null {
  let position = 0;
  for (const ch of text) {
    position += 1;
    const cp = ch.codePointAt(0) as number;
    const control = (cp < 0x20 && cp !== 0x0a && cp !== 0x09) || cp === 0x7f || (cp >= 0x80 && cp <= 0x9f);
    // for..of yields a lone surrogate as one unit: it has no UTF-8 encoding.
    const loneSurrogate = cp >= 0xd800 && cp <= 0xdfff;
    if (control || loneSurrogate) return { position, codePoint: cp };
  }
  return null;
}

/** Characters that change how text looks without being seen: bidirectional embeddings,
 * overrides and isolates (U+202A-U+202E, U+2066-U+2069, the marks U+200E/U+200F, U+061C) and
 * zero-width ones (U+200B-U+200D, U+2060-U+2064, U+FEFF, U+180E). A reviewer or the
 * operator reading the audit preview sees `rm -rf ‮/` differently from what runs. */
const INVISIBLE = /[\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/u;

/** The first invisible character: its 1-based position (in characters) and code point. */
export function findInvisibleCharacter(text: string): { position: number; codePoint: number } | null {
  let position = 0;
  for (const ch of text) {
    position += 1;
    if (INVISIBLE.test(ch)) return { position, codePoint: ch.codePointAt(0) as number };
  }
  return null;
}

const hexOf = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;

function refuseInvisible(policy: InputPolicy, text: string): InputRefusal | null {
  if (policy.allowInvisibleCharacters === true) return null;
  const hidden = findInvisibleCharacter(text);
  if (hidden === null) return null;
  return refuse(
    'TEXT_REJECTED',
    `character ${hidden.position} is ${hexOf(hidden.codePoint)}, a bidirectional or zero-width character that hides what the text says; the operator can allow them with input_policy.allow_invisible_characters; nothing was sent`,
  );
}

export function countCharacters(text: string): number {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
}

const KEY_SET: ReadonlySet<string> = new Set(ALLOWED_KEYS);
const SENSITIVE_KEY_SET: ReadonlySet<string> = new Set(SENSITIVE_KEYS);

/** Shown in messages: the caller's own key string, quoted and cut, controls escaped by JSON. */
function quoteKey(key: string): string {
  return JSON.stringify(key.length > 32 ? `${key.slice(0, 32)}…` : key);
}

/**
 * The gates no fact about the live session (and no grant) can change: the switches, the
 * binding's flag, deny patterns and the sensitive-name rule. A caller can run these on a
 * bare name before asking tmux anything.
 */
export function decideInputByName(
  policy: InputPolicy,
  name: string,
  binding: InputTargetFacts['binding'],
  kind: InputRequest['kind'],
): InputRefusal | null {
  if (!policy.terminalInput) return refuse('INPUT_DISABLED', 'input is turned off on this host (permissions.terminal_input)');
  if (binding && !binding.inputEnabled) {
    return refuse('INPUT_DISABLED', `input is not enabled for binding ${JSON.stringify(binding.name)}: rebind it with input_enabled: true`);
  }
  if ((kind === 'text' || kind === 'command' || kind === 'secret') && !policy.allowSendText) {
    return refuse('INPUT_DISABLED', 'sending text is turned off (input_policy.allow_send_text); allowlisted keys still work');
  }
  if (policy.deniedPatterns.includes(name) || matchesAny(policy.deniedPatterns, name)) {
    return refuse('INPUT_NOT_ALLOWED', 'input to this session is denied by input_policy.denied_session_patterns');
  }
  if (isSensitiveName(name) && !policy.allowedPatterns.includes(name)) {
    return refuse('INPUT_NOT_ALLOWED', 'sessions with sensitive names take input only when listed literally in input_policy.allowed_session_patterns');
  }
  return null;
}

/** Gates 1-3: whether this target takes input at all, whatever is sent. */
export function decideInputTarget(policy: InputPolicy, facts: InputTargetFacts, kind: InputRequest['kind']): InputRefusal | null {
  const name = facts.sessionName;
  const byName = decideInputByName(policy, name, facts.binding, kind);
  if (byName) return byName;
  const literal = policy.allowedPatterns.includes(name);
  if (!facts.readable) return refuse('INPUT_NOT_ALLOWED', 'input goes only to sessions this caller may read');
  if (!literal && !matchesAny(policy.allowedPatterns, name) && facts.grant?.input !== true) {
    return refuse('INPUT_NOT_ALLOWED', 'input to this session is not allowed by input_policy.allowed_session_patterns');
  }
  const processes = facts.processes;
  // The operator answering a secret prompt: the guard and the foreground list keep agents
  // out of sudo/ssh prompts, not the person (who is allowed to this pane by the gates above).
  if (kind === 'secret') return null;
  if (processes.source === 'unreadable') {
    return refuse('COMMAND_GUARDED', `the pane's processes could not be inspected (${processes.reason}), so a guarded command cannot be ruled out`);
  }
  const allowedHere = policy.guardedCommandAllow.filter((entry) => entry.session === name).flatMap((entry) => entry.commands);
  const guarded =
    firstGuardedCommand({ source: 'tmux', command: facts.currentCommand }, policy.guardedCommands, allowedHere) ??
    firstGuardedCommand(processes, policy.guardedCommands, allowedHere);
  if (guarded !== null) {
    return refuse('COMMAND_GUARDED', `the pane is running ${JSON.stringify(guarded)} (in its foreground or below it), a guarded command; input_policy.guarded_command_allow can allow it for this session`);
  }
  const allowedForeground = policy.allowedForegroundCommands;
  if (allowedForeground !== null && !foregroundAdmitted(processes, allowedForeground)) {
    const { program, isShell } = summarizeForeground(processes);
    const what = program === null ? 'no known program' : `${JSON.stringify(program)}${isShell ? ' (a shell)' : ''}`;
    return refuse('FOREGROUND_NOT_ALLOWED', `the pane's foreground program is ${what}, which input_policy.allowed_foreground_commands does not list`);
  }
  return null;
}

/** All gates, in order. On success, says exactly what to deliver. */
export function decideInput(policy: InputPolicy, facts: InputTargetFacts, request: InputRequest): InputDecision {
  const target = decideInputTarget(policy, facts, request.kind);
  if (target) return target;

  if (facts.inCopyMode) {
    if (request.kind === 'keys' && request.keys.length === 1 && request.keys[0] === COPY_MODE_EXIT_KEY) {
      return { allowed: true, action: 'exit_copy_mode' };
    }
    return refuse('PANE_IN_COPY_MODE', 'the pane is in copy mode, so nothing is typed: press q in it or call terminal_send_keys with keys ["q"], then retry');
  }

  // No type-ahead: while nothing in the foreground waits for input (a command runs, as in
  // `sleep 5; read -s pw`), typed text would wait in the terminal for whatever reads it
  // next, which the gates above never saw. C-c alone still goes through: it interrupts
  // and is never queued for a reader.
  const interruptOnly = request.kind === 'keys' && request.keys.length === 1 && request.keys[0] === 'C-c';
  if (!interruptOnly && facts.processes.source === 'proc' && facts.processes.inputWait === 'busy') {
    return refuse(
      'FOREGROUND_NOT_ALLOWED',
      "nothing in the pane's foreground is waiting for input (a command is running), so typed input would wait for whatever reads next: retry when the program asks for input",
    );
  }

  if (request.kind === 'command') return decideCommand(policy, facts, request.text, request.shell?.parse ?? null);

  if (request.kind === 'secret') {
    // The answer goes only to a credential program identified by its executable, never to
    // whatever printed a password prompt (a shell's `read -s` an agent typed).
    const reader = judgeCredentialReader(facts.processes, policy.credentialPrograms ?? DEFAULT_CREDENTIAL_PROGRAMS, request.terminal);
    if (!reader.admitted) return refuse('NOT_A_CREDENTIAL_PROMPT', `the program waiting in the pane is not a credential program: ${reader.reason}; nothing was typed`);
    if (policy.confirmCredentialReader === true) {
      // The operator confirmed a process by pid and executable on the page: any other one
      // (the prompt ended and another began, a pid reused) is not what they agreed to.
      const waiting = reader.readers[0];
      const confirmed = request.confirmedReader;
      if (confirmed === undefined) return refuse('NOT_A_CREDENTIAL_PROMPT', 'human_input.confirm_program is on: confirm on the page the program that reads the answer, then send it; nothing was typed');
      if (waiting === undefined || waiting.pid !== confirmed.pid || waiting.exePath !== confirmed.exePath) {
        return refuse('NOT_A_CREDENTIAL_PROMPT', `the program reading the answer is ${JSON.stringify(waiting?.exePath ?? waiting?.name ?? 'unknown')} (pid ${waiting?.pid ?? '?'}), not the one confirmed (pid ${confirmed.pid}); nothing was typed`);
      }
    }
    const length = countCharacters(request.text);
    if (length > policy.maxTextLength) return refuse('TEXT_TOO_LONG', `the answer has ${length} characters; at most ${policy.maxTextLength} may be sent at once`);
    // Positions only, never the character itself: this text is a secret.
    if (request.text.includes('\n') || request.text.includes('\r')) return refuse('TEXT_REJECTED', 'a secret is one line (Enter is pressed after it); nothing was sent');
    const bad = findRejectedCharacter(request.text);
    if (bad) return refuse('TEXT_REJECTED', `character ${bad.position} is a control character: only printable text may be sent; nothing was sent`);
    return { allowed: true, action: 'paste_text', text: request.text, crlfNormalized: false };
  }

  if (request.kind === 'text') {
    const { text, crlfNormalized } = normalizeNewlines(request.text);
    const length = countCharacters(text);
    if (length > policy.maxTextLength) {
      return refuse('TEXT_TOO_LONG', `the text has ${length} characters; at most ${policy.maxTextLength} may be sent at once`);
    }
    const bad = findRejectedCharacter(text);
    if (bad) {
      return refuse(
        'TEXT_REJECTED',
        `character ${bad.position} is ${codePointLabel(bad.codePoint)}: only printable text, newline and tab may be sent (\\r\\n is accepted as a newline); nothing was sent`,
      );
    }
    const hidden = refuseInvisible(policy, text);
    if (hidden) return hidden;
    // Text typed and submitted at a shell's prompt is a command line: judged like
    // terminal_run's (a shell busy with a command, or one whose integration says a command
    // it started is reading, e.g. `read`, gets an answer, not a command).
    const shell = request.submit === true ? runShellOf(facts.processes, policy.runAllowedShells) : null;
    if (shell !== null && !shell.busy && request.shell?.stateOf?.(shell.pid) !== 'running') {
      const guarded = refuseGuardedText(policy, facts, text, request.shell?.parse ?? null, 'text submitted at the shell prompt');
      if (guarded) return guarded;
    }
    return { allowed: true, action: 'paste_text', text, crlfNormalized };
  }

  const keys: AllowedKey[] = [];
  for (const key of request.keys) {
    if (!KEY_SET.has(key)) {
      const why = key === COPY_MODE_EXIT_KEY ? ' (q is accepted only while the pane is in copy mode)' : '';
      return refuse('KEY_NOT_ALLOWED', `key ${quoteKey(key)} is not on the allowlist${why}`);
    }
    // The name we send is the allowlist's own constant, never the caller's string.
    keys.push(ALLOWED_KEYS[ALLOWED_KEYS.indexOf(key as AllowedKey)] as AllowedKey);
  }
  const sensitive = keys.find((k) => SENSITIVE_KEY_SET.has(k));
  if (sensitive && !request.confirmSensitive) {
    return refuse('CONFIRMATION_REQUIRED', `${sensitive} interrupts or ends the running program: call again with confirm_sensitive: true if that is intended`);
  }
  return { allowed: true, action: 'press_keys', keys };
}

/** The allowed shell holding the pane's terminal, by the name that admits it (executable
 * or kernel name; argv[0] alone never admits); null when the foreground is anything else.
 * `busy`: a process of the foreground group runs under it (a subshell running a command
 * leads the group too), so the shell is not reading a command line. */
export function runShellOf(facts: PaneProcessFacts, allowed: readonly string[]): { name: string; pid: number | null; busy: boolean } | null {
  let names: string[];
  let pid: number | null = null;
  let busy = false;
  if (facts.source === 'unreadable') return null;
  if (facts.source === 'tmux') names = [commandName(facts.command)];
  else {
    const leader = foregroundLeader(facts.processes, facts.foregroundGroup);
    if (!leader) return null;
    pid = leader.pid;
    busy = facts.processes.some((p) => p.foreground && p.ppid === leader.pid);
    names = [leader.exe, leader.comm].filter((n): n is string => n !== null).map(commandName);
  }
  const name = names.find((n) => allowed.some((a) => nameIs(n, a)));
  return name === undefined ? null : { name, pid, busy };
}

function decideCommand(policy: InputPolicy, facts: InputTargetFacts, raw: string, parse: ShellParse | null): InputDecision {
  const shell = runShellOf(facts.processes, policy.runAllowedShells);
  if (shell === null) {
    const { program } = summarizeForeground(facts.processes);
    const what = program === null ? 'no known program' : JSON.stringify(program);
    return refuse(
      'FOREGROUND_NOT_ALLOWED',
      `terminal_run types only at the prompt of a shell in input_policy.run_allowed_shells (${policy.runAllowedShells.join(', ') || 'none'}); the foreground is ${what}: use terminal_send_task to type into it`,
    );
  }
  if (shell.busy) {
    return refuse('FOREGROUND_NOT_ALLOWED', `the ${shell.name} in the foreground is running a command, not waiting at its prompt: wait for it (terminal_wait_for_state), or use terminal_send_task to type into what runs`);
  }
  const { text } = normalizeNewlines(raw);
  const length = countCharacters(text);
  if (length > policy.maxTextLength) return refuse('TEXT_TOO_LONG', `the command has ${length} characters; at most ${policy.maxTextLength} may be sent at once`);
  const newline = text.indexOf('\n');
  if (newline >= 0) {
    return refuse('TEXT_REJECTED', 'terminal_run takes one command line: join commands with ; or && (a newline would start a second command outside the wrapper); nothing was sent');
  }
  const bad = findRejectedCharacter(text);
  if (bad) return refuse('TEXT_REJECTED', `character ${bad.position} is ${codePointLabel(bad.codePoint)}: only printable text and tab may be sent; nothing was sent`);
  const hidden = refuseInvisible(policy, text);
  if (hidden) return hidden;
  const guarded = refuseGuardedText(policy, facts, text, parse, 'the command');
  if (guarded) return guarded;
  return { allowed: true, action: 'run_command', text, shell: shell.name, shellPid: shell.pid };
}

/**
 * COMMAND_GUARDED when the command line runs a guarded command, or runs something its parse
 * cannot name (policy/guarded-command-text.ts): a name computed at run time, eval of
 * computed text, a shell fed from a pipe, history expansion. Unjudged is refused, never
 * passed: the guarded list is only worth its name if an unreadable spelling cannot walk
 * past it. `parse` null: the grammar could not be loaded, and nothing is judged harmless.
 */
function refuseGuardedText(policy: InputPolicy, facts: InputTargetFacts, text: string, parse: ShellParse | null, what: string): InputRefusal | null {
  const allowHint = 'input_policy.guarded_command_allow can allow it for this session';
  if (parse === null) return refuse('COMMAND_GUARDED', `${what} cannot be judged: the bash grammar could not be loaded, so it is not typed (see the broker log)`);
  const allowedHere = policy.guardedCommandAllow.filter((entry) => entry.session === facts.sessionName).flatMap((entry) => entry.commands);
  const verdict = judgeGuardedCommandText(parse, text, policy.guardedCommands, allowedHere);
  if (verdict.kind === 'guarded') return refuse('COMMAND_GUARDED', `${what} runs ${JSON.stringify(verdict.command)}, a guarded command; ${allowHint}`);
  if (verdict.kind === 'unjudged') return refuse('COMMAND_GUARDED', `${what} cannot be checked for guarded commands (${verdict.reason}), so it counts as one: spell the program's name out`);
  return null;
}
