/**
 * Delivers input to a pane. Security assumptions, each enforced here:
 * - Text is BYTES, never argv: `load-buffer -b <unique name> -` reads it from stdin, then
 *   `paste-buffer -p -d -b <name> -t %pane` pastes and deletes that buffer. The only
 *   things on either command line are constants, the generated buffer name and a
 *   validated pane id, so an argument ending in `;`, a leading `-`, `#(...)` or a 16 KB
 *   text can never be parsed by tmux as anything but data.
 * - `-p`: bracketed paste when (and only when) the program in the pane asked for it, so a
 *   multi-line text lands in a readline or agent input box instead of running line by
 *   line. tmux 3.3a does not sanitize pasted text: the input policy has already refused
 *   every control character but `\n` and `\t`, so `ESC[201~` cannot end the paste early.
 *   paste-buffer turns `\n` into `\r`, as a terminal does on paste.
 * - Keys are tmux key names taken from the contract's ALLOWED_KEYS constant, checked
 *   again here; leaving copy mode is the copy-mode command `cancel` (`send-keys -X`).
 * - Outcomes say whether bytes may have reached the pane: `no` when tmux refused before
 *   pasting (nothing was written), `unknown` when tmux stopped answering mid-command.
 * - Text and keys go only to the foreground the gates authorized: the paste (or key
 *   press) is the branch of an `if-shell -F` whose condition tmux evaluates in the same
 *   server step as the paste, comparing `pane_pid`, `pane_in_mode` and
 *   `pane_current_command` (read by tmux from the terminal's foreground process group at
 *   that instant) with what was authorized. The authorized name travels as a pane user
 *   option, never inside the format, so a process choosing its own name cannot inject
 *   format syntax (`#(...)` would run a command). A mismatch pastes nothing and answers
 *   `changed`. What tmux cannot check there (the rest of the process tree, and what the
 *   terminal's reader does with bytes already queued) is in docs/security.md.
 * - Texts, keys and terminal_run's line (`pasteLine`) go through the broker's control
 *   client when it is connected (no tmux process per send; on a node, no ssh channel): one
 *   control-mode line `set-buffer -b <name> -- '<text>' ; set-option … ; if-shell -F …
 *   '<paste [; Enter]>' '<drop ; say changed>'` (keys: no buffer, `send-keys` as the
 *   branch), the same checked step as above. The text is a tmux command argument there,
 *   so it is single-quoted (`'` written `'\''`): tmux's parser takes everything between
 *   single quotes literally (no `;`, `$`, `~`, `#{}`, `\` or quote meaning), `--` keeps a
 *   leading `-` from being a flag, and a text holding any control character (a newline or
 *   a tab included), or longer than 4 KB, is loaded from stdin the spawned way instead, so
 *   the control line stays one line of text (deliver.control.test.ts pins hostile texts).
 *   A failing command skips the rest of its `;` list, as on a command line.
 */
import { randomBytes } from 'node:crypto';
import { ALLOWED_KEYS, readAppErrorData, type AllowedKey } from '@terminal-mcp/contract';
import { assertPaneId } from './format.js';
import { LINE_CLEAR_KEYS, LINE_PROBE_KEYS } from './shell-hook.js';
import { readPaneIdentity, type PaneIdentityFacts } from './pane-identity.js';
import { createTmuxCommandRunner, type TmuxCommandResult, type TmuxCommandRunner } from './tmux-command.js';
import type { InputControl, TmuxAdapter } from './types.js';

export type DeliveryOutcome =
  | { ok: true }
  | { ok: false; delivered: 'no' | 'unknown'; reason: string; /** the foreground was no longer the authorized one */ changed?: true };

/** What the input gates authorized, checked again by tmux at the instant of delivery. */
export interface AuthorizedForeground {
  panePid: number;
  currentCommand: string;
  inMode: boolean;
}

