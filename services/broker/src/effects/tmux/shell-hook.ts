/**
 * The shell integration's hook code (shell-integration.ts installs it): what bash or zsh
 * runs to tell the broker "prompt shown, last command ended with status N" (`P N`),
 * "a command line starts" (`C`) and "this is on the input line" (`L <length> <text>`).
 *
 * The code reaches the shell through a named tmux buffer, never the screen: the pane
 * shows only ` eval "$(tmux show-buffer -b NAME)"`, which the hook then erases from the
 * screen and from the shell's history. The paths of the shell's FIFO pair are inside it
 * (single-quoted; run-fifos.ts only makes paths of `[A-Za-z0-9._/+@,=-]`).
 *
 * What each hook does, builtins only at the prompt (a process there would make the shell
 * look busy to the process-tree check, the cause of the spurious refusals of issue 43):
 * - prompt (bash PROMPT_COMMAND, first; zsh precmd, first): writes `P $?` into the status
 *   FIFO; if the broker primed the ack FIFO for a run (a line waits in it), reads that line
 *   and waits (at most 3 s) for the ack the broker writes once it has read where the
 *   output ended: the prompt is drawn after that. Then gives `$?` back to the user's own
 *   prompt hooks.
 * - command start (bash PS0, one `$(...)` per command line; zsh preexec): writes `C`.
 * - input line (a key sequence bound with `bind -x` / a zle widget, that no keyboard
 *   sends): writes the line editor's buffer, or clears it with the editor's own variables
 *   first (`clear_line`). Nothing is drawn: the editor keeps its line as it was.
 * Every write skips a FIFO that is gone (`[ -p ]`: no regular file made in its place) and
 * opens it read-write (`<>`: never blocks), so a broker that is gone costs at most the
 * 3 s ack wait of a run that was primed.
 */

/** The key sequences the hook binds (an unused CSI form no terminal sends for a key). */
export const LINE_PROBE_KEYS = ['1b', '5b', '39', '3b', '39', '3b', '39', '7e'] as const;
export const LINE_CLEAR_KEYS = ['1b', '5b', '39', '3b', '39', '3b', '38', '7e'] as const;
const PROBE_SEQ = '\\e[9;9;9~';
const CLEAR_SEQ = '\\e[9;9;8~';

export type IntegrableShell = 'bash' | 'zsh';
export const INTEGRABLE_SHELLS: readonly IntegrableShell[] = ['bash', 'zsh'];

const SAFE_PATH_RE = /^\/[A-Za-z0-9._/+@,=-]{1,400}$/;
const BUFFER_RE = /^tmcp-sh-[0-9a-f]{24}$/;

/** The line typed to load the hook (`buffer`: its tmux buffer). The leading space keeps
 * it out of history where the shell ignores such lines; the hook removes it elsewhere. */
export function installLine(buffer: string): string {
  if (!BUFFER_RE.test(buffer)) throw new Error('invalid hook buffer name');
  return ` eval "$(tmux show-buffer -b ${buffer})"`;
}

/** The hook code for `shell`, talking to the FIFOs at `statusPath` and `ackPath`. */
export function hookCode(shell: IntegrableShell, statusPath: string, ackPath: string, buffer: string): string {
  if (!SAFE_PATH_RE.test(statusPath) || !SAFE_PATH_RE.test(ackPath)) throw new Error('hook FIFO path not typeable');
  if (!BUFFER_RE.test(buffer)) throw new Error('invalid hook buffer name');
  const common = `__tmcp_S='${statusPath}'; __tmcp_A='${ackPath}'`;
  // The typed eval line sits one row above the cursor: erase it (a short line, one row).
  const erase = `printf '\\033[1A\\r\\033[2K'`;
  if (shell === 'bash') {
    return [
      common,
      // `read -t 0` only tests (bash): a primed run left a line; read it, then the ack.
      `__tmcp_prompt() { local s=$? l; if [ -p "$__tmcp_A" ]; then { echo "P $s" 1<>"$__tmcp_S"; if read -t 0; then read -r -t 3 l; read -r -t 3 l; fi; } 0<>"$__tmcp_A" 2>/dev/null; fi; return $s; }`,
      `__tmcp_start() { [ -p "$__tmcp_S" ] && echo C 1<>"$__tmcp_S" 2>/dev/null; }`,
      `__tmcp_line() { local l=\${READLINE_LINE//[$'\\n\\r']/ }; [ -p "$__tmcp_S" ] && echo "L \${#READLINE_LINE} \${l:0:200}" 1<>"$__tmcp_S" 2>/dev/null; }`,
      `__tmcp_clear() { READLINE_LINE=; READLINE_POINT=0; __tmcp_line; }`,
      `bind -x '"${PROBE_SEQ}": __tmcp_line' 2>/dev/null; bind -x '"${CLEAR_SEQ}": __tmcp_clear' 2>/dev/null`,
      `PROMPT_COMMAND="__tmcp_prompt\${PROMPT_COMMAND:+;$PROMPT_COMMAND}"; PS0='$(__tmcp_start)'"\${PS0-}"`,
      // The eval line is in history unless HISTCONTROL dropped it: remove exactly it.
      `case $(HISTTIMEFORMAT= history 1 2>/dev/null) in *"show-buffer -b ${buffer}"*) history -d -1 2>/dev/null;; esac`,
      erase,
    ].join('\n');
  }
  return [
    common,
    // zsh's `read -t 0` reads when input is there: that read takes the primed line.
    `__tmcp_prompt() { local s=$? l; if [[ -p $__tmcp_A ]]; then { print -r -- "P $s" 1<>$__tmcp_S; if read -r -t 0 l; then read -r -t 3 l; fi } 0<>$__tmcp_A 2>/dev/null; fi; return $s }`,
    `__tmcp_start() { [[ -p $__tmcp_S ]] && print C 1<>$__tmcp_S 2>/dev/null }`,
    `__tmcp_line() { local l=\${BUFFER//[$'\\n\\r']/ }; [[ -p $__tmcp_S ]] && print -r -- "L \${#BUFFER} \${l[1,200]}" 1<>$__tmcp_S 2>/dev/null }`,
    `__tmcp_clear() { BUFFER=; CURSOR=0; __tmcp_line }`,
    `zle -N __tmcp_line; zle -N __tmcp_clear`,
    `for __tmcp_m in emacs viins vicmd; do bindkey -M $__tmcp_m '${PROBE_SEQ}' __tmcp_line; bindkey -M $__tmcp_m '${CLEAR_SEQ}' __tmcp_clear; done; unset __tmcp_m`,
    `precmd_functions=(__tmcp_prompt $precmd_functions); preexec_functions+=(__tmcp_start)`,
    // zsh has no way to delete a history entry, and it added the eval line before running
    // it (unless HIST_IGNORE_SPACE): HISTORY_IGNORE keeps it, and every later install line,
    // out of the history file whenever zsh writes it (at exit, fc -W, or per command with
    // INC_APPEND_HISTORY_TIME); the user's own pattern is kept as an alternative.
    `[[ $HISTORY_IGNORE == *tmcp-sh-* ]] || HISTORY_IGNORE="\${HISTORY_IGNORE:+($HISTORY_IGNORE)|}(*tmux show-buffer -b tmcp-sh-*)"`,
    erase,
  ].join('\n');
}
