/**
 * notes.db: the notes/ideas store. One row per note (soft-deleted notes keep their row
 * and come back with restore), its tags in their own table for filters and facets, and an
 * external-content FTS5 index over title, body, analysis, tags and project kept in step by
 * triggers, searched with bm25. Attachment rows name image files under the state
 * directory (effects/attachments/attachment-files.ts); the bytes are never in the database.
 * Times are milliseconds since the epoch.
 */
import { AppError, NOTE_LIMITS, type NoteStatus } from '@terminal-mcp/contract';
import type { SqliteDatabase, StoreDefinition } from './database.js';

/** SQL folding đ/Đ to d/D, as policy/note-search-query.ts folds the query. (A tag
 * filter uses note_tags, unfolded: it matches the tag exactly.) */
const fold = (column: string) => `replace(replace(${column}, 'đ', 'd'), 'Đ', 'D')`;

export const notesStoreDefinition: StoreDefinition = {
  name: 'notes',
  migrations: [
    (db) => {
      db.exec(`CREATE TABLE notes (
        id INTEGER PRIMARY KEY,
        title TEXT NOT NULL,
        body TEXT NOT NULL,
        analysis TEXT NOT NULL,
        source_url TEXT,
        tags TEXT NOT NULL,
        project TEXT,
        status TEXT NOT NULL CHECK (status IN ('new', 'exploring', 'planned', 'applied', 'dropped')),
        applied_at INTEGER,
        applied_where TEXT,
        deleted_at INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        created_by TEXT NOT NULL,
        updated_by TEXT NOT NULL
      ) STRICT`);
      db.exec('CREATE INDEX notes_by_status ON notes (status, id) WHERE deleted_at IS NULL');
      db.exec('CREATE INDEX notes_by_project ON notes (project, id) WHERE project IS NOT NULL');
      db.exec(`CREATE TABLE note_tags (
        note_id INTEGER NOT NULL REFERENCES notes (id) ON DELETE CASCADE,
        tag TEXT NOT NULL,
        PRIMARY KEY (note_id, tag)
      ) STRICT, WITHOUT ROWID`);
      db.exec('CREATE INDEX note_tags_by_tag ON note_tags (tag, note_id)');
      db.exec(`CREATE TABLE note_attachments (
        id TEXT PRIMARY KEY,
        note_id INTEGER NOT NULL REFERENCES notes (id) ON DELETE CASCADE,
        mime_type TEXT NOT NULL,
        rel_path TEXT NOT NULL UNIQUE,
        size INTEGER NOT NULL,
        sha256 TEXT NOT NULL,
        caption TEXT,
        created_at INTEGER NOT NULL,
        created_by TEXT NOT NULL
      ) STRICT`);
      db.exec('CREATE INDEX note_attachments_by_note ON note_attachments (note_id, created_at)');
      // unicode61 with diacritics removed: "luu lai" finds "lưu lại". Vietnamese đ is a
      // letter of its own, not d with a mark, so the index holds it folded to d (fold());
      // the word count is unchanged, so snippets still line up with the stored text.
      db.exec(`CREATE VIRTUAL TABLE notes_fts USING fts5(
        title, body, analysis, tags, project,
        content = 'notes', content_rowid = 'id',
        tokenize = 'unicode61 remove_diacritics 2'
      )`);
      db.exec(`CREATE TRIGGER notes_fts_insert AFTER INSERT ON notes BEGIN
        INSERT INTO notes_fts (rowid, title, body, analysis, tags, project) VALUES (new.id, ${fold('new.title')}, ${fold('new.body')}, ${fold('new.analysis')}, ${fold('new.tags')}, ${fold("coalesce(new.project, '')")});
      END`);
      db.exec(`CREATE TRIGGER notes_fts_delete AFTER DELETE ON notes BEGIN
        INSERT INTO notes_fts (notes_fts, rowid, title, body, analysis, tags, project) VALUES ('delete', old.id, ${fold('old.title')}, ${fold('old.body')}, ${fold('old.analysis')}, ${fold('old.tags')}, ${fold("coalesce(old.project, '')")});
      END`);
      db.exec(`CREATE TRIGGER notes_fts_update AFTER UPDATE OF title, body, analysis, tags, project ON notes BEGIN
        INSERT INTO notes_fts (notes_fts, rowid, title, body, analysis, tags, project) VALUES ('delete', old.id, ${fold('old.title')}, ${fold('old.body')}, ${fold('old.analysis')}, ${fold('old.tags')}, ${fold("coalesce(old.project, '')")});
        INSERT INTO notes_fts (rowid, title, body, analysis, tags, project) VALUES (new.id, ${fold('new.title')}, ${fold('new.body')}, ${fold('new.analysis')}, ${fold('new.tags')}, ${fold("coalesce(new.project, '')")});
      END`);
    },
  ],
};

