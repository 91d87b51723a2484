/**
 * Parsers for git's machine-readable output (porcelain v2 status, NUL-separated log
 * fields, numstat -z, for-each-ref, blame --porcelain, grep -z, ls-files -t -z, unified
 * patches). Pure. Every parser is strict about shape: what does not parse is dropped,
 * never guessed at, and a patch section whose file cannot be named is withheld.
 */

// ---- status --porcelain=v2 -z ------------------------------------------------------------

export interface ParsedStatusEntry {
  kind: 'changed' | 'renamed' | 'unmerged' | 'untracked';
  xy: string;
  path: string;
  origPath: string | null;
}

export interface ParsedStatus {
  head: string | null;
  branch: string | null;
  upstream: string | null;
  ahead: number | null;
  behind: number | null;
  entries: ParsedStatusEntry[];
}

/** Text after the `n`-th space (paths may contain spaces; the fields before them do not). */
function afterFields(record: string, n: number): string | null {
  let at = -1;
  for (let i = 0; i < n; i += 1) {
    at = record.indexOf(' ', at + 1);
    if (at < 0) return null;
  }
  return record.slice(at + 1);
}

export function parseStatusV2(text: string): ParsedStatus {
  const out: ParsedStatus = { head: null, branch: null, upstream: null, ahead: null, behind: null, entries: [] };
  const records = text.split('\0');
  for (let i = 0; i < records.length; i += 1) {
    const r = records[i]!;
    if (r.startsWith('# branch.oid ')) {
      const v = r.slice('# branch.oid '.length);
      out.head = v === '(initial)' ? null : v;
    } else if (r.startsWith('# branch.head ')) {
      const v = r.slice('# branch.head '.length);
      out.branch = v === '(detached)' ? null : v;
    } else if (r.startsWith('# branch.upstream ')) {
      out.upstream = r.slice('# branch.upstream '.length);
    } else if (r.startsWith('# branch.ab ')) {
      const m = /^# branch\.ab \+(\d+) -(\d+)$/.exec(r);
      if (m) {
        out.ahead = Number(m[1]);
        out.behind = Number(m[2]);
      }
    } else if (r.startsWith('1 ')) {
      const path = afterFields(r, 8);
      if (path) out.entries.push({ kind: 'changed', xy: r.slice(2, 4), path, origPath: null });
    } else if (r.startsWith('2 ')) {
      const path = afterFields(r, 9);
      const origPath = records[i + 1] ?? null;
      i += 1; // the source path is the next NUL-separated record
      if (path) out.entries.push({ kind: 'renamed', xy: r.slice(2, 4), path, origPath });
    } else if (r.startsWith('u ')) {
      const path = afterFields(r, 10);
      if (path) out.entries.push({ kind: 'unmerged', xy: r.slice(2, 4), path, origPath: null });
    } else if (r.startsWith('? ')) {
      out.entries.push({ kind: 'untracked', xy: '??', path: r.slice(2), origPath: null });
    }
  }
  return out;
}

// ---- log ------------------------------------------------------------------------------

/** `git log --format` producing one NUL-terminated field each, in this order. */
export const LOG_FORMAT = ['%H', '%P', '%an', '%ae', '%aI', '%cn', '%cI', '%s', '%b'].map((f) => `${f}%x00`).join('');
const LOG_FIELDS = 9;

export interface ParsedCommit {
  commit: string;
  parents: string[];
  authorName: string;
  authorEmail: string;
  authorDate: string;
  committerName: string;
  committerDate: string;
  subject: string;
  body: string;
}

export function parseLog(text: string): ParsedCommit[] {
  const fields = text.split('\0');
  const commits: ParsedCommit[] = [];
  for (let i = 0; i + LOG_FIELDS <= fields.length; i += LOG_FIELDS) {
    // Each commit after the first starts with the newline that terminated the previous one.
    const hash = fields[i]!.replace(/^\n/, '');
    if (!/^[0-9a-f]{40,64}$/.test(hash)) break;
    const f = fields.slice(i, i + LOG_FIELDS);
    commits.push({
      commit: hash,
      parents: f[1]!.split(' ').filter((p) => p.length > 0),
      authorName: f[2]!,
      authorEmail: f[3]!,
      authorDate: f[4]!,
      committerName: f[5]!,
      committerDate: f[6]!,
      subject: f[7]!,
      body: f[8]!.replace(/\n+$/, ''),
    });
  }
  return commits;
}

// ---- diff --numstat -z (with --no-renames) ----------------------------------------------

export interface ParsedFileStat {
  path: string;
  added: number | null;
  deleted: number | null;
}

export function parseNumstat(text: string): ParsedFileStat[] {
  const stats: ParsedFileStat[] = [];
  for (const record of text.split('\0')) {
    const m = /^\n?(-|\d+)\t(-|\d+)\t([\s\S]+)$/.exec(record);
    if (!m) continue;
    stats.push({ path: m[3]!, added: m[1] === '-' ? null : Number(m[1]), deleted: m[2] === '-' ? null : Number(m[2]) });
  }
  return stats;
}

// ---- for-each-ref ------------------------------------------------------------------------

export const REF_FORMAT = '%(refname)%00%(objectname)%00%(objecttype)%00%(*objectname)%00%(HEAD)%00%(upstream:short)';

export interface ParsedRef {
  refname: string;
  objectname: string;
  objecttype: string;
  peeled: string;
  isHead: boolean;
  upstream: string;
}

export function parseRefs(text: string): ParsedRef[] {
  return text
    .split('\n')
    .map((line) => line.split('\0'))
    .filter((f) => f.length === 6)
    .map((f) => ({ refname: f[0]!, objectname: f[1]!, objecttype: f[2]!, peeled: f[3]!, isHead: f[4] === '*', upstream: f[5]! }));
}