export interface PaneDelivery {
  /** Identity and input facts of the pane now; null when it is gone. */
  readIdentity(paneId: string): Promise<PaneIdentityFacts | null>;
  pasteText(paneId: string, text: string, expected: AuthorizedForeground): Promise<DeliveryOutcome>;
  pressKeys(paneId: string, keys: readonly AllowedKey[], expected: AuthorizedForeground): Promise<DeliveryOutcome>;
  /** Pastes one line and presses Enter in the same checked tmux step (terminal_run: the
   * shell either gets the whole line and Enter, or nothing). */
  pasteLine(paneId: string, text: string, expected: AuthorizedForeground): Promise<DeliveryOutcome>;
  /** Pastes a text (newlines allowed) and presses Enter in the same checked tmux step, one
   * control-mode line (or one spawned command list): a connection that drops cannot leave
   * the text without its Enter (terminal_send_text with enter: true). */
  pasteSubmit(paneId: string, text: string, expected: AuthorizedForeground): Promise<DeliveryOutcome>;
  exitCopyMode(paneId: string): Promise<DeliveryOutcome>;
  /** Presses one of the shell integration's key sequences (shell-hook.ts: ask the line
   * editor for its line, or clear it), checked like any key press; nothing else. */
  pressEditorKeys(paneId: string, which: 'probe' | 'clear', expected: AuthorizedForeground): Promise<DeliveryOutcome>;
  /** A named tmux buffer holding the shell integration's hook code, which the shell reads
   * with `show-buffer` (never pasted); loaded by stdin. */
  holdHookBuffer(name: string, code: string): Promise<boolean>;
  dropHookBuffer(name: string): Promise<void>;
}

const HOOK_BUFFER_RE = /^tmcp-sh-[0-9a-f]{24}$/;

/** The pane user option that carries the authorized foreground name to tmux. */
const EXPECTED_OPTION = '@tmcp-input-foreground';
/** Printed by the refusing branch; never produced by a paste or a key press. */
const CHANGED_MARK = 'tmcp-foreground-changed';
const FOREGROUND_CHANGED: DeliveryOutcome = {
  ok: false,
  delivered: 'no',
  changed: true,
  reason: "the pane's foreground program changed between the check and the delivery",
};

/** True when tmux, at the instant it evaluates this, sees the authorized pane process, no
 * copy-mode state, and the authorized foreground name (from the option, compared as data). */
function sameForegroundCondition(expected: AuthorizedForeground): string {
  if (!Number.isSafeInteger(expected.panePid) || expected.panePid <= 0) throw new Error('invalid pane pid');
  const inMode = expected.inMode ? 1 : 0;
  return `#{&&:#{==:#{pane_pid},${expected.panePid}},#{&&:#{==:#{pane_in_mode},${inMode}},#{==:#{pane_current_command},#{${EXPECTED_OPTION}}}}}`;
}

/** Runs `command` (a tmux command line made of constants, a generated buffer name and a
 * checked pane id) only if the pane's foreground is still the authorized one. */
async function runIfSameForeground(runner: TmuxCommandRunner, paneId: string, expected: AuthorizedForeground, command: string, what: string): Promise<DeliveryOutcome> {
  // A name tmux's argument check refuses (not printable ASCII) cannot be compared: refuse
  // rather than deliver unchecked.
  if (!SAFE_OPTION_VALUE_RE.test(expected.currentCommand)) return FOREGROUND_CHANGED;
  const set = await runner.run(['set-option', '-p', '-t', paneId, EXPECTED_OPTION, expected.currentCommand]);
  if (set.timedOut || set.exitCode !== 0) return { ok: false, delivered: 'no', reason: `tmux could not prepare ${what}` };
  try {
    const ran = await runner.run(['if-shell', '-F', '-t', paneId, sameForegroundCondition(expected), command, `display-message -p ${CHANGED_MARK}`]);
    const outcome = outcomeOf(ran, what);
    if (outcome.ok && ran.stdout.includes(CHANGED_MARK)) return FOREGROUND_CHANGED;
    return outcome;
  } finally {
    await runner.run(['set-option', '-p', '-u', '-t', paneId, EXPECTED_OPTION]).catch(() => undefined);
  }
}

const SAFE_OPTION_VALUE_RE = /^[\x21-\x7e][\x20-\x7e]{0,254}$/;

const KEY_SET: ReadonlySet<string> = new Set(ALLOWED_KEYS);

