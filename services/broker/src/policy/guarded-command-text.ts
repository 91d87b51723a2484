/**
 * Does this command line run a guarded command (input_policy.guarded_commands)? Pure: judged
 * on the syntax tree tree-sitter-bash makes of the text (effects/shell-syntax/bash-parser.ts
 * loads the grammar; the loaded parse is handed in), never on the raw words: `\ssh`,
 * `$'\x73sh'`, `command ssh`, `env ssh`, `x=1 ssh`, `time ssh`, `sh -c 'ssh h'`,
 * `alias p=ssh`, `ls; ssh h` and `f() { ssh h; }` all run ssh once the shell has read them,
 * while `man ssh`, `grep ssh log` and `cat ~/.ssh/config` run no ssh at all.
 *
 * Three answers: `clear`, `guarded` (names the command), `unjudged` (the text runs something
 * the parse cannot name, and the caller treats it like a guarded command):
 *  - a command name the shell computes (`${a}h`, `$(printf ss)h`, `$X`, a glob, a brace
 *    expansion, zsh's `=ssh`), text the parser cannot read, history expansion (`!!`, `!ss`,
 *    `^a^b`) and builtins that run earlier or stored text (`fc`, zsh's `r`, `bind -x`,
 *    `hash -p`);
 *  - code given to a shell whose text is computed (`sh -c "$x"`, `eval "$x"`), or a shell
 *    reading its commands from a pipe or redirection (`echo … | sh`, `bash <<< …`);
 *  - a wrapper (`env`, `timeout`, `xargs`, `find -exec`…) whose command word is computed.
 * Code given as a literal string (`sh -c '…'`, `eval '…'`, `alias n='…'`, `trap '…' EXIT`,
 * `PROMPT_COMMAND='…'`, `watch '…'`) is parsed and judged the same way, at most four levels
 * deep; other interpreters' code (`python3 -c`) is refused when it names a guarded command
 * as a word.
 *
 * What no reading of the text can see: a file run later (`./x` after `ln -s /usr/bin/ssh x`,
 * `bash script.sh`, `source f`), a name defined before (an alias or function from the
 * shell's rc file), a program that runs ssh itself (git, rsync, scp). The process-tree gate
 * (policy/input.ts gate 3) refuses input once a guarded program runs; docs/security.md says
 * what the whole promises.
 */
import { baseName, unquoteWord, type ShellParse, type ShellSyntaxNode } from './shell-review.js';

export type GuardedTextVerdict =
  | { readonly kind: 'clear' }
  | { readonly kind: 'guarded'; readonly command: string }
  | { readonly kind: 'unjudged'; readonly reason: string };

const CLEAR: GuardedTextVerdict = { kind: 'clear' };
const unjudged = (reason: string): GuardedTextVerdict => ({ kind: 'unjudged', reason });

/** How deep code inside code (`sh -c "eval 'ssh h'"`) is followed before it is unjudged. */
const MAX_DEPTH = 4;

const SHELLS = /^(?:sh|ash|bash|rbash|dash|zsh|ksh|ksh93|mksh|pdksh|yash|posh|csh|tcsh|fish|busybox)$/;
const INTERPRETERS = /^(?:python[\d.]*|pypy[\d.]*|perl[\d.]*|ruby[\d.]*|node|nodejs|deno|bun|php[\d.]*|lua[\d.]*|luajit|tclsh[\d.]*|expect|awk|gawk|mawk|nawk|osascript|pwsh|powershell)$/;
const CODE_FLAG = /^(?:-[a-zA-Z]*[ceE][a-zA-Z]*|--eval|--exec|--command|-Command)$/;

/**
 * Programs that run another command given in their arguments. `value`: options whose value
 * is the next word; `lead`: positional words before the command (`timeout 5 cmd`);
 * `code`: options whose value is shell code; `joined`: the remaining words are one shell
 * command line (watch).
 */