// ---- blame --porcelain ----------------------------------------------------------------

export interface ParsedBlameLine {
  line: number;
  commit: string;
  authorName: string;
  authorTime: number;
  summary: string;
  text: string;
}

export function parseBlamePorcelain(text: string): ParsedBlameLine[] {
  const info = new Map<string, { author: string; time: number; summary: string }>();
  const out: ParsedBlameLine[] = [];
  let current: { commit: string; finalLine: number } | null = null;
  for (const line of text.split('\n')) {
    const header = /^([0-9a-f]{40,64}) \d+ (\d+)(?: \d+)?$/.exec(line);
    if (header) {
      current = { commit: header[1]!, finalLine: Number(header[2]) };
      if (!info.has(current.commit)) info.set(current.commit, { author: '', time: 0, summary: '' });
      continue;
    }
    if (!current) continue;
    const meta = info.get(current.commit)!;
    if (line.startsWith('\t')) {
      out.push({
        line: current.finalLine,
        commit: current.commit,
        authorName: meta.author,
        authorTime: meta.time,
        summary: meta.summary,
        text: line.slice(1),
      });
      current = null;
    } else if (line.startsWith('author ')) {
      meta.author = line.slice('author '.length);
    } else if (line.startsWith('author-time ')) {
      meta.time = Number(line.slice('author-time '.length)) || 0;
    } else if (line.startsWith('summary ')) {
      meta.summary = line.slice('summary '.length);
    }
  }
  return out;
}

// ---- grep -n -z ------------------------------------------------------------------------

export interface ParsedGrepHit {
  path: string;
  line: number;
  text: string;
}

/** Records are `path NUL lineno NUL text LF`; the path may hold any byte but NUL, the text
 * anything but LF, so the record is read field by field, never split on LF first. */
export function parseGrep(text: string): ParsedGrepHit[] {
  const hits: ParsedGrepHit[] = [];
  let at = 0;
  while (at < text.length) {
    const a = text.indexOf('\0', at);
    if (a < 0) break;
    const b = text.indexOf('\0', a + 1);
    if (b < 0) break;
    let end = text.indexOf('\n', b + 1);
    if (end < 0) end = text.length;
    const line = Number(text.slice(a + 1, b));
    if (Number.isInteger(line) && line > 0) hits.push({ path: text.slice(at, a), line, text: text.slice(b + 1, end) });
    at = end + 1;
  }
  return hits;
}

// ---- ls-files -t -z ---------------------------------------------------------------------

export interface ParsedListedFile {
  path: string;
  tracked: boolean;
}

export function parseLsFiles(text: string): ParsedListedFile[] {
  const files: ParsedListedFile[] = [];
  for (const record of text.split('\0')) {
    const m = /^([A-Z?]) ([\s\S]+)$/.exec(record);
    if (m) files.push({ path: m[2]!, tracked: m[1] !== '?' });
  }
  return files;
}

// ---- unified patches ------------------------------------------------------------------

/** Undo git's C-style path quoting (`"a\tb\303\251"`). Returns null for malformed input. */
export function unquoteGitPath(quoted: string): string | null {
  if (!quoted.startsWith('"') || !quoted.endsWith('"') || quoted.length < 2) return null;
  const body = quoted.slice(1, -1);
  const bytes: number[] = [];
  const simple: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };
  for (let i = 0; i < body.length; i += 1) {
    const c = body[i]!;
    if (c !== '\\') {
      bytes.push(...Buffer.from(c, 'utf8'));
      continue;
    }
    const n = body[i + 1];
    if (n === undefined) return null;
    if (n in simple) {
      bytes.push(simple[n]!);
      i += 1;
    } else if (/^[0-3][0-7]{2}$/.test(body.slice(i + 1, i + 4))) {
      bytes.push(parseInt(body.slice(i + 1, i + 4), 8));
      i += 3;
    } else {
      return null;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** The file of a `diff --git` header produced with --no-renames (both sides name the
 * same path), or null when the header does not have that shape. */
export function patchHeaderPath(header: string): string | null {
  const rest = header.slice('diff --git '.length);
  if (rest.startsWith('"')) {
    const half = (rest.length - 1) / 2; // `"a/P" "b/P"`
    if (!Number.isInteger(half)) return null;
    const left = rest.slice(0, half);
    const right = rest.slice(half + 1);
    if (rest[half] !== ' ' || !left.startsWith('"a/') || !right.startsWith('"b/') || left.slice(3) !== right.slice(3)) return null;
    return unquoteGitPath(`"${left.slice(3)}`);
  }
  const len = (rest.length - 5) / 2; // `a/P b/P`
  if (!Number.isInteger(len) || len < 1) return null;
  const path = rest.slice(2, 2 + len);
  return rest === `a/${path} b/${path}` ? path : null;
}

/**
 * Split a patch into its per-file sections and keep those whose file `keep` accepts.
 * Defence in depth behind git's exclude pathspecs: a section whose path cannot be read
 * is withheld. Returns the kept text and the paths withheld.
 */
export function filterPatchSections(patch: string, keep: (path: string) => boolean): { text: string; withheld: string[] } {
  const lines = patch.split('\n');
  const kept: string[] = [];
  const withheld: string[] = [];
  let keeping = true;
  for (const line of lines) {
    if (line.startsWith('diff --git ')) {
      const path = patchHeaderPath(line);
      keeping = path !== null && keep(path);
      if (!keeping) withheld.push(path ?? '(unreadable path)');
    }
    if (keeping) kept.push(line);
  }
  return { text: kept.join('\n'), withheld };
}