function outcomeOf(result: TmuxCommandResult, what: string): DeliveryOutcome {
  if (result.timedOut) return { ok: false, delivered: 'unknown', reason: `tmux did not finish ${what} in time` };
  if (result.exitCode !== 0) return { ok: false, delivered: 'no', reason: `tmux refused ${what}` };
  return { ok: true };
}

/**
 * A checked delivery as ONE tmux command list (one spawn): optionally load the text from
 * stdin, hand tmux the authorized name, then run `then` as the one branch of the checked
 * if-shell, or (`otherwise`) undo what was prepared and print the mark. tmux stops the
 * list at the first command that fails, so a failed load delivers nothing.
 */
async function checkedList(
  runner: TmuxCommandRunner,
  paneId: string,
  expected: AuthorizedForeground,
  step: { text?: string; buffer?: string; then: string; otherwise: string },
  what: string,
): Promise<DeliveryOutcome> {
  if (!SAFE_OPTION_VALUE_RE.test(expected.currentCommand)) return FOREGROUND_CHANGED;
  const load = step.text !== undefined && step.buffer !== undefined ? [['load-buffer', '-b', step.buffer, '-']] : [];
  const ran = await runner.runList(
    [
      ...load,
      ['set-option', '-p', '-t', paneId, EXPECTED_OPTION, expected.currentCommand],
      ['if-shell', '-F', '-t', paneId, sameForegroundCondition(expected), step.then, `${step.otherwise}display-message -p ${CHANGED_MARK}`],
      ['set-option', '-p', '-u', '-t', paneId, EXPECTED_OPTION],
    ],
    step.text !== undefined ? { input: Buffer.from(step.text, 'utf8') } : {},
  );
  const outcome = outcomeOf(ran, what);
  if (!outcome.ok) {
    if (step.buffer !== undefined) await runner.runList([['delete-buffer', '-b', step.buffer]]).catch(() => undefined);
    await runner.run(['set-option', '-p', '-u', '-t', paneId, EXPECTED_OPTION]).catch(() => undefined);
    return outcome;
  }
  return ran.stdout.includes(CHANGED_MARK) ? FOREGROUND_CHANGED : outcome;
}

/** A tmux command argument, single-quoted for tmux's command parser. */
export const tmuxQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** Text that may travel single-quoted on a control-mode line: no control character (the
 * line must stay one line; a tab would be kept, but is left to the stdin path too). */
const CONTROL_SAFE_TEXT_RE = /^[^\x00-\x1f\x7f]*$/;

/** At most this many bytes travel on one control-mode line; a longer text is loaded
 * from stdin the spawned way (no tmux or ssh limit to find out about in production). */
const CONTROL_TEXT_MAX_BYTES = 4096;

const byControlAllowed = (text: string) => CONTROL_SAFE_TEXT_RE.test(text) && Buffer.byteLength(text, 'utf8') <= CONTROL_TEXT_MAX_BYTES;

/**
 * A checked delivery through the control client, as ONE control-mode line (module
 * comment): optionally `set-buffer` with the text single-quoted, hand tmux the authorized
 * name, then `then` (`thenCommands` commands) as the one branch of the checked if-shell,
 * or `otherwise` (which prints the mark). null when the client is not connected (nothing
 * was written: the caller delivers the spawned way).
 */
