/**
 * Git history reads: log, one commit, diffs, refs, blame. Every caller revision is
 * resolved to a commit id first (project.ts) and only ids reach later commands. Patches
 * leave out secret files twice over: git excludes them by pathspec, then each patch
 * section's path is checked again. All text is redacted.
 */
import {
  AppError,
  SOURCE_LIMITS,
  type BlameOutput,
  type CommitSummary,
  type DiffOutput,
  type FileStat,
  type GitLogOutput,
  type ListRefsOutput,
  type ShowCommitOutput,
} from '@terminal-mcp/contract';
import type { BrokerConfig } from '../config/schema.js';
import { cutAtLineEnd, type GitRepo } from '../effects/git/git-runner.js';
import {
  decideSourcePath,
  describeSourcePathRefusal,
  isGitInternalPath,
  isSecretPath,
  literalPathspec,
  secretExclusionPathspecs,
} from '../policy/source-paths.js';
import { filterPatchSections, LOG_FORMAT, parseBlamePorcelain, parseLog, parseNumstat, parseRefs, REF_FORMAT, type ParsedCommit } from './git-output.js';
import { emptyTree, headCommit, openSourceProject, resolveCommit } from './project.js';
import { redactLines, redactPatch, redactText } from '../policy/source-redaction.js';

/** Options every diff-producing command gets: no program from config or attributes runs,
 * output shape is fixed whatever the repository's diff.* config says. */
const DIFF_SAFETY = ['--no-ext-diff', '--no-textconv', '--no-color', '--no-renames', '--ignore-submodules=dirty'];

/** A caller path, checked lexically; PATH_NOT_ALLOWED names the rule broken. */
export function allowedPath(input: string, options: { allowRoot?: boolean } = {}): string {
  const decision = decideSourcePath(input, options);
  if (!decision.allowed) throw new AppError('PATH_NOT_ALLOWED', describeSourcePathRefusal(decision.reason));
  return decision.path;
}

function isHiddenPath(path: string): boolean {
  return isSecretPath(path) || isGitInternalPath(path);
}

function toCommitSummary(c: ParsedCommit): { summary: CommitSummary; redactions: number } {
  const subject = redactText(c.subject);
  const body = redactText(c.body.length > SOURCE_LIMITS.messageChars ? `${c.body.slice(0, SOURCE_LIMITS.messageChars)}…` : c.body);
  return {
    summary: {
      commit: c.commit,
      parents: c.parents,
      author_name: c.authorName,
      author_email: c.authorEmail,
      author_date: c.authorDate,
      committer_name: c.committerName,
      committer_date: c.committerDate,
      subject: subject.text,
      body: body.text,
    },
    redactions: subject.count + body.count,
  };
}

async function readLog(git: GitRepo, start: string, count: number, skip: number, path?: string): Promise<ParsedCommit[]> {
  const args = ['log', `--format=${LOG_FORMAT}`, '--no-color', `--max-count=${count}`, `--skip=${skip}`, '--end-of-options', start, '--'];
  if (path !== undefined) args.push(literalPathspec(path));
  const out = await git.run(args);
  if (out.exitCode !== 0 && !out.truncated) throw new Error(`git log failed (${out.exitCode})`);
  return parseLog(out.stdout.toString('utf8'));
}

export async function gitLog(
  config: BrokerConfig,
  input: { project: string; ref?: string; path?: string; limit?: number; skip?: number },
): Promise<GitLogOutput> {
  const path = input.path === undefined ? undefined : allowedPath(input.path);
  const { git } = await openSourceProject(config, input.project);
  const start = input.ref === undefined ? await headCommit(git) : await resolveCommit(git, input.ref);
  if (start === null) return { project: input.project, commits: [], next_skip: null, redactions: 0 };
  const limit = input.limit ?? SOURCE_LIMITS.logPageDefault;
  const skip = input.skip ?? 0;
  const parsed = await readLog(git, start, limit + 1, skip, path);
  const page = parsed.slice(0, limit).map(toCommitSummary);
  return {
    project: input.project,
    commits: page.map((p) => p.summary),
    next_skip: parsed.length > limit ? skip + limit : null,
    redactions: page.reduce((n, p) => n + p.redactions, 0),
  };
}

