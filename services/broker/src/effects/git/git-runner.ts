/**
 * Runs git read-only in one project root, so that nothing in the repository, the user's
 * config or the caller's arguments can make git run another program or leave the root.
 *
 * Security assumptions, each enforced here:
 * - Argument arrays only, never a shell; revisions are checked before they are placed
 *   (never a leading `-`), and callers put `--` before paths.
 * - No system or global config: `GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_GLOBAL=/dev/null`,
 *   HOME and XDG_CONFIG_HOME point at an empty private directory (no user aliases,
 *   external diff, textconv, attributes or excludes file). The environment is built
 *   from scratch, so inherited `GIT_DIR`, `GIT_EXTERNAL_DIFF`, `GIT_PAGER`... cannot leak in.
 * - The repository's own config can still name programs. Command-line config (which
 *   wins over it) disables the pager, fsmonitor, hooks, external diff, signature
 *   checking and mailmap files; only a fixed table of subcommands runs (never an
 *   alias), and diff-producing ones always get `--no-ext-diff`/`--no-textconv`. Clean and
 *   smudge filters have per-driver names, so the repository's config is read first and
 *   every `filter.<name>.*` driver found is blanked (an empty command runs nothing).
 *   Residual risk: a writer racing a config change between that read and the command.
 * - No network: `GIT_ALLOW_PROTOCOL` names no protocol, so a partial clone cannot
 *   lazily fetch through a remote helper or ssh command.
 * - Discovery stops at the root (`GIT_CEILING_DIRECTORIES` is its parent) and
 *   `safe.directory` names only the root.
 * - `GIT_OPTIONAL_LOCKS=0`: a read never rewrites the index.
 * - A timeout (SIGKILL) and a stdout cap; output cut at the cap is reported as truncated.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { AppError, REVISION_PATTERN } from '@terminal-mcp/contract';
import { execa } from 'execa';

export const GIT_TIMEOUT_MS = 10_000;
export const GIT_MAX_OUTPUT_BYTES = 2 * 1024 * 1024;
const STDERR_MAX_BYTES = 256 * 1024;

export interface GitRunOptions {
  /** Default GIT_TIMEOUT_MS. */
  timeoutMs?: number;
  /** stdout cap in bytes; default GIT_MAX_OUTPUT_BYTES. */
  maxBytes?: number;
}

export interface GitResult {
  exitCode: number;
  stdout: Buffer;
  /** For classifying failures and for the log; never shown to a caller. */
  stderr: string;
  /** stdout reached maxBytes and git was stopped. */
  truncated: boolean;
}

export interface GitRepo {
  /** The root's real path (symlinks resolved). */
  readonly root: string;
  run(args: readonly string[], options?: GitRunOptions): Promise<GitResult>;
}

let emptyHome: string | undefined;
/** A private empty directory used as HOME and XDG_CONFIG_HOME, made once per process. */
function emptyHomeDir(): string {
  if (!emptyHome) {
    emptyHome = mkdtempSync(join(tmpdir(), 'terminal-mcp-git-home-'));
    const made = emptyHome;
    process.once('exit', () => rmSync(made, { recursive: true, force: true }));
  }
  return emptyHome;
}

/** Command-line config that wins over the repository's own. */
function safetyConfigArgs(root: string): string[] {
  const settings = [
    'core.hooksPath=/dev/null',
    `safe.directory=${root}`,
    'core.fsmonitor=false',
    'core.pager=cat',
    'diff.external=',
    'diff.noprefix=false',
    'diff.mnemonicPrefix=false',
    'diff.relative=false',
    'color.ui=false',
    'log.showSignature=false',
    'log.mailmap=false',
    'mailmap.file=',
    'mailmap.blob=',
    'core.attributesFile=/dev/null',
    'protocol.allow=never',
    'submodule.recurse=false',
  ];
  return ['--no-pager', ...settings.flatMap((s) => ['-c', s])];
}

function baseEnv(root: string): Record<string, string> {
  const home = emptyHomeDir();
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    XDG_CONFIG_HOME: home,
    LC_ALL: 'C',
    LANG: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_NO_REPLACE_OBJECTS: '1',
    GIT_ALLOW_PROTOCOL: 'none',
    GIT_CEILING_DIRECTORIES: dirname(root),
    GIT_PAGER: 'cat',
    PAGER: 'cat',
  };
}

/** Refuses a revision that git could read as an option. Callers also resolve revisions
 * to commit ids before using them, and put `--end-of-options` before them where git has it. */
export function assertRevisionArgument(rev: string): void {
  // The contract's grammar again (the broker trusts no client's validation): ref names,
  // object ids and ~N/^N only, so no revision can search commit text (an oracle).
  if (!REVISION_PATTERN.test(rev)) {
    throw new AppError('INVALID_ARGUMENT', 'invalid revision', 'Name a branch, tag or commit id, optionally with ~N or ^N (for example HEAD~2).');
  }
}

/**
 * The only git subcommands the runner runs, each with the flags it always gets. Diff
 * drivers (`diff.<driver>.command`, `.textconv`) are chosen per path by attributes and
 * can only be switched off by these flags, so they are added here, not left to callers.
 * Anything else (including an alias the repository defines) is refused.
 */