async function checkedByControl(
  control: InputControl,
  paneId: string,
  expected: AuthorizedForeground,
  step: { text?: string; buffer?: string; then: string; thenCommands: number; otherwise: string },
): Promise<DeliveryOutcome | null> {
  const withText = step.text !== undefined && step.buffer !== undefined;
  const line = [
    ...(withText ? [`set-buffer -b ${step.buffer} -- ${tmuxQuote(step.text!)}`] : []),
    `set-option -p -t ${paneId} ${EXPECTED_OPTION} ${tmuxQuote(expected.currentCommand)}`,
    `if-shell -F -t ${paneId} ${tmuxQuote(sameForegroundCondition(expected))} ${tmuxQuote(step.then)} ${tmuxQuote(`${step.otherwise}display-message -p ${CHANGED_MARK}`)}`,
  ].join(' ; ');
  // The option is dropped on a line of its own: it runs whatever the first line did.
  const written = control([{ command: line, compound: true }, { command: `set-option -p -u -t ${paneId} ${EXPECTED_OPTION}` }]);
  if (written === null) return null;
  let parts: readonly { readonly ok: boolean; readonly lines: readonly string[] }[];
  try {
    parts = (await written)[0]?.parts ?? [];
  } catch {
    return { ok: false, delivered: 'unknown', reason: 'tmux did not finish the line in time' };
  }
  // Blocks, in order: set-buffer (with a text), set-option, if-shell, then the branch's
  // commands. The first branch command is the one that writes to the pane.
  const delivers = withText ? 3 : 2;
  const changed = parts.some((p) => p.lines.includes(CHANGED_MARK));
  if (!changed && parts.length === delivers + step.thenCommands && parts.every((p) => p.ok)) return { ok: true };
  // The refusing branch ran whole (its delete-buffer, then the mark): nothing is left.
  if (changed) return FOREGROUND_CHANGED;
  // Something failed and skipped the rest: a buffer may be left (nothing pasted it).
  if (withText) void control([{ command: `delete-buffer -b ${step.buffer}` }])?.catch(() => undefined);
  // The write itself ran (what followed it did not): bytes reached the pane.
  if (parts[delivers]?.ok === true) return { ok: false, delivered: 'unknown', reason: 'tmux wrote to the pane but refused what followed' };
  return { ok: false, delivered: 'no', reason: 'tmux refused the line' };
}