interface PatchResult {
  files: FileStat[];
  hidden_paths: string[];
  patch: string;
  truncated: boolean;
  redactions: number;
}

/** diffstat and patch between `base` and `target` (a commit id, or null for the working
 * tree), limited to `path` when given, secret files left out. */
async function patchBetween(git: GitRepo, base: string, target: string | null, path: string | undefined): Promise<PatchResult> {
  const revs = target === null ? [base] : [base, target];
  const scope = path === undefined ? [] : [literalPathspec(path)];

  // numstat over everything in scope names the secret files that changed, to report them.
  const stat = await git.run(['diff', '--numstat', '-z', ...DIFF_SAFETY, '--end-of-options', ...revs, '--', ...scope]);
  if (stat.exitCode !== 0 && !stat.truncated) throw new Error(`git diff --numstat failed (${stat.exitCode})`);
  const stats = parseNumstat(stat.stdout.toString('utf8'));
  const files = stats.filter((s) => !isHiddenPath(s.path));
  const hidden = stats.filter((s) => isHiddenPath(s.path)).map((s) => s.path);

  const diff = await git.run(['diff', '--patch', ...DIFF_SAFETY, '--end-of-options', ...revs, '--', ...scope, ...secretExclusionPathspecs()], {
    maxBytes: SOURCE_LIMITS.patchBytes,
  });
  if (diff.exitCode !== 0 && !diff.truncated) throw new Error(`git diff failed (${diff.exitCode})`);
  const raw = diff.truncated ? cutAtLineEnd(diff.stdout) : diff.stdout.toString('utf8');
  const filtered = filterPatchSections(raw, (p) => !isHiddenPath(p));
  const redacted = redactPatch(filtered.text);
  return {
    files,
    hidden_paths: [...new Set([...hidden, ...filtered.withheld])],
    patch: redacted.text,
    truncated: diff.truncated || stat.truncated,
    redactions: redacted.count,
  };
}

export async function showCommit(config: BrokerConfig, input: { project: string; rev: string }): Promise<ShowCommitOutput> {
  const { git } = await openSourceProject(config, input.project);
  const id = await resolveCommit(git, input.rev);
  const [commit] = await readLog(git, id, 1, 0);
  if (!commit) throw new AppError('NOT_FOUND', 'no such commit or revision');
  const meta = toCommitSummary(commit);
  // A merge is shown against its first parent, a root commit against the empty tree.
  const base = commit.parents[0] ?? (await emptyTree(git));
  const patch = await patchBetween(git, base, id, undefined);
  return { project: input.project, commit: meta.summary, ...patch, redactions: patch.redactions + meta.redactions };
}

export async function diff(config: BrokerConfig, input: { project: string; from?: string; to?: string; path?: string }): Promise<DiffOutput> {
  const path = input.path === undefined ? undefined : allowedPath(input.path, { allowRoot: true }) || undefined;
  const { git } = await openSourceProject(config, input.project);
  // Before the first commit the working tree is compared with the empty tree.
  const from = input.from === undefined ? ((await headCommit(git)) ?? (await emptyTree(git))) : await resolveCommit(git, input.from);
  const to = input.to === undefined ? null : await resolveCommit(git, input.to);
  const patch = await patchBetween(git, from, to, path);
  return { project: input.project, from, to, ...patch };
}

export async function listRefs(config: BrokerConfig, name: string): Promise<ListRefsOutput> {
  const { git } = await openSourceProject(config, name);
  const out = await git.run(['for-each-ref', `--format=${REF_FORMAT}`, `--count=${SOURCE_LIMITS.refs + 1}`, 'refs/heads', 'refs/tags']);
  if (out.exitCode !== 0 && !out.truncated) throw new Error(`git for-each-ref failed (${out.exitCode})`);
  const refs = parseRefs(out.stdout.toString('utf8'));
  const shown = refs.slice(0, SOURCE_LIMITS.refs);
  return {
    project: name,
    branches: shown
      .filter((r) => r.refname.startsWith('refs/heads/'))
      .map((r) => ({ name: r.refname.slice('refs/heads/'.length), commit: r.objectname, is_head: r.isHead, upstream: r.upstream || null })),
    tags: shown
      .filter((r) => r.refname.startsWith('refs/tags/'))
      .map((r) => ({ name: r.refname.slice('refs/tags/'.length), commit: r.peeled || r.objectname, annotated: r.objecttype === 'tag' })),
    truncated: out.truncated || refs.length > SOURCE_LIMITS.refs,
  };
}

