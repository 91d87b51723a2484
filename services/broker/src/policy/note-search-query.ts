/**
 * A note search is a user's words, never FTS5 query syntax. The query is cut into words
 * (runs of letters, digits and combining marks); everything else — quotes, `*`, `^`, `:`,
 * parentheses, `+`, `-` — separates words and has no meaning. Each word becomes a quoted
 * FTS5 string with a prefix star (`"word"*`), and the words are joined by spaces, which
 * FTS5 reads as AND. So `NEAR`, `OR`, `AND`, `NOT` and `title:` are searched as the plain
 * words they look like, and no input can make MATCH fail or change what is searched.
 */
import { NOTE_LIMITS } from '@terminal-mcp/contract';

export interface NoteSearchQuery {
  /** The FTS5 MATCH expression, or null when the query has no word at all. */
  match: string | null;
  /** The words searched for, lowercased (for the caller to see what was used). */
  terms: string[];
}

const WORD = /[\p{L}\p{N}\p{M}]+/gu;
/** One word is at most this long; FTS5 tokens longer than this are not useful. */
const MAX_WORD = 64;

export function buildNoteSearchQuery(query: string): NoteSearchQuery {
  const seen = new Set<string>();
  for (const m of query.normalize('NFKC').matchAll(WORD)) {
    // đ is folded to d as the index holds it (effects/store/notes-store.ts).
    const word = m[0].toLowerCase().replace(/đ/g, 'd').slice(0, MAX_WORD);
    seen.add(word);
    if (seen.size >= NOTE_LIMITS.queryTerms) break;
  }
  const terms = [...seen];
  if (terms.length === 0) return { match: null, terms };
  // A word contains no `"` (WORD matches none), so quoting needs no escaping; the doubling
  // is kept so the quoting stays correct if WORD is ever widened.
  return { match: terms.map((t) => `"${t.replace(/"/g, '""')}"*`).join(' '), terms };
}
