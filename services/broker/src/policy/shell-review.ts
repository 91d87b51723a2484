/**
 * Is this text, typed at a shell, risky? Pure: judged on the syntax tree a maintained bash
 * grammar made of it (tree-sitter-bash through web-tree-sitter, loaded once by
 * effects/shell-syntax/bash-parser.ts and handed in as a plain tree), never on a word list
 * over the raw text: `r''m -rf x`, `r\m -rf x` and `"rm" -rf x` are the command `rm` once
 * their words are unquoted and unescaped, and `find / -delete` or `: > db.sqlite` name no
 * "dangerous word" at all.
 *
 * Risky (the first reason found is given):
 *  - text the parser cannot read (a syntax error), or a tree too large to judge;
 *  - a command or process substitution (`$(…)`, `` `…` ``, `<(…)`) anywhere, and a command
 *    name the shell computes (`$X -rf`);
 *  - a destructive command (DESTRUCTIVE_COMMANDS), a guarded command (input_policy.guarded_commands),
 *    `find` with -delete/-exec, `git push --force`/`-f`/`+ref`, `git reset --hard`,
 *    `git clean -f`, an interpreter or shell given code (`-c`, `-e`, `--eval`), `eval`,
 *    `source`, `xargs`, and any of these behind a wrapper (`sudo`, `env`, `nohup`, `timeout`…);
 *  - an output redirection onto a file (`>`, `>>`, `>|`, `&>`), except /dev/null and the
 *    standard streams.
 * Plain answers (`y`, `n`, `2`, `yes`, `continue`) are commands with an ordinary name: they pass.
 */

/** The part of a syntax node the rules read: web-tree-sitter's Node, copied into plain
 * objects so the tree's WebAssembly memory is freed before any rule runs. */
export interface ShellSyntaxNode {
  readonly type: string;
  readonly text: string;
  readonly children: readonly ShellSyntaxNode[];
}

export interface ShellSyntaxTree {
  readonly root: ShellSyntaxNode;
  /** The parser met text it could not read. */
  readonly hasError: boolean;
  /** More nodes than the copy keeps: not judged. */
  readonly truncated: boolean;
}

/** Parses shell text (no I/O: the grammar is already loaded). */
export type ShellParse = (text: string) => ShellSyntaxTree;

/** Commands that destroy data, stop a machine or processes, or change who owns what. */
export const DESTRUCTIVE_COMMANDS: readonly string[] = [
  'rm', 'rmdir', 'unlink', 'shred', 'srm', 'truncate', 'dd', 'mkfs', 'mke2fs', 'mkswap', 'wipefs', 'fdisk', 'sfdisk', 'gdisk',
  'parted', 'shutdown', 'reboot', 'halt', 'poweroff', 'kill', 'killall', 'pkill', 'chmod', 'chown', 'chgrp', 'mv',
  'drop', 'delete', 'terraform', 'helm', 'crontab',
];

/** Programs that run code given as an argument with -c / -e / --eval. */
const INTERPRETER = /^(?:sh|ash|bash|rbash|dash|zsh|ksh|mksh|yash|csh|tcsh|fish|busybox|python[\d.]*|pypy[\d.]*|perl[\d.]*|ruby[\d.]*|node|nodejs|deno|bun|php[\d.]*|lua[\d.]*|tclsh[\d.]*|osascript|pwsh|powershell)$/;
const CODE_FLAG = /^(?:-[a-zA-Z]*[ceE][a-zA-Z]*|--eval|--exec|--command|-Command|eval|-r)$/;
/** Builtins that run text as code. */
const RUNS_TEXT: ReadonlySet<string> = new Set(['eval', 'source', '.', 'exec', 'xargs', 'parallel', 'trap', 'alias']);
/** Programs that run the command after their own options. */
const WRAPPERS: ReadonlySet<string> = new Set(['sudo', 'doas', 'env', 'nohup', 'nice', 'ionice', 'timeout', 'time', 'command', 'builtin', 'stdbuf', 'chroot', 'setsid', 'unbuffer', 'watch', 'flock', 'su', 'runuser', 'strace', 'ltrace']);
/** Where output may go without harm. */
const HARMLESS_TARGETS: ReadonlySet<string> = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty']);

/** A word's value once the shell removed quotes and backslashes; null when it depends on
 * an expansion the shell would compute at run time. */