interface Wrapper {
  readonly value?: readonly string[];
  readonly lead?: number;
  readonly code?: readonly string[];
  readonly joined?: boolean;
}
const WRAPPERS: Readonly<Record<string, Wrapper>> = {
  env: { value: ['-u', '--unset', '-C', '--chdir'], code: ['-S', '--split-string'] },
  command: {},
  builtin: {},
  exec: { value: ['-a'] },
  nohup: {},
  nice: { value: ['-n', '--adjustment'] },
  ionice: { value: ['-c', '--class', '-n', '--classdata', '-p', '--pid', '-P', '--pgid', '-u', '--uid'] },
  timeout: { value: ['-s', '--signal', '-k', '--kill-after'], lead: 1 },
  time: { value: ['-f', '--format', '-o', '--output'] },
  stdbuf: { value: ['-i', '-o', '-e', '--input', '--output', '--error'] },
  setsid: {},
  unbuffer: {},
  chroot: { value: ['--userspec', '--groups'], lead: 1 },
  flock: { value: ['-w', '--timeout', '-E', '--conflict-exit-code'], lead: 1, code: ['-c', '--command'] },
  taskset: { value: ['-c', '--cpu-list'], lead: 1 },
  chrt: { lead: 1 },
  sudo: { value: ['-u', '--user', '-g', '--group', '-h', '--host', '-p', '--prompt', '-C', '--close-from', '-D', '--chdir', '-r', '--role', '-t', '--type', '-U', '--other-user', '-T', '--command-timeout'] },
  doas: { value: ['-u', '-C'] },
  su: { value: ['-s', '--shell', '-g', '--group', '-G', '--supp-group'], code: ['-c', '--command', '--session-command'] },
  runuser: { value: ['-u', '--user', '-g', '--group', '-G', '--supp-group', '-s', '--shell'], code: ['-c', '--command', '--session-command'] },
  sg: { lead: 1, code: ['-c'] },
  script: { value: ['-E', '--echo', '-I', '--log-in', '-O', '--log-out', '-B', '--log-io', '-T', '--log-timing', '-m', '--logging-format'], code: ['-c', '--command'] },
  xargs: { value: ['-I', '-d', '--delimiter', '-n', '--max-args', '-P', '--max-procs', '-L', '--max-lines', '-s', '--max-chars', '-a', '--arg-file', '-E', '--eof'] },
  strace: { value: ['-o', '-e', '-p', '-s', '-u', '-P', '-I', '-b', '-a', '-S', '-X', '-O', '-E'] },
  ltrace: { value: ['-o', '-e', '-p', '-s', '-u', '-n', '-a', '-A', '-D', '-l', '-L', '-x'] },
  watch: { value: ['-n', '--interval', '-d', '--differences', '-q', '--equexit'], joined: true },
  unshare: {},
  nsenter: { value: ['-t', '--target', '-S', '--setuid', '-G', '--setgid', '-w', '--wd', '-r', '--root'] },
  setpriv: {},
  fakeroot: {},
  firejail: {},
  proxychains: { value: ['-f'] },
  proxychains4: { value: ['-f'] },
  torsocks: {},
  'ssh-agent': { value: ['-a', '-E', '-P', '-t'] },
  'dbus-run-session': {},
  'systemd-run': { value: ['-u', '--unit', '-p', '--property', '-E', '--setenv', '-M', '--machine', '-H', '--host', '--uid', '--gid', '--nice', '--working-directory'] },
  catchsegv: {},
  valgrind: {},
  busybox: {},
};

/** `fc -l` lists the history and zsh's `fc -W/-R/-A/-p/-P` write, read, append, push or
 * pop history lists: none runs a command. Any other form (no option, `-e`, `-s`, a
 * computed word) edits or re-runs one. */
function fcOnlyListsOrMovesHistory(words: readonly (string | null)[]): boolean {
  if (words.some((w) => w === null)) return false;
  // Option clusters only: `-10` and `-5 -1` are history ranges, not options.
  const letters = (words as string[]).filter((w) => /^-[A-Za-z]+$/.test(w)).map((w) => w.slice(1)).join('');
  return /^[lnrdfDiEtmWRAIpP]+$/.test(letters) && /[lWRAPp]/.test(letters);
}

/** Builtins that run text stored earlier or bound to a key: no reading of this line
 * tells what they run. */
function runsStoredText(cmd: string, words: readonly (string | null)[]): string | null {
  if (cmd === 'fc' && !fcOnlyListsOrMovesHistory(words)) return 'fc runs commands from the history';
  if (cmd === 'r') return "zsh's r runs a command from the history";
  if (cmd === 'bind' && words.some((w) => w === null || /^-[a-zA-Z]*x/.test(w))) return 'bind -x runs a command on a key press';
  if (cmd === 'hash' && words.some((w) => w === null || /^-[a-zA-Z]*p/.test(w))) return 'hash -p gives a program another name';
  if (cmd === 'enable' && words.some((w) => w === null || /^-[a-zA-Z]*f/.test(w))) return 'enable -f loads a builtin from a file';
  return null;
}

