/**
 * Text search with `git grep` over the files listFiles shows (tracked plus untracked,
 * not ignored; symlinks are not followed, binary files skipped). Fixed strings by
 * default; `regex: true` uses POSIX extended syntax (`-E`, the C library's
 * non-backtracking engine; never `-P`), after policy/search-pattern refuses
 * back-references and runaway bounded repetition. That engine is never exponential but
 * can be quadratic in the line length (`a+$` on a 100 KB line of `a`s takes minutes),
 * so the timeout (`observer.search_timeout_ms`, SIGKILL, then TIMEOUT) is what bounds a
 * search, and at most MAX_CONCURRENT_SEARCHES run at once (more get RATE_LIMITED).
 *
 * Secret files are excluded by pathspec and again by path. A hit whose line holds a
 * secret is shown only redacted, and only when the query still matches the redacted
 * line: otherwise the search would be an oracle ("does the key start with sk-ab?").
 * Regex hits on such lines are withheld, as are bare base64 lines (key material).
 */
import { AppError, SOURCE_LIMITS, type SearchTextOutput } from '@terminal-mcp/contract';
import type { BrokerConfig } from '../config/schema.js';
import { cutAtLineEnd } from '../effects/git/git-runner.js';
import { checkSearchRegex } from '../policy/search-pattern.js';
import { decideSourcePath, isGitInternalPath, isSecretPath, secretExclusionPathspecs } from '../policy/source-paths.js';
import { parseGrep } from './git-output.js';
import { openSourceProject } from './project.js';
import { BARE_BASE64_LINE, redactText } from './redaction.js';

const SEARCH_MAX_BYTES = 1024 * 1024;
export const MAX_CONCURRENT_SEARCHES = 2;
let runningSearches = 0;

/** A glob the caller may restrict the search to: a relative pattern that cannot climb. */
function globPathspec(glob: string): string {
  if (/[\x00-\x1f\x7f]/.test(glob) || glob.startsWith('/') || glob.split('/').includes('..')) {
    throw new AppError('INVALID_ARGUMENT', 'path_glob must be a relative glob without ".."');
  }
  // The magic prefix is ours; whatever follows is only ever a glob pattern.
  return `:(glob)${glob}`;
}

function asciiLower(s: string): string {
  return s.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

export async function searchText(
  config: BrokerConfig,
  input: { project: string; query: string; regex?: boolean; ignore_case?: boolean; path_glob?: string; max_results?: number },
): Promise<SearchTextOutput> {
  if (/[\n\r\0]/.test(input.query)) throw new AppError('INVALID_ARGUMENT', 'the query must be one line');
  if (input.regex) {
    const verdict = checkSearchRegex(input.query);
    if (!verdict.ok) throw new AppError('INVALID_ARGUMENT', `unsupported regular expression: ${verdict.reason}`);
  }
  const scope = input.path_glob === undefined ? [] : [globPathspec(input.path_glob)];
  const max = input.max_results ?? SOURCE_LIMITS.searchResultsDefault;
  const { git } = await openSourceProject(config, input.project);

  const args = [
    'grep',
    '-n',
    '-z',
    '-I',
    '--no-color',
    '--no-column',
    '--no-textconv',
    '--untracked',
    '--full-name',
    '--threads=2',
    `--max-count=${max + 1}`,
    input.regex ? '-E' : '-F',
    ...(input.ignore_case ? ['-i'] : []),
    '-e',
    input.query,
    '--',
    ...scope,
    ...secretExclusionPathspecs(),
  ];
  if (runningSearches >= MAX_CONCURRENT_SEARCHES) throw new AppError('RATE_LIMITED', 'other searches are running: retry in a few seconds');
  runningSearches += 1;
  let out;
  try {
    out = await git.run(args, { timeoutMs: config.observer.search_timeout_ms, maxBytes: SEARCH_MAX_BYTES });
  } finally {
    runningSearches -= 1;
  }
  if (out.exitCode === 128 || (out.exitCode !== 0 && out.exitCode !== 1 && !out.truncated)) {
    if (/regex|regular expression|unmatched|invalid/i.test(out.stderr)) throw new AppError('INVALID_ARGUMENT', 'invalid regular expression');
    throw new Error(`git grep failed (${out.exitCode})`);
  }

  const text = out.truncated ? cutAtLineEnd(out.stdout) : out.stdout.toString('utf8');
  const needle = input.ignore_case ? asciiLower(input.query) : input.query;
  const matches: SearchTextOutput['matches'] = [];
  let more = out.truncated;
  for (const hit of parseGrep(text)) {
    const decision = decideSourcePath(hit.path);
    if (!decision.allowed || isSecretPath(hit.path) || isGitInternalPath(hit.path)) continue;
    const line = hit.text.replace(/\0/g, '\uFFFD');
    if (BARE_BASE64_LINE.test(line)) continue;
    const redacted = redactText(line);
    if (redacted.count > 0) {
      const haystack = input.ignore_case ? asciiLower(redacted.text) : redacted.text;
      if (input.regex || !haystack.includes(needle)) continue;
    }
    if (matches.length === max) {
      more = true;
      break;
    }
    const shown = redacted.text.length > SOURCE_LIMITS.searchLineChars ? `${redacted.text.slice(0, SOURCE_LIMITS.searchLineChars)}…` : redacted.text;
    matches.push({ path: decision.path, line: hit.line, text: shown });
  }
  return { project: input.project, matches, truncated: more };
}
