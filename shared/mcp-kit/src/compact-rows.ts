/**
 * The one shape of every list-shaped answer (issue 31: a model pays for each byte of it):
 * rows as arrays under named `columns`, and every column whose value is the same in all
 * rows said once under `same` instead of in each row. The text a model reads is the same
 * table, tab-separated. docs/tools.md ("List answers") documents the shape for clients.
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