/**
 * The blamed lines' text, redacted in the context of the whole file: the file at that
 * commit (up to readScanBytes) is redacted line by line in one piece and the blamed lines
 * are taken from it, so a range inside a key block is recognised. Lines past the part
 * read are redacted among the blamed lines only (key bodies are recognised there too).
 */
async function redactBlamedLines(
  git: GitRepo,
  id: string,
  path: string,
  parsed: readonly { line: number; text: string }[],
): Promise<{ lines: string[]; count: number }> {
  const own = parsed.map((l) => l.text);
  const blob = await git.run(['show', '--end-of-options', `${id}:${path}`], { maxBytes: SOURCE_LIMITS.readScanBytes });
  if (blob.exitCode !== 0 && !blob.truncated) return redactLines(own);
  const fileLines = (blob.truncated ? cutAtLineEnd(blob.stdout) : blob.stdout.toString('utf8')).split('\n');
  const whole = redactLines(fileLines);
  const inFile = parsed.every((l) => l.line >= 1 && l.line <= fileLines.length && fileLines[l.line - 1] === l.text);
  if (!inFile) return redactLines(own);
  const lines = parsed.map((l) => whole.lines[l.line - 1] as string);
  let count = 0;
  for (let i = 0; i < lines.length; i += 1) if (lines[i] !== own[i]) count += 1;
  return { lines, count };
}

/** Blames a committed file (never the working tree: blaming it would pass the file
 * through the repository's clean filter, and a commit is what blame is about). */
export async function blame(
  config: BrokerConfig,
  input: { project: string; path: string; start_line: number; end_line: number; rev?: string },
): Promise<BlameOutput> {
  const path = allowedPath(input.path);
  if (input.end_line - input.start_line >= SOURCE_LIMITS.blameLines) {
    throw new AppError('INVALID_ARGUMENT', `at most ${SOURCE_LIMITS.blameLines} lines per call`);
  }
  const { git } = await openSourceProject(config, input.project);
  const id = input.rev === undefined ? await headCommit(git) : await resolveCommit(git, input.rev);
  if (id === null) throw new AppError('NOT_FOUND', 'the project has no commits yet');
  // blame's path is a plain path (not a pathspec); `--` keeps it from being an option.
  const out = await git.run(['blame', '--porcelain', '--no-textconv', '-L', `${input.start_line},${input.end_line}`, id, '--', path]);
  if (out.exitCode !== 0) {
    const lines = /has only (\d+) lines?/.exec(out.stderr);
    if (lines) throw new AppError('INVALID_ARGUMENT', `start_line is past the end of the file (${lines[1]} lines)`);
    if (/no such path|no such ref|does not exist/i.test(out.stderr)) throw new AppError('NOT_FOUND', 'no such file in that commit');
    throw new Error(`git blame failed (${out.exitCode})`);
  }
  const parsed = parseBlamePorcelain(out.stdout.toString('utf8'));
  if (parsed.some((l) => l.text.includes('\0'))) throw new AppError('BINARY_FILE', 'the file is binary and cannot be blamed as text');
  const redacted = await redactBlamedLines(git, id, path, parsed);
  return {
    project: input.project,
    path,
    commit: id,
    lines: parsed.map((l, i) => ({
      line: l.line,
      commit: l.commit,
      author_name: l.authorName,
      author_date: new Date(l.authorTime * 1000).toISOString(),
      summary: redactText(l.summary).text,
      text: redacted.lines[i] ?? '',
    })),
    redactions: redacted.count,
  };
}