export interface NoteRecord {
  id: number;
  title: string;
  body: string;
  analysis: string;
  sourceUrl: string | null;
  tags: string[];
  project: string | null;
  status: NoteStatus;
  appliedAt: number | null;
  appliedWhere: string | null;
  deletedAt: number | null;
  createdAt: number;
  updatedAt: number;
  createdBy: string;
  updatedBy: string;
}

export interface NoteSummaryRecord {
  id: number;
  title: string;
  tags: string[];
  project: string | null;
  status: NoteStatus;
  deletedAt: number | null;
  updatedAt: number;
  attachmentCount: number;
  coverAttachmentId: string | null;
}

export interface NoteSearchRecord extends NoteSummaryRecord {
  snippet: string;
  rank: number;
}

export interface AttachmentRecord {
  id: string;
  noteId: number;
  mimeType: string;
  /** Path of the file relative to the attachments directory: YYYY/MM/<id>.<ext>. */
  relPath: string;
  size: number;
  sha256: string;
  caption: string | null;
  createdAt: number;
  createdBy: string;
}

export interface NoteFilters {
  status?: NoteStatus | undefined;
  tag?: string | undefined;
  project?: string | undefined;
}

/** What a note write sets; tags replace the note's tags. */
export type NoteFields = Pick<NoteRecord, 'title' | 'body' | 'analysis' | 'sourceUrl' | 'tags' | 'project' | 'status' | 'appliedAt' | 'appliedWhere'>;

export interface NotesStore {
  get(id: number): NoteRecord | undefined;
  create(fields: NoteFields, actor: string, now: number): NoteRecord;
  /** Reads the note, lets `change` compute the new fields (or throw), writes them, in one
   * IMMEDIATE transaction. Undefined when there is no such note. */
  update(id: number, change: (note: NoteRecord) => Partial<NoteFields> & { deletedAt?: number | null }, actor: string, now: number): NoteRecord | undefined;
  list(filters: NoteFilters & { deleted: boolean; limit: number; beforeId?: number | undefined }): NoteSummaryRecord[];
  /** `match` is an FTS5 expression built by policy/note-search-query.ts, never user text. */
  search(match: string, filters: NoteFilters & { limit: number }): NoteSearchRecord[];
  facets(): { total: number; deleted: number; statuses: { status: NoteStatus; count: number }[]; tags: { tag: string; count: number }[]; projects: { project: string; count: number }[] };
  attachments(noteId: number): AttachmentRecord[];
  attachment(id: string): AttachmentRecord | undefined;
  countAttachments(noteId: number): number;
  addAttachment(a: AttachmentRecord): void;
  removeAttachment(id: string): boolean;
}

interface NoteRow {
  id: number;
  title: string;
  body: string;
  analysis: string;
  source_url: string | null;
  tags: string;
  project: string | null;
  status: NoteStatus;
  applied_at: number | null;
  applied_where: string | null;
  deleted_at: number | null;
  created_at: number;
  updated_at: number;
  created_by: string;
  updated_by: string;
}

interface SummaryRow {
  id: number;
  title: string;
  tags: string;
  project: string | null;
  status: NoteStatus;
  deleted_at: number | null;
  updated_at: number;
  attachment_count: number;
  cover_attachment_id: string | null;
}

interface AttachmentRow {
  id: string;
  note_id: number;
  mime_type: string;
  rel_path: string;
  size: number;
  sha256: string;
  caption: string | null;
  created_at: number;
  created_by: string;
}

/** Tags are stored space-separated in `notes.tags` (tags contain no spaces) for the index. */
const splitTags = (tags: string) => (tags === '' ? [] : tags.split(' '));

const toNote = (r: NoteRow): NoteRecord => ({
  id: r.id,
  title: r.title,
  body: r.body,
  analysis: r.analysis,
  sourceUrl: r.source_url,
  tags: splitTags(r.tags),
  project: r.project,
  status: r.status,
  appliedAt: r.applied_at,
  appliedWhere: r.applied_where,
  deletedAt: r.deleted_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  createdBy: r.created_by,
  updatedBy: r.updated_by,
});

const toSummary = (r: SummaryRow): NoteSummaryRecord => ({
  id: r.id,
  title: r.title,
  tags: splitTags(r.tags),
  project: r.project,
  status: r.status,
  deletedAt: r.deleted_at,
  updatedAt: r.updated_at,
  attachmentCount: r.attachment_count,
  coverAttachmentId: r.cover_attachment_id,
});

