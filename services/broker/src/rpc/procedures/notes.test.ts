// Guards the notes capability end to end (real notes.db, real image files): FTS search is plain words whatever the query, attachments are typed by their bytes and stored only at generated paths, host files are read only inside the configured roots, the observer reads but cannot write, and the dashboard needs an operator session.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAppErrorData } from '@terminal-mcp/contract';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTmuxServer, type TmuxTestServer } from '../../../../../test/src/helpers/tmux-server.js';
import { configSchema } from '../../config/schema.js';
import type { BrokerDeps } from '../deps.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from '../../effects/tmux/adapter.js';
import { testDeps } from '../../testing/deps.testkit.js';
import { createSession } from '../../webauth/sessions.js';
import { createContextInner } from '../context.js';
import { gatewayRouter } from '../roles/gateway.js';
import { observerRouter } from '../roles/observer.js';
import { webRouter } from '../roles/web.js';
import { createCallerFactory } from '../trpc.js';

/** A 1x1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const HTML = Buffer.from('<!doctype html><script>alert(document.cookie)</script>');

let server: TmuxTestServer;
let tmux: ControlModeTmuxAdapter;
let root: string;
let deps: BrokerDeps;
let sources: string;

beforeAll(async () => {
  server = await startTmuxServer();
  tmux = createTmuxAdapter({ socketName: server.socketName, configFile: '/dev/null' });
});
afterAll(async () => {
  await tmux?.close();
  await server?.kill();
});

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tmcp-notes-'));
  sources = join(root, 'shots');
  mkdirSync(sources);
  const config = configSchema.parse({ log_level: 'silent', notes: { attachment_source_roots: [sources] } });
  deps = testDeps({ config, tmux, stateDir: join(root, 'state'), info: { version: 'test', startedAt: new Date(), tmuxSocket: server.socketName } });
});
afterEach(() => {
  deps.stores.close();
  rmSync(root, { recursive: true, force: true });
});

const gateway = () => createCallerFactory(gatewayRouter)(createContextInner({ role: 'gateway', deps, actor: 'gateway:chatgpt' }));
const observer = () => createCallerFactory(observerRouter)(createContextInner({ role: 'observer', deps }));
function web(token?: string) {
  return createCallerFactory(webRouter)(createContextInner({ role: 'web', deps, operatorToken: token }));
}
function operatorToken(): string {
  const env = deps.webauth;
  const user = env.store.findUserByName('alice') ?? env.store.createUser({ username: 'alice', passwordHash: 'unused', mustChangePassword: false, now: Date.now() })!;
  return createSession(env, user.id).token;
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return readAppErrorData((err as { cause?: unknown }).cause)?.code ?? `trpc:${(err as { code?: string }).code}`;
  }
  throw new Error('expected a refusal');
}

describe('notes store and search', () => {
  it('creates, finds by words (diacritics optional), updates, and soft-deletes and restores', async () => {
    const g = gateway();
    const a = await g.notes.create({ title: 'Lưu lại: ý tưởng cache', body: 'Đừng quên: dùng bm25 cho tìm kiếm', tags: ['Ideas', 'search'], source_url: 'https://example.com/post' });
    await g.notes.create({ title: 'Unrelated', body: 'nothing here' });
    expect(a).toMatchObject({ status: 'new', tags: ['ideas', 'search'], created_by: 'gateway:chatgpt', deleted_at: null });

    for (const query of ['luu lai', 'LƯU', 'bm25 tìm', 'cach', 'dung', 'Dùng']) {
      expect((await g.notes.search({ query })).hits.map((h) => h.id), query).toEqual([a.id]);
    }
    expect((await g.notes.search({ query: 'cache', tag: 'search' })).hits[0]!.snippet).toContain('[cache]');
    // đ is its own letter, not d with a mark: typed without accents it is d.
    expect((await g.notes.search({ query: 'dung quen' })).hits[0]!.snippet).toContain('[Đừng] [quên]');
    expect((await g.notes.search({ query: 'cache', tag: 'other' })).hits).toEqual([]);

    const updated = await g.notes.update({ id: a.id, status: 'planned', body: 'now about sqlite' });
    expect(updated).toMatchObject({ status: 'planned', body: 'now about sqlite' });
    expect((await g.notes.search({ query: 'bm25' })).hits).toEqual([]);
    expect((await g.notes.search({ query: 'sqlite' })).hits.map((h) => h.id)).toEqual([a.id]);

    await g.notes.delete({ id: a.id });
    expect((await g.notes.search({ query: 'sqlite' })).hits).toEqual([]);
    expect((await g.notes.list({})).notes.map((n) => n.id)).not.toContain(a.id);
    expect((await g.notes.list({ deleted: true })).notes.map((n) => n.id)).toEqual([a.id]);
    expect(await codeOf(g.notes.update({ id: a.id, title: 'x' }))).toBe('NOTE_NOT_FOUND');
    await g.notes.restore({ id: a.id });
    expect((await g.notes.search({ query: 'sqlite' })).hits.map((h) => h.id)).toEqual([a.id]);
    expect(await codeOf(g.notes.get({ id: 999 }))).toBe('NOTE_NOT_FOUND');
  });

  it('links to a project, marks applied, and counts facets', async () => {
    const g = gateway();
    const a = await g.notes.create({ title: 'one', tags: ['x'] });
    await g.notes.create({ title: 'two', tags: ['x', 'y'] });
    expect(await g.notes.linkToProject({ id: a.id, project: 'mesflow' })).toMatchObject({ project: 'mesflow' });
    const applied = await g.notes.markApplied({ id: a.id, where: 'PR 12' });
    expect(applied).toMatchObject({ status: 'applied', applied_where: 'PR 12' });
    expect(applied.applied_at).not.toBeNull();
    expect((await g.notes.list({ project: 'mesflow' })).notes.map((n) => n.id)).toEqual([a.id]);
    expect(await g.notes.facets({})).toMatchObject({
      total: 2,
      deleted: 0,
      tags: [
        { tag: 'x', count: 2 },
        { tag: 'y', count: 1 },
      ],
      projects: [{ project: 'mesflow', count: 1 }],
    });
    expect((await g.notes.linkToProject({ id: a.id, project: null })).project).toBeNull();
  });

  it('pages lists newest first', async () => {
    const g = gateway();
    for (let i = 0; i < 5; i++) await g.notes.create({ title: `n${i}` });
    const first = await g.notes.list({ limit: 2 });
    expect(first.notes.map((n) => n.title)).toEqual(['n4', 'n3']);
    const second = await g.notes.list({ limit: 2, before_id: first.next_before_id! });
    expect(second.notes.map((n) => n.title)).toEqual(['n2', 'n1']);
    expect((await g.notes.list({ limit: 2, before_id: second.next_before_id! })).next_before_id).toBeNull();
  });

  // Each query is hostile FTS5 syntax; none may fail, and each finds exactly the notes
  // containing its words as plain words.
  it.each([
    ['"', []],
    ['"alpha', ['alpha beta']],
    ['alpha*', ['alpha beta']],
    ['alpha OR gamma', []],
    ['alpha NEAR beta', []],
    ['NEAR(alpha beta)', []],
    ['title:alpha', []],
    ['{title body}:alpha', []],
    ['(alpha', ['alpha beta']],
    ['alpha) AND (', []],
    ['NOT alpha', []],
    ['^alpha', ['alpha beta']],
    ['-alpha', ['alpha beta']],
    ['alpha + beta', ['alpha beta']],
    ["'; DROP TABLE notes; --", []],
    ['***', []],
    ['or', ['gamma or delta']],
    ['near', ['near title']],
  ])('hostile query %j is plain words', async (query, titles) => {
    const g = gateway();
    for (const title of ['alpha beta', 'gamma or delta', 'near title']) await g.notes.create({ title });
    const { hits } = await g.notes.search({ query });
    expect(hits.map((h) => h.title).sort()).toEqual(titles);
    expect((await g.notes.list({})).notes).toHaveLength(3);
  });
});

describe('attachments', () => {
  it('stores an in-band PNG at a generated path under the state dir, typed by its bytes', async () => {
    const g = gateway();
    const note = await g.notes.create({ title: 'with image' });
    const att = await g.notes.addAttachment({ id: note.id, data_base64: PNG.toString('base64'), caption: 'shot' });
    expect(att).toMatchObject({ note_id: note.id, mime_type: 'image/png', size: PNG.length, caption: 'shot' });
    const now = new Date();
    const file = join(root, 'state', 'notes_attachments', String(now.getUTCFullYear()), String(now.getUTCMonth() + 1).padStart(2, '0'), `${att.id}.png`);
    expect(readFileSync(file)).toEqual(PNG);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((await g.notes.get({ id: note.id })).attachments.map((a) => a.id)).toEqual([att.id]);
    expect((await g.notes.list({})).notes[0]).toMatchObject({ attachment_count: 1, cover_attachment_id: att.id });

    const token = operatorToken();
    expect(Buffer.from((await web(token).notes.attachment({ attachment_id: att.id })).data_base64, 'base64')).toEqual(PNG);

    expect(await g.notes.removeAttachment({ attachment_id: att.id })).toEqual({ attachment_id: att.id, note_id: note.id, removed: true });
    expect(existsSync(file)).toBe(false);
    expect(await codeOf(g.notes.removeAttachment({ attachment_id: att.id }))).toBe('NOTE_NOT_FOUND');
  });

  it('refuses bytes that are not an image, whatever they are called', async () => {
    const g = gateway();
    const note = await g.notes.create({ title: 'spoof' });
    writeFileSync(join(sources, 'shot.png'), HTML);
    expect(await codeOf(g.notes.addAttachment({ id: note.id, source_path: join(sources, 'shot.png') }))).toBe('ATTACHMENT_TYPE_REFUSED');
    expect(await codeOf(g.notes.addAttachment({ id: note.id, data_base64: HTML.toString('base64') }))).toBe('ATTACHMENT_TYPE_REFUSED');
    // A PNG signature alone, followed by HTML, is still not a PNG.
    const sigThenHtml = Buffer.concat([PNG.subarray(0, 8), HTML]);
    expect(await codeOf(g.notes.addAttachment({ id: note.id, data_base64: sigThenHtml.toString('base64') }))).toBe('ATTACHMENT_TYPE_REFUSED');
    expect(await codeOf(g.notes.addAttachment({ id: note.id, data_base64: 'not base64!' }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(g.notes.addAttachment({ id: note.id }))).toBe('trpc:BAD_REQUEST');
    expect((await g.notes.get({ id: note.id })).attachments).toEqual([]);
    expect(existsSync(join(root, 'state', 'notes_attachments'))).toBe(false);
  });

  it('reads a host file only inside the configured roots', async () => {
    const g = gateway();
    const note = await g.notes.create({ title: 'from disk' });
    const outside = join(root, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret.png'), PNG);
    writeFileSync(join(sources, 'ok.png'), PNG);
    symlinkSync(join(outside, 'secret.png'), join(sources, 'link.png'));
    symlinkSync(outside, join(sources, 'dir-link'));
    writeFileSync(join(sources, 'big.png'), Buffer.concat([PNG, Buffer.alloc(4 * 1024 * 1024)]));
    writeFileSync(join(sources, 'locked.png'), PNG);
    chmodSync(join(sources, 'locked.png'), 0o000);

    expect(await g.notes.addAttachment({ id: note.id, source_path: join(sources, 'ok.png') })).toMatchObject({ mime_type: 'image/png' });
    for (const path of [
      join(outside, 'secret.png'),
      join(sources, 'link.png'),
      join(sources, 'dir-link', 'secret.png'),
      `${sources}/../outside/secret.png`,
      join(sources, 'missing.png'),
      sources,
      'relative/ok.png',
      '/etc/passwd',
      ...(process.getuid?.() === 0 ? [] : [join(sources, 'locked.png')]),
    ]) {
      expect(await codeOf(g.notes.addAttachment({ id: note.id, source_path: path })), path).toBe('PATH_NOT_ALLOWED');
    }
    expect(await codeOf(g.notes.addAttachment({ id: note.id, source_path: join(sources, 'big.png') }))).toBe('FILE_TOO_LARGE');

    deps.config = configSchema.parse({ log_level: 'silent' });
    expect(await codeOf(g.notes.addAttachment({ id: note.id, source_path: join(sources, 'ok.png') }))).toBe('PATH_NOT_ALLOWED');
  });
});

describe('who may do what', () => {
  it('lets the observer search and read notes, and name nothing else', async () => {
    const note = await gateway().notes.create({ title: 'visible to the observer' });
    expect((await observer().notes.search({ query: 'observer' })).hits.map((h) => h.id)).toEqual([note.id]);
    expect((await observer().notes.get({ id: note.id })).title).toBe('visible to the observer');
    const procedures = Object.keys(observerRouter._def.procedures).filter((p) => p.startsWith('notes.'));
    expect(procedures.sort()).toEqual(['notes.get', 'notes.search']);
  });

  it('needs an operator session on the dashboard and records the operator', async () => {
    expect(await codeOf(web().notes.list({}))).toBe('UNAUTHENTICATED');
    expect(await codeOf(web('forged-token').notes.create({ title: 'x' }))).toBe('UNAUTHENTICATED');
    const created = await web(operatorToken()).notes.create({ title: 'from the dashboard' });
    expect(created.created_by).toBe('web:alice');
  });

  it('takes a dashboard upload in band only, typed by its bytes, within notes.max_attachment_bytes', async () => {
    const note = await gateway().notes.create({ title: 'upload' });
    expect(await codeOf(web().notes.addAttachment({ id: note.id, data_base64: PNG.toString('base64') }))).toBe('UNAUTHENTICATED');
    const w = web(operatorToken());
    const added = await w.notes.addAttachment({ id: note.id, data_base64: PNG.toString('base64'), caption: 'from the form' });
    expect(added).toMatchObject({ mime_type: 'image/png', size: PNG.length, caption: 'from the form' });
    // The dashboard never names a host file, even inside the configured roots.
    writeFileSync(join(sources, 'shot.png'), PNG);
    expect(await codeOf(w.notes.addAttachment({ id: note.id, source_path: join(sources, 'shot.png') } as never))).toBe('trpc:BAD_REQUEST');
    expect(await codeOf(w.notes.addAttachment({ id: note.id, data_base64: HTML.toString('base64') }))).toBe('ATTACHMENT_TYPE_REFUSED');
    // The cap comes from the config: 1 KiB here, and a PNG padded to 2 KiB is over it.
    deps = { ...deps, config: configSchema.parse({ log_level: 'silent', notes: { max_attachment_bytes: 1024 } }) };
    const big = Buffer.concat([PNG, Buffer.alloc(2048)]);
    expect(await codeOf(web(operatorToken()).notes.addAttachment({ id: note.id, data_base64: big.toString('base64') }))).toBe('FILE_TOO_LARGE');
    expect((await gateway().notes.get({ id: note.id })).attachments.map((a) => a.id)).toEqual([added.id]);
  });
});

describe('notes under the redaction promise (issue 25)', () => {
  const TOKEN = `ghp_${'Ab1'.repeat(12)}`;
  const KEY_BODY = ['b3BlbnNzaC1rZXktdjEAAAAACmFlczI1Ni1jdHIAAAAGYmNyeXB0AAAAGAAAABD3kJq0Zr', 'Xq9mWv2Lp7Tn4Bc8Yd1Ge5Hf3Jk6Ms0Nr9Pu2Qw4Sx7Vz1Aa5Cb8De3Fg6Hi9Jl2Km5No8'];
  const BODY = ['deploy notes', `token: ${TOKEN}`, '-----BEGIN OPENSSH PRIVATE KEY-----', ...KEY_BODY, '-----END OPENSSH PRIVATE KEY-----'].join('\n');

  it('redacts on write for every client: no reader, and no byte of notes.db, holds the secret', async () => {
    const created = await gateway().notes.create({ title: `rotate ${TOKEN}`, body: BODY, tags: ['ops'] });
    const fromWeb = await web(operatorToken()).notes.create({ title: 'web note', body: `DB_PASSWORD=Qw3rty9Uiop2Zx` });
    await gateway().notes.update({ id: created.id, analysis: `also ${TOKEN}` });
    const answers = JSON.stringify([
      await observer().notes.get({ id: created.id }),
      await observer().notes.search({ query: 'deploy' }),
      await observer().notes.search({ query: 'rotate' }),
      await gateway().notes.get({ id: fromWeb.id }),
      await gateway().notes.list({}),
    ]);
    for (const secret of [TOKEN.slice(4, 20), KEY_BODY[0]!.slice(20, 40), KEY_BODY[1]!.slice(10, 30), 'Qw3rty9Uiop2Zx']) expect(answers).not.toContain(secret);
    expect(answers).toContain('[REDACTED:');
    deps.stores.close();
    const dbFiles = ['notes.db', 'notes.db-wal'].map((f) => join(root, 'state', f)).filter(existsSync);
    const bytes = dbFiles.map((f) => readFileSync(f).toString('latin1')).join('');
    expect(bytes.length).toBeGreaterThan(0);
    for (const secret of [TOKEN.slice(4, 20), KEY_BODY[0]!.slice(20, 40), 'Qw3rty9Uiop2Zx']) expect(bytes).not.toContain(secret);
    deps = testDeps({ config: deps.config, tmux, stateDir: join(root, 'state'), info: { version: 'test', startedAt: new Date(), tmuxSocket: server.socketName } });
  });
});
