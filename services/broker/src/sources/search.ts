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
 * Secret files are excluded by pathspec and again by path.
 *
 * No oracle: no field of the answer (which hits, their order, `truncated`) and not its
 * timing may depend on text that is withheld. git grep matches the original text, so
 * each hit is judged on the REDACTED text only: its line is redacted in context, on a
 * bounded window of the file around it (RedactedFiles), and
 * - a line that redaction left unchanged is shown (unless it is a bare base64 line);
 * - a changed line is shown only for a fixed-string query found in it outside every
 *   `[REDACTED:...]` marker (then the original holds the query at the same place, so git
 *   reported it whatever the secret is); regex hits on changed lines are withheld;
 * - a hit past the part of a file that is read (readScanBytes) is withheld.
 * So the surviving hits are a function of the redacted tree, and `truncated` is decided
 * over surviving hits only. There is no per-file `--max-count`: it counted hits on
 * withheld lines, which made `truncated` depend on the secret. The one residue is the
 * output cap: if git's output exceeds SEARCH_MAX_BYTES before max_results + 1 hits
 * survive, the answer is `truncated: true` with what survived, and where that cut falls
 * depends on the length of withheld lines too.
 *
 * Timing: judging the hits takes at least SEARCH_JUDGE_FLOOR_MS (or twice git's time), and one hit's judging
 * (a read of the file head, one window redacted) fits well under it, so a right guess of
 * a withheld line answers after the same time as a wrong one (issue 46 A.1: judging used
 * to redact the whole file on a hit only, 0.5 s against 40 ms for a miss).
 */
import { AppError, SOURCE_LIMITS, type SearchTextOutput } from '@terminal-mcp/contract';
import type { BrokerConfig } from '../config/schema.js';
import { cutAtLineEnd, wholeUtf8Length } from '../effects/git/git-runner.js';
import { readResolvedFile, resolveInsideRoot } from '../effects/source-files/source-file.js';
import { checkSearchRegex } from '../policy/search-pattern.js';
import { decideSourcePath, isGitInternalPath, isSecretPath, secretExclusionPathspecs } from '../policy/source-paths.js';
import { parseGrep } from './git-output.js';
import { openSourceProject } from './project.js';
import { BARE_BASE64_LINE, redactLines } from '../policy/source-redaction.js';
import { REDACTION_MARKER } from '../policy/redact.js';

const SEARCH_MAX_BYTES = 4 * 1024 * 1024;
export const MAX_CONCURRENT_SEARCHES = 2;

/** Where the searches running now are counted (projects/running-work.ts, one per broker). */
export interface SearchSlots {
  /** Takes a search slot or throws RATE_LIMITED; call the returned release when done. */
  takeSearchSlot(max: number): () => void;
}

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

const MARKER = REDACTION_MARKER;

/** Whether `needle` occurs in a redacted line at a place that overlaps no marker. */
function foundOutsideMarkers(line: string, needle: string, ignoreCase = false): boolean {
  const haystack = ignoreCase ? asciiLower(line) : line;
  const markers: [number, number][] = [];
  MARKER.lastIndex = 0;
  for (let m = MARKER.exec(line); m !== null; m = MARKER.exec(line)) markers.push([m.index, m.index + m[0].length]);
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) {
    const end = at + needle.length;
    if (!markers.some(([s, e]) => at < e && s < end)) return true;
  }
  return false;
}

/** Lines judged together: a hit's line is redacted with the other lines of its chunk,
 * and with WINDOW_ABOVE lines above the chunk and WINDOW_BELOW below as context. */
const CHUNK_LINES = 64;
/** Context above a chunk: a key block's BEGIN (a 4096-bit PEM key is 51 lines), a YAML
 * block scalar's key. Key body lines further down than this are recognised as a run of
 * base64 lines touching the window's top (redact.ts) or as a bare base64 line below. */
const WINDOW_ABOVE = 64;
const WINDOW_BELOW = 16;
/**
 * The least time judging hits takes, whatever git reported (or twice as long as git
 * took, if that is longer: a loaded machine slows both). A right guess of a withheld line
 * gives git one hit more than a wrong guess; judging it (a read of the file head, a
 * window redacted) is a few milliseconds, hidden under this floor, so a right and a
 * wrong guess answer after the same time (test/src/source-search-timing.test.ts).
 * Judging many hits can take longer than the floor; then the time tells roughly how many
 * lines matched, which the caller's own query mostly decides.
 */
export const SEARCH_JUDGE_FLOOR_MS = 50;

/** A file's text read once, and the starts of its lines found only as far as needed. */
class FileText {
  private readonly starts: number[] = [0];
  constructor(private readonly text: string) {}

  /** Lines `from`..`to` (0-based, `to` exclusive, cut at the end of the file). */
  lines(from: number, to: number): string[] {
    while (this.starts.length <= to && this.starts.at(-1)! <= this.text.length) {
      const nl = this.text.indexOf('\n', this.starts.at(-1)!);
      this.starts.push(nl < 0 ? this.text.length + 1 : nl + 1);
    }
    const out: string[] = [];
    for (let i = from; i < to && i + 1 < this.starts.length; i += 1) {
      const start = this.starts[i]!;
      if (start > this.text.length || (start === this.text.length && this.text.endsWith('\n'))) break;
      out.push(this.text.slice(start, this.starts[i + 1]! - 1).replace(/\0/g, '\uFFFD'));
    }
    return out;
  }
}

/** Working-tree files with hits, each read once (up to readScanBytes); a hit's line is
 * judged on a bounded window of the file redacted in context (never the whole file: that
 * cost hundreds of milliseconds on a big file, only for a hit, which was a timing oracle,
 * issue 46), and only the lines up to that window are even split. Redacted chunks are
 * kept for the other hits of the same call. */