export function createPaneDelivery(
  options: {
    socketName?: string | undefined;
    runner?: TmuxCommandRunner;
    tmux?: Pick<TmuxAdapter, 'readPaneIdentity'>;
    /** The broker's control client: a line typed with no spawn (pasteLineByControl). */
    control?: InputControl;
    /** Deliver each text or key press as one command list (one spawn), not three or four:
     * for a node, where every spawn is an ssh round trip. The checks are the same. */
    oneSpawn?: boolean;
  } = {},
): PaneDelivery {
  const runner = options.runner ?? createTmuxCommandRunner({ socketName: options.socketName });
  const control = options.control;
  const byControl = options.tmux?.readPaneIdentity?.bind(options.tmux);
  const oneSpawn = options.oneSpawn === true;
  /** The text (a line, or lines for a multi-line paste) and Enter as one checked step. */
  async function pasteSubmit(paneId: string, text: string, expected: AuthorizedForeground): Promise<DeliveryOutcome> {
    assertPaneId(paneId);
    if (!SAFE_OPTION_VALUE_RE.test(expected.currentCommand)) return FOREGROUND_CHANGED;
    if (control && byControlAllowed(text)) {
      const buffer = `tmcp-input-${randomBytes(12).toString('hex')}`;
      const outcome = await checkedByControl(control, paneId, expected, { text, buffer, then: `paste-buffer -p -d -b ${buffer} -t ${paneId} ; send-keys -t ${paneId} Enter`, thenCommands: 2, otherwise: `delete-buffer -b ${buffer} ; ` });
      if (outcome !== null) return outcome;
    }
    const buffer = `tmcp-input-${randomBytes(12).toString('hex')}`;
    // Not connected (or a control character in the line): one tmux command list, one
    // spawn (terminal_run is timed by agents): paste AND press Enter as the one branch
    // of the checked if-shell (the same server step: nothing can take the foreground
    // between them), or drop the buffer and say so.
    return checkedList(
      runner,
      paneId,
      expected,
      { text, buffer, then: `paste-buffer -p -d -b ${buffer} -t ${paneId} ; send-keys -t ${paneId} Enter`, otherwise: `delete-buffer -b ${buffer} ; ` },
      'the line',
    );
  }

  return {
    // Through the broker's control client (no spawn: this read is on every send's path);
    // while that client is not connected, by spawning tmux, which tells a server that is
    // gone (null) from one that fails.
    readIdentity: (paneId) =>
      byControl
        ? byControl(paneId).catch((err: unknown) => {
            if (readAppErrorData(err)?.code !== 'TMUX_UNAVAILABLE') throw err;
            return readPaneIdentity(runner, paneId);
          })
        : readPaneIdentity(runner, paneId),

    async pasteText(paneId, text, expected) {
      assertPaneId(paneId);
      const buffer = `tmcp-input-${randomBytes(12).toString('hex')}`;
      if (control && byControlAllowed(text) && SAFE_OPTION_VALUE_RE.test(expected.currentCommand)) {
        const outcome = await checkedByControl(control, paneId, expected, { text, buffer, then: `paste-buffer -p -d -b ${buffer} -t ${paneId}`, thenCommands: 1, otherwise: `delete-buffer -b ${buffer} ; ` });
        if (outcome !== null) return outcome;
      }
      if (oneSpawn) {
        return checkedList(runner, paneId, expected, { text, buffer, then: `paste-buffer -p -d -b ${buffer} -t ${paneId}`, otherwise: `delete-buffer -b ${buffer} ; ` }, 'the paste');
      }
      const loaded = await runner.run(['load-buffer', '-b', buffer, '-'], { input: Buffer.from(text, 'utf8') });
      if (loaded.timedOut || loaded.exitCode !== 0) {
        await runner.run(['delete-buffer', '-b', buffer]).catch(() => undefined);
        // Nothing is pasted until paste-buffer runs, whatever load-buffer did.
        return { ok: false, delivered: 'no', reason: 'tmux could not load the text' };
      }
      const outcome = await runIfSameForeground(runner, paneId, expected, `paste-buffer -p -d -b ${buffer} -t ${paneId}`, 'the paste');
      if (!outcome.ok) await runner.run(['delete-buffer', '-b', buffer]).catch(() => undefined);
      return outcome;
    },

    pasteLine(paneId, text, expected) {
      if (text.includes('\n')) throw new Error('pasteLine takes one line');
      return pasteSubmit(paneId, text, expected);
    },

    pasteSubmit: (paneId, text, expected) => pasteSubmit(paneId, text, expected),

    async pressKeys(paneId, keys, expected) {
      assertPaneId(paneId);
      if (keys.length === 0 || keys.some((k) => !KEY_SET.has(k))) throw new Error('only allowlisted keys can be pressed');
      if (control && SAFE_OPTION_VALUE_RE.test(expected.currentCommand)) {
        const outcome = await checkedByControl(control, paneId, expected, { then: `send-keys -t ${paneId} ${keys.join(' ')}`, thenCommands: 1, otherwise: '' });
        if (outcome !== null) return outcome;
      }
      if (oneSpawn) return checkedList(runner, paneId, expected, { then: `send-keys -t ${paneId} ${keys.join(' ')}`, otherwise: '' }, 'the keys');
      return runIfSameForeground(runner, paneId, expected, `send-keys -t ${paneId} ${keys.join(' ')}`, 'the keys');
    },

    async pressEditorKeys(paneId, which, expected) {
      assertPaneId(paneId);
      // Only the integration's constants: hex bytes no keyboard sends for one key.
      const command = `send-keys -t ${paneId} -H ${(which === 'clear' ? LINE_CLEAR_KEYS : LINE_PROBE_KEYS).join(' ')}`;
      if (control && SAFE_OPTION_VALUE_RE.test(expected.currentCommand)) {
        const outcome = await checkedByControl(control, paneId, expected, { then: command, thenCommands: 1, otherwise: '' });
        if (outcome !== null) return outcome;
      }
      if (oneSpawn) return checkedList(runner, paneId, expected, { then: command, otherwise: '' }, 'the keys');
      return runIfSameForeground(runner, paneId, expected, command, 'the keys');
    },

    async holdHookBuffer(name, code) {
      if (!HOOK_BUFFER_RE.test(name)) throw new Error('invalid hook buffer name');
      const loaded = await runner.run(['load-buffer', '-b', name, '-'], { input: Buffer.from(code, 'utf8') });
      return loaded.exitCode === 0 && !loaded.timedOut;
    },

    async dropHookBuffer(name) {
      if (!HOOK_BUFFER_RE.test(name)) throw new Error('invalid hook buffer name');
      const written = control?.([{ command: `delete-buffer -b ${name}` }]);
      if (written) await written.catch(() => undefined);
      else await runner.run(['delete-buffer', '-b', name]).catch(() => undefined);
    },

    async exitCopyMode(paneId) {
      assertPaneId(paneId);
      return outcomeOf(await runner.run(['send-keys', '-X', '-t', paneId, 'cancel']), 'leaving copy mode');
    },
  };
}