const toAttachment = (r: AttachmentRow): AttachmentRecord => ({
  id: r.id,
  noteId: r.note_id,
  mimeType: r.mime_type,
  relPath: r.rel_path,
  size: r.size,
  sha256: r.sha256,
  caption: r.caption,
  createdAt: r.created_at,
  createdBy: r.created_by,
});

const SUMMARY_COLUMNS = `n.id, n.title, n.tags, n.project, n.status, n.deleted_at, n.updated_at,
  (SELECT count(*) FROM note_attachments a WHERE a.note_id = n.id) AS attachment_count,
  (SELECT a.id FROM note_attachments a WHERE a.note_id = n.id ORDER BY a.created_at, a.id LIMIT 1) AS cover_attachment_id`;

/** Filter clauses with named parameters (never interpolated values). */
function filterSql(f: NoteFilters): string {
  return [
    f.status !== undefined ? 'AND n.status = @status' : '',
    f.project !== undefined ? 'AND n.project = @project' : '',
    f.tag !== undefined ? 'AND EXISTS (SELECT 1 FROM note_tags t WHERE t.note_id = n.id AND t.tag = @tag)' : '',
  ].join(' ');
}

const filterParams = (f: NoteFilters) => ({ status: f.status ?? null, project: f.project ?? null, tag: f.tag ?? null });

/** bm25 column weights: a word in the title counts most, then tags and project. */
const BM25 = 'bm25(notes_fts, 10.0, 1.0, 2.0, 5.0, 3.0)';