const SUBCOMMANDS: Readonly<Record<string, readonly string[]>> = {
  'rev-parse': [],
  config: [],
  status: [],
  'ls-files': [],
  'check-ignore': [],
  'for-each-ref': [],
  'hash-object': [],
  log: ['--no-ext-diff', '--no-textconv'],
  show: ['--no-ext-diff', '--no-textconv'],
  diff: ['--no-ext-diff', '--no-textconv'],
  blame: ['--no-textconv'],
  grep: ['--no-textconv'],
};

function commandLine(root: string, args: readonly string[]): string[] {
  const [sub, ...rest] = args;
  const forced = sub === undefined ? undefined : SUBCOMMANDS[sub];
  if (sub === undefined || forced === undefined) throw new Error(`git subcommand not allowed: ${String(sub)}`);
  return [...safetyConfigArgs(root), sub, ...forced, ...rest];
}

async function exec(root: string, env: Record<string, string>, args: readonly string[], options: GitRunOptions): Promise<GitResult> {
  const maxBytes = options.maxBytes ?? GIT_MAX_OUTPUT_BYTES;
  const result = await execa('git', commandLine(root, args), {
    cwd: root,
    env,
    extendEnv: false,
    stdin: 'ignore',
    encoding: 'buffer',
    reject: false,
    timeout: options.timeoutMs ?? GIT_TIMEOUT_MS,
    killSignal: 'SIGKILL',
    maxBuffer: { stdout: maxBytes, stderr: STDERR_MAX_BYTES },
    stripFinalNewline: false,
  });
  if (result.timedOut) throw new AppError('TIMEOUT', 'the git command took too long and was stopped');
  const stdout = Buffer.from(result.stdout ?? new Uint8Array());
  const stderr = Buffer.from(result.stderr ?? new Uint8Array()).toString('utf8');
  // stdout hitting its cap is a result ("truncated"); any other failure to run is ours.
  const truncated = result.isMaxBuffer && stdout.length >= maxBytes;
  if (result.exitCode === undefined && !truncated) {
    throw new Error(`git could not run: ${result.shortMessage ?? 'unknown'}`);
  }
  return { exitCode: result.exitCode ?? -1, stdout, stderr, truncated };
}

const FILTER_KEY = /^filter\.(.+)\.(clean|smudge|process|required)$/s;

/** Names of the clean/smudge filter drivers the repository's config defines. */
async function filterDriverNames(root: string, env: Record<string, string>): Promise<string[]> {
  const out = await exec(root, env, ['config', '-z', '--get-regexp', '^filter\\.'], { maxBytes: 256 * 1024 });
  if (out.truncated) throw new Error('repository config is too large to check for filters');
  if (out.exitCode !== 0 && out.exitCode !== 1) throw new Error(`git config failed (${out.exitCode})`);
  const names = new Set<string>();
  for (const record of out.stdout.toString('utf8').split('\0')) {
    const key = record.split('\n', 1)[0] ?? '';
    const m = FILTER_KEY.exec(key);
    if (m) names.add(m[1]!);
  }
  return [...names];
}

/** `GIT_CONFIG_KEY_n`/`VALUE_n` pairs (command-line scope, like `-c`, but a driver name
 * containing `=` cannot be misparsed) blanking every filter driver. */
function filterOverrideEnv(names: readonly string[]): Record<string, string> {
  const pairs = names.flatMap((n) => [
    [`filter.${n}.clean`, ''],
    [`filter.${n}.smudge`, ''],
    [`filter.${n}.process`, ''],
    [`filter.${n}.required`, 'false'],
  ]);
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(pairs.length) };
  pairs.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key!;
    env[`GIT_CONFIG_VALUE_${i}`] = value!;
  });
  return env;
}

/**
 * A runner bound to one root (a real path, see effects/source-files). Reads the
 * repository's filter drivers once; build one per request so a config change is seen.
 */
export async function openGitRepo(root: string): Promise<GitRepo> {
  const env = baseEnv(root);
  const fullEnv = { ...env, ...filterOverrideEnv(await filterDriverNames(root, env)) };
  return {
    root,
    run: (args, options = {}) => exec(root, fullEnv, args, options),
  };
}

/** Cuts UTF-8 output at the last newline (or, without one, the last whole character)
 * so a truncated text never ends in half a line or half a character. */
export function cutAtLineEnd(text: Buffer): string {
  const nl = text.lastIndexOf(0x0a);
  if (nl >= 0) return text.subarray(0, nl + 1).toString('utf8');
  return text.subarray(0, wholeUtf8Length(text)).toString('utf8');
}

/** Length of the longest prefix of `bytes` that does not end inside a UTF-8 sequence. */
export function wholeUtf8Length(bytes: Uint8Array): number {
  let lead = bytes.length - 1;
  while (lead >= 0 && lead > bytes.length - 4 && (bytes[lead]! & 0xc0) === 0x80) lead -= 1;
  if (lead < 0) return bytes.length;
  const b = bytes[lead]!;
  const expected = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
  return bytes.length - lead >= expected ? bytes.length : lead;
}