/** Variables whose value the shell runs or expands later (at the next prompt, at start). */
const CODE_VARIABLES = /^(?:PROMPT_COMMAND|PS0|PS1|PS2|PS3|PS4|BASH_ENV|ENV|PROMPT|RPROMPT|RPS1|precmd_functions|preexec_functions)$/;

/** The word's value as the shell uses it as a program name; null when the shell computes
 * it (expansions, substitutions, globs, brace expansion, zsh's `=name`). */
function commandNameValue(node: ShellSyntaxNode): string | null {
  const value = unquoteWord(node);
  if (value === null || value === '') return value === '' ? '' : null;
  for (const leaf of leaves(node)) {
    if (leaf.type !== 'word') continue;
    if (leaf.text === '{' || leaf.text === '}' || /(?:^|[^\\])(?:\\\\)*[*?[{}]/.test(leaf.text)) return null;
  }
  if (value.startsWith('=')) return null;
  return value;
}

function* leaves(node: ShellSyntaxNode): Generator<ShellSyntaxNode> {
  if (node.children.length === 0) yield node;
  for (const c of node.children) yield* leaves(c);
}

function* walk(node: ShellSyntaxNode): Generator<ShellSyntaxNode> {
  yield node;
  for (const c of node.children) yield* walk(c);
}

/** `!` starts a history expansion unless a blank, `=`, `(` or the end follows it (bash's
 * rule; `"` too, which bash 4.3+ leaves alone). Single-quoted text never expands. */
const HISTORY = /!(?![\s=("]|$)/;

interface Judge {
  readonly parse: ShellParse;
  /** The guarded names, minus those guarded_command_allow admits for this session. */
  readonly guarded: readonly string[];
}

function guardedName(j: Judge, name: string): string | null {
  const cmd = baseName(name);
  return j.guarded.find((g) => baseName(g) === cmd) ?? null;
}

/** A heredoc opened on the last line (`cat <<EOF` typed and submitted: the shell then
 * waits at its continuation prompt for the body) does not parse on its own. The command
 * is judged as it will run once closed: the delimiter is added on a line of its own (the
 * body comes later as text of its own, judged when it is sent). Anything else that does
 * not parse stays unjudged. */
const OPEN_HEREDOC = /<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\1\s*$/;
function parseWithHeredocsClosed(j: Judge, text: string): ReturnType<ShellParse> {
  const tree = j.parse(text);
  if (!tree.hasError) return tree;
  const lastLine = text.replace(/\n+$/, '').split('\n').pop() ?? '';
  const open = OPEN_HEREDOC.exec(lastLine);
  if (open === null) return tree;
  const closed = j.parse(`${text.replace(/\n+$/, '')}\n${open[2]}\n`);
  return closed.hasError ? tree : closed;
}

/** The text as a command line, at `depth` levels of code inside code. */
function judgeText(j: Judge, text: string, depth: number): GuardedTextVerdict {
  if (depth > MAX_DEPTH) return unjudged('code inside code is nested too deeply to judge');
  if (/^\s*\^/.test(text)) return unjudged('^old^new re-runs the previous command');
  const tree = parseWithHeredocsClosed(j, text);
  if (tree.truncated) return unjudged('the command line is too complex to judge');
  if (tree.hasError) return unjudged('the command line is not shell syntax the parser can read');
  for (const node of walk(tree.root)) {
    if (node.children.length === 0 && (node.type === 'word' || node.type === 'string_content') && HISTORY.test(node.text)) {
      return unjudged('a history expansion (!…) runs a command from the history');
    }
    if (node.type === 'variable_assignment') {
      const verdict = judgeAssignment(j, node, depth);
      if (verdict.kind !== 'clear') return verdict;
    }
    if (node.type === 'pipeline') {
      // A shell or interpreter after a `|` runs whatever text the pipe carries.
      const commands = node.children.filter((c) => c.type === 'command');
      for (const c of commands.slice(1)) {
        const reader = readsProgramFromInput(c);
        if (reader !== null) return unjudged(`${reader} runs the text a pipe gives it`);
      }
    }
    if (node.type === 'redirected_statement' && node.children.some(feedsInput)) {
      // tree-sitter-bash hangs a heredoc (and `< file`) on the statement around the
      // command, not on the command itself: `bash <<EOF` runs the body as code.
      const body = node.children.find((c) => c.type === 'command');
      const reader = body ? readsProgramFromInput(body) : null;
      if (reader !== null) return unjudged(`${reader} runs the text redirected into it`);
    }
    if (node.type !== 'command') continue;
    const nameNode = node.children.find((c) => c.type === 'command_name');
    if (!nameNode) continue;
    const name = commandNameValue(nameNode);
    if (name === null) return unjudged(`the command name ${JSON.stringify(nameNode.text)} is computed when it runs`);
    const args = node.children.filter((c) => c !== nameNode && c.type !== 'variable_assignment' && !c.type.endsWith('redirect'));
    if (node.children.some(feedsInput)) {
      const reader = readsProgramFromInput(node);
      if (reader !== null) return unjudged(`${reader} runs the text redirected into it`);
    }
    const verdict = judgeCommand(j, name, args.map(unquoteWord), depth);
    if (verdict.kind !== 'clear') return verdict;
  }
  return CLEAR;
}

/** A redirection that gives the command its standard input: a here-string, a heredoc, `< file`. */
function feedsInput(c: ShellSyntaxNode): boolean {
  return c.type === 'herestring_redirect' || c.type === 'heredoc_redirect' || (c.type === 'file_redirect' && c.children.some((o) => o.type === '<'));
}

/** `PROMPT_COMMAND='ssh h'` runs at the next prompt: its value is code. */
function judgeAssignment(j: Judge, node: ShellSyntaxNode, depth: number): GuardedTextVerdict {
  const nameNode = node.children.find((c) => c.type === 'variable_name');
  if (!nameNode || !CODE_VARIABLES.test(nameNode.text)) return CLEAR;
  const valueNode = node.children[node.children.length - 1];
  const value = valueNode && valueNode !== nameNode && valueNode.type !== '=' ? unquoteWord(valueNode) : '';
  if (value === null) return unjudged(`${nameNode.text} is given a computed value the shell runs later`);
  if (nameNode.text === 'PROMPT_COMMAND' || nameNode.text === 'BASH_ENV' || nameNode.text === 'ENV') return judgeText(j, value, depth + 1);
  // Prompt strings expand `$(…)` and backquotes each time they are shown.
  return /\$\(|`/.test(value) ? judgeText(j, value.replace(/^[^$`]*/, 'true '), depth + 1) : CLEAR;
}

/** The shell or interpreter that reads its program from standard input, or null (it was
 * given code or a script file, or is another program). */
function readsProgramFromInput(command: ShellSyntaxNode): string | null {
  const nameNode = command.children.find((c) => c.type === 'command_name');
  const name = nameNode ? commandNameValue(nameNode) : null;
  if (name === null) return 'a computed command';
  const cmd = baseName(name);
  if (!SHELLS.test(cmd) && !INTERPRETERS.test(cmd)) return null;
  const words = command.children.filter((c) => c !== nameNode && c.type !== 'variable_assignment' && !c.type.endsWith('redirect')).map(unquoteWord);
  const operands = words.filter((w) => w === null || !w.startsWith('-') || w === '-');
  return operands.length === 0 || operands[0] === '-' || words.some((w) => w === '-s') ? cmd : null;
}

function judgeCommand(j: Judge, name: string, words: readonly (string | null)[], depth: number): GuardedTextVerdict {
  const hit = guardedName(j, name);
  if (hit !== null) return { kind: 'guarded', command: baseName(hit) };
  const cmd = baseName(name);
  const stored = runsStoredText(cmd, words);
  if (stored !== null) return unjudged(stored);
  if (cmd === 'eval' || cmd === 'trap') {
    const code = cmd === 'trap' ? words.slice(0, 1) : words;
    if (code.some((w) => w === null)) return unjudged(`${cmd} is given computed text to run`);
    return code.length === 0 ? CLEAR : judgeText(j, code.join(' '), depth + 1);
  }
  if (cmd === 'alias') {
    for (const w of words) {
      if (w === null) return unjudged('alias is given a computed value');
      const eq = w.indexOf('=');
      if (eq > 0) {
        const verdict = judgeText(j, w.slice(eq + 1), depth + 1);
        if (verdict.kind !== 'clear') return verdict;
      }
    }
    return CLEAR;
  }
  if (SHELLS.test(cmd) && cmd !== 'busybox') return judgeShellArgs(j, cmd, words, depth);
  if (INTERPRETERS.test(cmd)) {
    const flag = words.findIndex((w) => w !== null && CODE_FLAG.test(w));
    if (flag < 0) return CLEAR;
    const code = words.slice(flag + 1);
    if (code.some((w) => w === null)) return unjudged(`${cmd} is given computed code`);
    const named = j.guarded.find((g) => new RegExp(`(?:^|[^\\w-])${escapeRegExp(baseName(g))}(?:[^\\w-]|$)`).test(code.join(' ')));
    return named === undefined ? CLEAR : { kind: 'guarded', command: baseName(named) };
  }
  if (cmd === 'find') {
    const at = words.findIndex((w) => w !== null && /^-(?:exec|execdir|ok|okdir)$/.test(w));
    if (at < 0) return CLEAR;
    const inner = words[at + 1];
    if (inner === undefined) return CLEAR;
    if (inner === null) return unjudged('find -exec is given a computed command');
    return judgeCommand(j, inner, words.slice(at + 2), depth + 1);
  }
  // `command -v ssh` and `type`-like forms only say where a program is.
  if (cmd === 'command' && words.some((w) => w === '-v' || w === '-V')) return CLEAR;
  const wrapper = Object.hasOwn(WRAPPERS, cmd) ? WRAPPERS[cmd] : undefined;
  if (wrapper !== undefined) return judgeWrapped(j, cmd, wrapper, words, depth);
  return CLEAR;
}

/** `bash -c 'code'`, `bash -lc 'code'`: the code is judged; `bash script` runs a file. */
function judgeShellArgs(j: Judge, cmd: string, words: readonly (string | null)[], depth: number): GuardedTextVerdict {
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string | null;
    if (w === null) return unjudged(`${cmd} is given a computed argument`);
    if (w === '--' || !w.startsWith('-')) return CLEAR; // a script file: beyond the text
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(w) || w === '--command') {
      const code = words[i + 1];
      if (code === undefined) return CLEAR;
      if (code === null) return unjudged(`${cmd} -c is given computed code`);
      return judgeText(j, code, depth + 1);
    }
    if (/^-[oO]$/.test(w) || w === '--rcfile' || w === '--init-file') i += 1;
  }
  return CLEAR;
}