export function notesStore(db: SqliteDatabase): NotesStore {
  const q = {
    get: db.prepare<[number], NoteRow>('SELECT * FROM notes WHERE id = ?'),
    insert: db.prepare(
      `INSERT INTO notes (title, body, analysis, source_url, tags, project, status, applied_at, applied_where, deleted_at, created_at, updated_at, created_by, updated_by)
       VALUES (@title, @body, @analysis, @sourceUrl, @tags, @project, @status, @appliedAt, @appliedWhere, NULL, @now, @now, @actor, @actor)`,
    ),
    write: db.prepare(
      `UPDATE notes SET title = @title, body = @body, analysis = @analysis, source_url = @sourceUrl, tags = @tags, project = @project, status = @status,
         applied_at = @appliedAt, applied_where = @appliedWhere, deleted_at = @deletedAt, updated_at = @now, updated_by = @actor WHERE id = @id`,
    ),
    clearTags: db.prepare<[number]>('DELETE FROM note_tags WHERE note_id = ?'),
    addTag: db.prepare<[number, string]>('INSERT OR IGNORE INTO note_tags (note_id, tag) VALUES (?, ?)'),
    attachments: db.prepare<[number], AttachmentRow>('SELECT * FROM note_attachments WHERE note_id = ? ORDER BY created_at, id'),
    attachment: db.prepare<[string], AttachmentRow>('SELECT * FROM note_attachments WHERE id = ?'),
    countAttachments: db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM note_attachments WHERE note_id = ?'),
    liveNotesBy: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM notes WHERE created_by = ? AND deleted_at IS NULL'),
    attachmentBytesBy: db.prepare<[string], { n: number }>('SELECT coalesce(sum(size), 0) AS n FROM note_attachments WHERE created_by = ?'),
    addAttachment: db.prepare(
      `INSERT INTO note_attachments (id, note_id, mime_type, rel_path, size, sha256, caption, created_at, created_by)
       VALUES (@id, @noteId, @mimeType, @relPath, @size, @sha256, @caption, @createdAt, @createdBy)`,
    ),
    removeAttachment: db.prepare<[string]>('DELETE FROM note_attachments WHERE id = ?'),
    statusCounts: db.prepare<[], { status: NoteStatus; count: number }>('SELECT status, count(*) AS count FROM notes WHERE deleted_at IS NULL GROUP BY status'),
    totals: db.prepare<[], { total: number; deleted: number }>('SELECT count(*) FILTER (WHERE deleted_at IS NULL) AS total, count(*) FILTER (WHERE deleted_at IS NOT NULL) AS deleted FROM notes'),
    tagCounts: db.prepare<[], { tag: string; count: number }>(
      'SELECT t.tag, count(*) AS count FROM note_tags t JOIN notes n ON n.id = t.note_id WHERE n.deleted_at IS NULL GROUP BY t.tag ORDER BY count DESC, t.tag LIMIT 100',
    ),
    projectCounts: db.prepare<[], { project: string; count: number }>(
      'SELECT project, count(*) AS count FROM notes WHERE deleted_at IS NULL AND project IS NOT NULL GROUP BY project ORDER BY count DESC, project LIMIT 100',
    ),
  };

  const setTags = (id: number, tags: readonly string[]) => {
    q.clearTags.run(id);
    for (const tag of tags) q.addTag.run(id, tag);
  };
  const rowParams = (f: NoteFields) => ({ ...f, tags: [...new Set(f.tags)].join(' ') });

  const create = db.transaction((fields: NoteFields, actor: string, now: number): NoteRecord => {
    // The quota is counted in the same transaction as the insert, so racing creates cannot pass it together.
    if (q.liveNotesBy.get(actor)!.n >= NOTE_LIMITS.notesPerActor) {
      throw new AppError('QUOTA_EXCEEDED', `this client already holds ${NOTE_LIMITS.notesPerActor} notes`);
    }
    const id = Number(q.insert.run({ ...rowParams(fields), actor, now }).lastInsertRowid);
    setTags(id, fields.tags);
    return toNote(q.get.get(id)!);
  });

  const update = db.transaction(
    (id: number, change: (note: NoteRecord) => Partial<NoteFields> & { deletedAt?: number | null }, actor: string, now: number): NoteRecord | undefined => {
      const row = q.get.get(id);
      if (!row) return undefined;
      const before = toNote(row);
      const next = { ...before, ...change(before) };
      q.write.run({ ...rowParams(next), deletedAt: next.deletedAt, id, actor, now });
      if (next.tags !== before.tags) setTags(id, next.tags);
      return toNote(q.get.get(id)!);
    },
  );

  const addAttachment = db.transaction((a: AttachmentRecord): void => {
    if (q.attachmentBytesBy.get(a.createdBy)!.n + a.size > NOTE_LIMITS.attachmentBytesPerActor) {
      throw new AppError('QUOTA_EXCEEDED', `this client's attachments would exceed ${NOTE_LIMITS.attachmentBytesPerActor} bytes`);
    }
    q.addAttachment.run(a);
  });

  const statements = new Map<string, ReturnType<SqliteDatabase['prepare']>>();
  const prepared = (sql: string) => {
    let s = statements.get(sql);
    if (!s) statements.set(sql, (s = db.prepare(sql)));
    return s;
  };

  const store: NotesStore = {
    get: (id) => {
      const row = q.get.get(id);
      return row ? toNote(row) : undefined;
    },
    create: (fields, actor, now) => create.immediate(fields, actor, now),
    update: (id, change, actor, now) => update.immediate(id, change, actor, now),
    list: (f) => {
      const sql = `SELECT ${SUMMARY_COLUMNS} FROM notes n
        WHERE ${f.deleted ? 'n.deleted_at IS NOT NULL' : 'n.deleted_at IS NULL'} ${f.beforeId !== undefined ? 'AND n.id < @beforeId' : ''} ${filterSql(f)}
        ORDER BY n.id DESC LIMIT @limit`;
      return (prepared(sql).all({ ...filterParams(f), beforeId: f.beforeId ?? null, limit: f.limit }) as SummaryRow[]).map(toSummary);
    },
    search: (match, f) => {
      const sql = `SELECT ${SUMMARY_COLUMNS}, ${BM25} AS rank, snippet(notes_fts, -1, '[', ']', '…', 16) AS snippet
        FROM notes_fts JOIN notes n ON n.id = notes_fts.rowid
        WHERE notes_fts MATCH @match AND n.deleted_at IS NULL ${filterSql(f)}
        ORDER BY rank LIMIT @limit`;
      return (prepared(sql).all({ ...filterParams(f), match, limit: f.limit }) as (SummaryRow & { rank: number; snippet: string })[]).map((r) => ({
        ...toSummary(r),
        rank: r.rank,
        snippet: r.snippet,
      }));
    },
    facets: () => {
      const totals = q.totals.get()!;
      return { total: totals.total, deleted: totals.deleted, statuses: q.statusCounts.all(), tags: q.tagCounts.all(), projects: q.projectCounts.all() };
    },
    attachments: (noteId) => q.attachments.all(noteId).map(toAttachment),
    attachment: (id) => {
      const row = q.attachment.get(id);
      return row ? toAttachment(row) : undefined;
    },
    countAttachments: (noteId) => q.countAttachments.get(noteId)!.n,
    addAttachment: (a) => addAttachment.immediate(a),
    removeAttachment: (id) => q.removeAttachment.run(id).changes > 0,
  };
  return store;
}