class RedactedFiles {
  private readonly cache = new Map<string, { file: FileText; chunks: Map<number, { original: string[]; redacted: string[] }> } | null>();
  constructor(private readonly root: string) {}

  /** Line `n` (1-based) of the file redacted in context, or null when it cannot be judged
   * (past the part read, or the file no longer holds the line git reported: it changed,
   * or the path is a symlink, which git greps as its target name). */
  async line(path: string, n: number, reported: string): Promise<string | null> {
    let entry = this.cache.get(path);
    if (entry === undefined) {
      entry = await this.load(path);
      this.cache.set(path, entry);
    }
    if (entry === null) return null;
    const chunk = Math.floor((n - 1) / CHUNK_LINES);
    let judged = entry.chunks.get(chunk);
    if (judged === undefined) {
      const first = chunk * CHUNK_LINES;
      const from = Math.max(0, first - WINDOW_ABOVE);
      const window = entry.file.lines(from, first + CHUNK_LINES + WINDOW_BELOW);
      const redacted = redactLines(window).lines;
      judged = { original: window.slice(first - from, first - from + CHUNK_LINES), redacted: redacted.slice(first - from, first - from + CHUNK_LINES) };
      entry.chunks.set(chunk, judged);
    }
    const at = n - 1 - chunk * CHUNK_LINES;
    if (judged.original[at] !== reported) return null;
    return judged.redacted[at] ?? null;
  }

  private async load(path: string): Promise<{ file: FileText; chunks: Map<number, { original: string[]; redacted: string[] }> } | null> {
    try {
      const head = await readResolvedFile(await resolveInsideRoot(this.root, path), { maxBytes: SOURCE_LIMITS.readScanBytes });
      if (head.binary) return null;
      const text = head.complete ? head.bytes.subarray(0, wholeUtf8Length(head.bytes)).toString('utf8') : cutAtLineEnd(head.bytes);
      return { file: new FileText(text), chunks: new Map() };
    } catch {
      // Gone, a symlink out of the root, not a regular file: nothing to show.
      return null;
    }
  }
}

/** Resolves once `ms` have passed since `since` (performance.now()). */
function until(since: number, ms: number): Promise<void> {
  const left = since + ms - performance.now();
  return left <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, left));
}

export async function searchText(
  config: BrokerConfig,
  input: { project: string; query: string; regex?: boolean; ignore_case?: boolean; path_glob?: string; max_results?: number },
  running: SearchSlots,
): Promise<SearchTextOutput> {
  if (/[\n\r\0]/.test(input.query)) throw new AppError('INVALID_ARGUMENT', 'the query must be one line');
  if (input.regex) {
    const verdict = checkSearchRegex(input.query);
    if (!verdict.ok) throw new AppError('INVALID_ARGUMENT', `unsupported regular expression: ${verdict.reason}`);
  }
  const scope = input.path_glob === undefined ? [] : [globPathspec(input.path_glob)];
  const max = input.max_results ?? SOURCE_LIMITS.searchResultsDefault;
  const { git, root } = await openSourceProject(config, input.project);

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
    input.regex ? '-E' : '-F',
    ...(input.ignore_case ? ['-i'] : []),
    '-e',
    input.query,
    '--',
    ...scope,
    ...secretExclusionPathspecs(),
  ];
  const release = running.takeSearchSlot(MAX_CONCURRENT_SEARCHES);
  const grepping = performance.now();
  let out;
  try {
    out = await git.run(args, { timeoutMs: config.observer.search_timeout_ms, maxBytes: SEARCH_MAX_BYTES });
  } finally {
    release();
  }
  if (out.exitCode === 128 || (out.exitCode !== 0 && out.exitCode !== 1 && !out.truncated)) {
    if (/regex|regular expression|unmatched|invalid/i.test(out.stderr)) throw new AppError('INVALID_ARGUMENT', 'invalid regular expression');
    throw new Error(`git grep failed (${out.exitCode})`);
  }

  const text = out.truncated ? cutAtLineEnd(out.stdout) : out.stdout.toString('utf8');
  const needle = input.ignore_case ? asciiLower(input.query) : input.query;
  const judging = performance.now();
  // On a loaded machine judging a hit slows down as git did: the floor grows with it,
  // with room to spare (twice git's time), since a starved process stretches a few
  // milliseconds of judging further than it stretches git's own work.
  const floor = Math.max(SEARCH_JUDGE_FLOOR_MS, 2 * (judging - grepping));
  const files = new RedactedFiles(root);
  const matches: SearchTextOutput['matches'] = [];
  let more = false;
  for (const hit of parseGrep(text)) {
    const decision = decideSourcePath(hit.path);
    if (!decision.allowed || isSecretPath(hit.path) || isGitInternalPath(hit.path)) continue;
    const original = hit.text.replace(/\0/g, '\uFFFD');
    const redacted = await files.line(decision.path, hit.line, original);
    if (redacted === null) continue;
    if (redacted === original ? BARE_BASE64_LINE.test(original) : input.regex || !foundOutsideMarkers(redacted, needle, input.ignore_case)) {
      continue;
    }
    if (matches.length === max) {
      more = true;
      break;
    }
    const shown = redacted.length > SOURCE_LIMITS.searchLineChars ? `${redacted.slice(0, SOURCE_LIMITS.searchLineChars)}…` : redacted;
    matches.push({ path: decision.path, line: hit.line, text: shown });
  }
  // Cut by the output cap before enough hits survived: more may exist.
  if (out.truncated) more = true;
  await until(judging, floor);
  return { project: input.project, matches, truncated: more };
}