export function unquoteWord(node: ShellSyntaxNode): string | null {
  switch (node.type) {
    case 'word':
    case 'number':
      return node.text.replace(/\\(.)/gs, '$1').replace(/\\$/, '');
    case 'raw_string':
      return node.text.slice(1, -1);
    case 'string_content':
      return node.text.replace(/\\([$`"\\\n])/g, '$1');
    case 'string': {
      let out = '';
      for (const c of node.children) {
        if (c.type === '"') continue;
        const part = unquoteWord(c);
        if (part === null) return null;
        out += part;
      }
      return out;
    }
    case 'ansi_c_string':
      return decodeAnsiC(node.text.slice(2, -1));
    case 'concatenation':
    case 'command_name': {
      let out = '';
      for (const c of node.children) {
        const part = unquoteWord(c);
        if (part === null) return null;
        out += part;
      }
      return out;
    }
    default:
      return null; // expansions, substitutions, arithmetic: computed at run time
  }
}

/** `$'…'` escapes: \xHH, \NNN (octal), \uHHHH and the C letters. */
function decodeAnsiC(body: string): string {
  const letters: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' };
  return body.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|.)/gs, (_, e: string) => {
    if (/^[xuU]/.test(e)) return String.fromCodePoint(parseInt(e.slice(1), 16));
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8));
    return letters[e] ?? `\\${e}`;
  });
}

/** A program name's last path part, lower-cased (`/usr/bin/SSH` → `ssh`). */
export const baseName = (word: string): string => word.slice(word.lastIndexOf('/') + 1).toLowerCase();

function* walk(node: ShellSyntaxNode): Generator<ShellSyntaxNode> {
  yield node;
  for (const c of node.children) yield* walk(c);
}

/** Why the command `name args` is risky, or null. `guarded`: input_policy.guarded_commands. */
function commandRisk(name: string, args: readonly (string | null)[], guarded: readonly string[], depth = 0): string | null {
  const cmd = baseName(name);
  const words = args.filter((a): a is string => a !== null);
  if (guarded.some((g) => baseName(g) === cmd)) return `the text runs the guarded command ${cmd}`;
  if (DESTRUCTIVE_COMMANDS.includes(cmd) || /^mkfs\./.test(cmd)) return `the text runs the destructive command ${cmd}`;
  if (RUNS_TEXT.has(cmd)) return `the text runs other text as a command (${cmd})`;
  if (INTERPRETER.test(cmd) && words.some((w) => CODE_FLAG.test(w))) return `the text gives ${cmd} code to run (${words.find((w) => CODE_FLAG.test(w))})`;
  if (cmd === 'find' && words.some((w) => /^-(?:delete|exec|execdir|ok|okdir|fprint0?|fprintf|fls)$/.test(w))) return `find with ${words.find((w) => /^-(?:delete|exec|execdir|ok|okdir|fprint0?|fprintf|fls)$/.test(w))}`;
  if (cmd === 'git') {
    const sub = gitSubcommand(words);
    if (sub === 'push' && words.some((w) => w === '--force' || w === '-f' || w.startsWith('--force-') || /^-[a-zA-Z]*f/.test(w) || /^\+/.test(w) || w === '--mirror' || w === '--delete' || w === '-d')) return 'git push that overwrites or deletes remote history';
    if (sub === 'reset' && words.includes('--hard')) return 'git reset --hard';
    if (sub === 'clean' && words.some((w) => /^-[a-zA-Z]*f/.test(w) || w === '--force')) return 'git clean -f';
    if (sub === 'branch' && words.some((w) => w === '-D' || w === '--delete')) return 'git branch deletion';
    if (sub === 'checkout' && words.includes('--')) return 'git checkout -- (discards changes)';
  }
  if (WRAPPERS.has(cmd) && depth < 4) {
    // The wrapped command may follow options and their values (`timeout 5 rm`): any later
    // word that would be risky as a command name makes the whole risky.
    for (let i = 0; i < words.length; i++) {
      const w = words[i] as string;
      if (w.startsWith('-') || w.includes('=')) continue;
      const inner = commandRisk(w, words.slice(i + 1), guarded, depth + 1);
      if (inner !== null) return inner;
    }
  }
  return null;
}

/** git's subcommand: the first word that is not a global option or its value (`-C dir`). */
function gitSubcommand(words: readonly string[]): string | undefined {
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    if (/^(?:-C|-c|--git-dir|--work-tree|--namespace|--exec-path|--config-env)$/.test(w)) i += 1;
    else if (!w.startsWith('-')) return w;
  }
  return undefined;
}

function redirectRisk(node: ShellSyntaxNode): string | null {
  const op = node.children.find((c) => /^(?:>|>>|>\||&>|&>>|>&)$/.test(c.type));
  if (!op) return null;
  const dest = node.children[node.children.length - 1];
  if (!dest || dest === op) return null;
  if (op.type === '>&' && dest.type === 'number') return null; // 2>&1: a descriptor, not a file
  const target = unquoteWord(dest);
  if (target !== null && HARMLESS_TARGETS.has(target)) return null;
  return `output redirected onto a file (${op.type} ${target ?? dest.text})`;
}

/** Why typing `tree`'s text at a shell is risky, or null. */
export function shellTextRisk(tree: ShellSyntaxTree, guarded: readonly string[]): string | null {
  if (tree.truncated) return 'the text is too complex to judge';
  if (tree.hasError) return 'the text is not shell syntax the parser can read';
  for (const node of walk(tree.root)) {
    if (node.type === 'command_substitution' || node.type === 'process_substitution') return 'the text has a command substitution';
    if (node.type === 'file_redirect') {
      const risk = redirectRisk(node);
      if (risk !== null) return risk;
    }
    if (node.type !== 'command') continue;
    const nameNode = node.children.find((c) => c.type === 'command_name');
    if (!nameNode) continue;
    const name = unquoteWord(nameNode);
    if (name === null) return 'the command name is computed when it runs';
    const args = node.children.filter((c) => c !== nameNode && c.type !== 'variable_assignment' && c.type !== 'file_redirect').map(unquoteWord);
    const risk = commandRisk(name, args, guarded);
    if (risk !== null) return risk;
  }
  return null;
}