/** The command a wrapper runs, found past its options, their values and its leading
 * positional words, judged as a command of its own. */
function judgeWrapped(j: Judge, cmd: string, wrapper: Wrapper, words: readonly (string | null)[], depth: number): GuardedTextVerdict {
  if (depth >= MAX_DEPTH) return unjudged('wrapped commands are nested too deeply to judge');
  let lead = wrapper.lead ?? 0;
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string | null;
    if (w === null) return unjudged(`${cmd} is given a computed word where a command may stand`);
    if (w === '--') continue;
    if (w.startsWith('-') && w.length > 1) {
      const [flag] = w.split('=', 1) as [string];
      if (wrapper.code?.includes(flag)) {
        const code = w.includes('=') ? w.slice(flag.length + 1) : words[i + 1];
        if (code === null) return unjudged(`${cmd} ${flag} is given computed code`);
        if (code !== undefined) {
          const verdict = judgeText(j, code, depth + 1);
          if (verdict.kind !== 'clear') return verdict;
        }
        if (!w.includes('=')) i += 1;
        continue;
      }
      if (!w.includes('=') && wrapper.value?.includes(flag)) i += 1;
      continue;
    }
    if (cmd === 'env' && /^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) continue;
    if (lead > 0) {
      lead -= 1;
      continue;
    }
    const rest = words.slice(i + 1);
    if (wrapper.joined) {
      if (rest.some((r) => r === null)) return unjudged(`${cmd} is given a computed command`);
      return judgeText(j, [w, ...(rest as string[])].join(' '), depth + 1);
    }
    return judgeCommand(j, w, rest, depth + 1);
  }
  return CLEAR;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The verdict on `text` typed at a shell and run. `guarded`: input_policy.guarded_commands;
 * `allowedHere`: the guarded_command_allow entries for this session (a name allowed here
 * is judged like any other program).
 */
export function judgeGuardedCommandText(parse: ShellParse, text: string, guarded: readonly string[], allowedHere: readonly string[] = []): GuardedTextVerdict {
  const admitted = new Set(allowedHere.map(baseName));
  return judgeText({ parse, guarded: guarded.filter((g) => !admitted.has(baseName(g))) }, text, 0);
}
