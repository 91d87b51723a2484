/**
 * The one shape of every list-shaped answer (issue 31: a model pays for each byte of it):
 * rows as arrays under named `columns`, and every column whose value is the same in all
 * rows said once under `same` instead of in each row. List answers travel as text only
 * (define-tool.ts, returnsStructured): the table tab-separated (renderRecords), which
 * parseRows reads back. docs/tools.md ("List answers") documents it for clients.
 */
export type Cell = string | number | boolean | null;

export interface CompactRows {
  /** Columns with one value in every row (only when there are two rows or more). */
  same?: Record<string, Cell>;
  columns: string[];
  rows: Cell[][];
}

/**
 * `columns` in order; `keep` names the columns never folded into `same` (what identifies a
 * row, e.g. the session name).
 */
export function compactRows(records: readonly Record<string, Cell>[], columns: readonly string[], keep: readonly string[] = []): CompactRows {
  const same: Record<string, Cell> = {};
  const varying: string[] = [];
  for (const c of columns) {
    const first = records[0]?.[c] ?? null;
    if (records.length >= 2 && !keep.includes(c) && records.every((r) => (r[c] ?? null) === first)) same[c] = first;
    else varying.push(c);
  }
  return {
    ...(Object.keys(same).length > 0 ? { same } : {}),
    columns: varying,
    rows: records.map((r) => varying.map((c) => r[c] ?? null)),
  };
}

/** A cell as text: bare when it cannot be mistaken for a separator or another value,
 * else quoted as JSON (names are anyone's: quotes, tabs, newlines stay unambiguous). An
 * absent value (null) is an empty cell. */
export function cellText(value: Cell): string {
  if (value === null) return '';
  if (typeof value !== 'string') return String(value);
  return /^[\p{L}\p{N}_.@%:+/=~,-]+$/u.test(value) && value !== 'true' && value !== 'false' && !/^-?\d/.test(value) ? value : JSON.stringify(value);
}

/** The table as text lines: `same: k=v ...` when any, the column names, one line per row. */
export function renderCompactRows(t: CompactRows): string[] {
  const same = t.same ? [`same in every row: ${Object.entries(t.same).map(([k, v]) => `${k}=${cellText(v)}`).join(' ')}`] : [];
  if (t.rows.length === 0) return same;
  return [...same, t.columns.join('\t'), ...t.rows.map((r) => r.map(cellText).join('\t'))];
}

/** The rows back as one object each (`same` merged in): what a client that wants records
 * does with a list answer's structuredContent. Throws on anything of another shape. */
export function expandRows(answer: unknown): Record<string, Cell>[] {
  const t = answer as Partial<CompactRows> | undefined;
  if (!t || !Array.isArray(t.columns) || !Array.isArray(t.rows)) throw new TypeError('not a list answer: expected columns and rows');
  const columns = t.columns;
  return t.rows.map((row) => ({ ...t.same, ...Object.fromEntries(columns.map((c, i) => [c, row[i] ?? null])) }));
}

/** `records` as a list answer's text lines: the table (columns in order, `keep` never
 * folded into `same`), or the one line `empty` when there is no record. A list answer
 * that says more after its table leaves a blank line first (parseRows stops there). */
export function renderRecords(records: readonly object[], columns: readonly string[], opts: { keep?: readonly string[]; empty: string }): string[] {
  // Only the named columns are read, and each of those holds a cell value.
  const cells = records.map((r) => Object.fromEntries(columns.map((c) => [c, ((r as Record<string, unknown>)[c] ?? null) as Cell])));
  return records.length === 0 ? [opts.empty] : renderCompactRows(compactRows(cells, columns, opts.keep ?? []));
}

/** A cell of the text table back as a value: empty is null, a JSON-quoted cell its string,
 * true/false, a bare number (cellText quotes every string that starts like one), else the
 * bare string. */
function parseCell(cell: string): Cell {
  if (cell === '') return null;
  if (cell.startsWith('"')) return JSON.parse(cell) as string;
  if (cell === 'true' || cell === 'false') return cell === 'true';
  return /^-?\d/.test(cell) ? Number(cell) : cell;
}

/**
 * The table in a list answer's text back as records (`same` merged into each row): what a
 * client that wants records does with a text-only list answer. `first` is the table's first
 * column, which its header line starts with; the rows run to the next blank line or the end.
 * Throws when there is no such table (an empty list is a line of its own: see renderRecords).
 */
export function parseRows(text: string, first: string): Record<string, Cell>[] {
  const lines = text.split('\n');
  const header = lines.findIndex((l) => l === first || l.startsWith(`${first}\t`));
  if (header < 0) throw new TypeError(`not a list answer: no table whose first column is ${first}`);
  const columns = lines[header]!.split('\t');
  const same: Record<string, Cell> = {};
  const sameLine = lines[header - 1];
  if (sameLine?.startsWith('same in every row: ')) {
    for (const m of sameLine.slice('same in every row: '.length).matchAll(/([\w.-]+)=("(?:[^"\\]|\\.)*"|\S*)/g)) same[m[1]!] = parseCell(m[2]!);
  }
  const rows: Record<string, Cell>[] = [];
  for (const line of lines.slice(header + 1)) {
    if (line === '') break;
    const cells = line.split('\t');
    rows.push({ ...same, ...Object.fromEntries(columns.map((c, i) => [c, parseCell(cells[i] ?? '')])) });
  }
  return rows;
}
