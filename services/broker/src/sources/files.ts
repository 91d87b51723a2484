/**
 * Working-tree files: listing and reading.
 *
 * What is visible is what git would show: tracked files plus untracked files that are
 * not ignored. Ignored files (build output, local config, often secrets) are neither
 * listed nor readable, `.git` is never listed, and secret files are listed with
 * `hidden: true` but never read. A read checks the path lexically, then the effect
 * resolves it (symlinks included) inside the root and checks the resolved path again.
 */
import { AppError, SOURCE_LIMITS, type ListFilesOutput, type ReadFileOutput } from '@terminal-mcp/contract';
import type { BrokerConfig } from '../config/schema.js';
import { cutAtLineEnd, wholeUtf8Length, type GitRepo } from '../effects/git/git-runner.js';
import { readResolvedFile, resolveInsideRoot } from '../effects/source-files/source-file.js';
import { decideSourcePath, isSecretPath, literalPathspec, SECRET_DIRECTORIES } from '../policy/source-paths.js';
import { parseLsFiles } from './git-output.js';
import { allowedPath } from './history.js';
import { openSourceProject } from './project.js';
import { redactedRange } from '../policy/source-redaction.js';

type Entry = ListFilesOutput['entries'][number];

function isSecretDirectory(path: string): boolean {
  const base = (path.split('/').at(-1) ?? '').toLowerCase();
  return (SECRET_DIRECTORIES as readonly string[]).includes(base) || isSecretPath(`${path}/x`);
}

export async function listFiles(
  config: BrokerConfig,
  input: { project: string; dir?: string; recursive?: boolean; limit?: number },
): Promise<ListFilesOutput> {
  const dir = allowedPath(input.dir ?? '', { allowRoot: true });
  const limit = input.limit ?? SOURCE_LIMITS.listFilesDefault;
  const { git } = await openSourceProject(config, input.project);
  const out = await git.run(['ls-files', '-z', '-t', '--cached', '--others', '--exclude-standard', '--', ...(dir ? [literalPathspec(dir)] : [])]);
  if (out.exitCode !== 0 && !out.truncated) throw new Error(`git ls-files failed (${out.exitCode})`);

  const prefix = dir ? `${dir}/` : '';
  const entries = new Map<string, Entry>();
  for (const file of parseLsFiles(out.stdout.toString('utf8'))) {
    // Normalise and drop anything the policy would not let a caller name, except that
    // secret files stay listed (hidden) so the caller knows why they cannot be read.
    const decision = decideSourcePath(file.path);
    const path = decision.allowed ? decision.path : decision.reason === 'secret_file' ? file.path.replace(/\/+$/, '') : null;
    if (path === null || !path.startsWith(prefix)) continue;
    const rest = path.slice(prefix.length);
    const slash = rest.indexOf('/');
    // ls-files names an untracked nested repository as `dir/`: it is a directory.
    const isDir = file.path.endsWith('/') || (!input.recursive && slash >= 0);
    const shown = !input.recursive && slash >= 0 ? prefix + rest.slice(0, slash) : path;
    const existing = entries.get(shown);
    if (existing) {
      existing.tracked ||= file.tracked;
      continue;
    }
    entries.set(shown, {
      path: shown,
      type: isDir ? 'dir' : 'file',
      tracked: file.tracked,
      hidden: isDir ? isSecretDirectory(shown) : isSecretPath(shown),
    });
  }
  const sorted = [...entries.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return {
    project: input.project,
    dir,
    entries: sorted.slice(0, limit),
    truncated: out.truncated || sorted.length > limit,
  };
}

/** Ignored files are not readable: `check-ignore` exits 0 for an ignored path, 1 for a
 * visible one (tracked files are never ignored); anything else refuses. */
async function assertNotIgnored(git: GitRepo, relPath: string): Promise<void> {
  const out = await git.run(['check-ignore', '-q', '--', relPath], { maxBytes: 4096 });
  if (out.exitCode === 1) return;
  throw new AppError('PATH_NOT_ALLOWED', out.exitCode === 0 ? 'that file is ignored by git and not readable' : 'that path cannot be read');
}

export async function readFile(
  config: BrokerConfig,
  input: { project: string; path: string; start_line?: number; end_line?: number },
): Promise<ReadFileOutput> {
  const path = allowedPath(input.path);
  const project = await openSourceProject(config, input.project);
  const resolved = await resolveInsideRoot(project.root, path);
  if (resolved.relPath === '') throw new AppError('INVALID_ARGUMENT', 'that path is a directory: list it with listFiles');
  await assertNotIgnored(project.git, resolved.relPath);
  const head = await readResolvedFile(resolved, { maxBytes: SOURCE_LIMITS.readScanBytes });
  if (head.binary) throw new AppError('BINARY_FILE', 'the file is binary and cannot be shown as text');

  const ranged = input.start_line !== undefined || input.end_line !== undefined;
  if (!head.complete && !ranged) {
    throw new AppError(
      'FILE_TOO_LARGE',
      `the file is ${head.size} bytes, more than the ${SOURCE_LIMITS.readScanBytes} bytes read at once: ask for a line range within the first ${SOURCE_LIMITS.readScanBytes} bytes`,
    );
  }
  // Only whole lines count: an incomplete read ends at its last newline.
  const text = head.complete ? head.bytes.subarray(0, wholeUtf8Length(head.bytes)).toString('utf8') : cutAtLineEnd(head.bytes);
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const available = lines.length; // whole lines known; all of them when complete

  const start = input.start_line ?? 1;
  const requestedEnd = input.end_line ?? (head.complete ? Math.max(available, start) : start + SOURCE_LIMITS.readLines - 1);
  if (start > available && !(start === 1 && available === 0)) {
    if (!head.complete) throw new AppError('FILE_TOO_LARGE', `only the first ${available} lines (${SOURCE_LIMITS.readScanBytes} bytes) of this file can be read`);
    throw new AppError('INVALID_ARGUMENT', `start_line is past the end of the file (${available} lines)`);
  }
  if (!head.complete && input.end_line !== undefined && input.end_line > available) {
    throw new AppError('FILE_TOO_LARGE', `only the first ${available} lines (${SOURCE_LIMITS.readScanBytes} bytes) of this file can be read`);
  }
  const end = Math.min(requestedEnd, start + SOURCE_LIMITS.readLines - 1, available);
  // The whole read text is redacted before the range is cut: a range strictly inside a
  // key block has no marker of its own to be recognised by.
  const redacted = redactedRange(lines, start, end);
  const moreAfter = end < available || !head.complete;
  return {
    project: input.project,
    path,
    size_bytes: head.size,
    start_line: start,
    end_line: end,
    total_lines: head.complete ? available : null,
    text: redacted.lines.join('\n'),
    truncated: end < Math.min(requestedEnd, head.complete ? available : requestedEnd),
    next_start_line: moreAfter ? end + 1 : null,
    redactions: redacted.count,
  };
}
