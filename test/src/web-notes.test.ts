// Guards the dashboard's /notes pages end to end (production build, real broker, Chromium): notes saved through the gateway are listed, searched without accents, moved on the Kanban board, edited, deleted and restored; an image uploaded from a note's page is stored and shown (type from the bytes, not the name), an HTML file named .png is refused with a readable message and a cross-origin upload with the operator's cookie is refused, storing nothing; images are served only to a signed-in operator, with the stored type, nosniff and inline; the pages speak Vietnamese and fit a phone.
import { readdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { createBrokerClient, type BrokerClient } from '@terminal-mcp/broker-client';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorSessionOf, signInFirstTime, startWebStack, waitFor, waitForHydration, type WebStack } from './helpers/web-stack.js';

/** A 1x1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

/** A plain GET without the browser's cookies: what anyone who can reach the port gets. */
function anonymousGet(url: string): Promise<{ status: number; body: Buffer; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A multipart POST with the given headers (no browser): what a page on another origin
 * could make the operator's browser send, cookie included. */
function multipartPost(url: string, headers: Record<string, string>, fields: Record<string, string>, file: { name: string; type: string; bytes: Buffer }): Promise<{ status: number; body: string }> {
  const boundary = `----tmcp${Date.now().toString(36)}`;
  const parts: Uint8Array[] = Object.entries(fields).map(([k, v]) => Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  parts.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="image"; filename="${file.name}"\r\ncontent-type: ${file.type}\r\n\r\n`), file.bytes, Buffer.from(`\r\n--${boundary}--\r\n`));
  const body = Buffer.concat(parts);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(body.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Every file under the state dir's notes_attachments/ (none may appear for a refusal). */
function storedFiles(stateDir: string): string[] {
  try {
    return readdirSync(join(stateDir, 'notes_attachments'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name))
      .sort();
  } catch {
    return [];
  }
}

describe('dashboard notes', { timeout: 180_000 }, () => {
  let stack: WebStack;
  let context: BrowserContext;
  let page: Page;
  let gateway: BrokerClient<'gateway'>;
  let noteId: number;
  let attachmentId: string;

  beforeAll(async () => {
    stack = await startWebStack();
    gateway = createBrokerClient({ role: 'gateway', env: stack.broker.env, actor: () => 'chatgpt' });
    const note = await gateway.notes.create.mutate({ title: 'Lưu lại: hàng đợi bền vững', body: 'Dùng SQLite WAL cho hàng đợi', tags: ['queue'], source_url: 'https://example.com/q' });
    noteId = note.id;
    attachmentId = (await gateway.notes.addAttachment.mutate({ id: note.id, data_base64: PNG.toString('base64'), caption: 'diagram' })).id;
    await gateway.notes.create.mutate({ title: 'Second idea', body: 'unrelated words', status: 'planned' });
    context = await stack.browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 860 } });
    page = await context.newPage();
    await signInFirstTime(page, stack);
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('serves an image only to a signed-in operator, with the stored type, nosniff and inline', async () => {
    const url = `${stack.baseUrl}/notes/attachments/${attachmentId}`;
    const anonymous = await anonymousGet(url);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.includes(PNG.subarray(16))).toBe(false);
    const notesPage = await anonymousGet(`${stack.baseUrl}/notes`);
    expect(notesPage.status).toBe(303);
    expect(notesPage.headers.location).toBe('/login');

    const res = await page.request.get(url);
    expect(res.status()).toBe(200);
    expect(res.headers()['content-type']).toBe('image/png');
    expect(res.headers()['x-content-type-options']).toBe('nosniff');
    expect(res.headers()['content-disposition']).toBe('inline');
    expect(Buffer.from(await res.body())).toEqual(PNG);
    expect((await page.request.get(`${stack.baseUrl}/notes/attachments/00000000-0000-4000-8000-000000000000`)).status()).toBe(404);
    expect((await page.request.get(`${stack.baseUrl}/notes/attachments/..%2F..%2Fnotes.db`)).status()).toBe(404);
  });

  it('lists, searches without accents, and shows a note with its image', async () => {
    await page.goto(`${stack.baseUrl}/notes`);
    await page.getByTestId('notes-list').waitFor();
    expect(await page.locator('[data-testid=notes-list] [data-note]').count()).toBe(2);
    await page.getByTestId('notes-query').fill('hang doi');
    await page.getByTestId('notes-search').click();
    await page.waitForURL(/q=hang/);
    const hits = page.locator('[data-testid=notes-list] [data-note]');
    await waitFor('one search hit', async () => (await hits.count()) === 1);
    expect(await hits.first().getAttribute('data-note')).toBe(String(noteId));

    await hits.first().locator('a').first().click();
    await page.waitForURL(`${stack.baseUrl}/notes/${noteId}`);
    expect(await page.getByTestId('note-body').textContent()).toContain('SQLite WAL');
    const img = page.locator(`[data-attachment="${attachmentId}"] img`);
    await waitFor('the image to load', async () => (await img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)) === 1);
  });

  it('moves a card on the Kanban board and edits, deletes and restores a note', async () => {
    await page.goto(`${stack.baseUrl}/notes?view=kanban`);
    await waitForHydration(page);
    const card = page.locator(`[data-status=new] [data-note="${noteId}"]`);
    await card.waitFor();
    await card.locator('select').selectOption('exploring');
    await card.getByRole('button').click();
    await page.locator(`[data-status=exploring] [data-note="${noteId}"]`).waitFor();
    expect((await gateway.notes.get.query({ id: noteId })).status).toBe('exploring');

    await page.goto(`${stack.baseUrl}/notes/${noteId}`);
    await waitForHydration(page);
    await page.locator('details.edit summary').click();
    await page.getByTestId('edit-title').fill('Durable queue, decided');
    await page.getByTestId('edit-status').selectOption('applied');
    await page.locator('input[name=project]').fill('mesflow');
    await page.getByTestId('edit-save').click();
    // Saved in two broker calls (update, then the project link): wait for the second.
    await waitFor('the saved note', async () => {
      const saved = await gateway.notes.get.query({ id: noteId });
      return saved.title === 'Durable queue, decided' && saved.project === 'mesflow';
    });
    expect(await gateway.notes.get.query({ id: noteId })).toMatchObject({ status: 'applied', project: 'mesflow', updated_by: 'web:admin' });

    await page.goto(`${stack.baseUrl}/notes/${noteId}`);
    await page.getByTestId('note-delete').click();
    await page.getByTestId('note-restore').waitFor();
    expect((await gateway.notes.get.query({ id: noteId })).deleted_at).not.toBeNull();
    await page.getByTestId('note-restore').click();
    await page.getByTestId('note-delete').waitFor();
    expect((await gateway.notes.get.query({ id: noteId })).deleted_at).toBeNull();
  });

  it('uploads an image from the note page: stored with the type of its bytes and shown', async () => {
    const before = (await gateway.notes.get.query({ id: noteId })).attachments.map((a) => a.id);
    await page.goto(`${stack.baseUrl}/notes/${noteId}`);
    await waitForHydration(page);
    // The name and the declared type say HTML; the bytes are a PNG, and they decide.
    await page.getByTestId('upload-file').setInputFiles({ name: 'not-really.html', mimeType: 'text/html', buffer: PNG });
    await page.getByTestId('upload-caption').fill('uploaded from the dashboard');
    await page.getByTestId('upload-submit').click();
    await page.getByTestId('attachment-added').waitFor();
    const after = (await gateway.notes.get.query({ id: noteId })).attachments;
    const added = after.filter((a) => !before.includes(a.id));
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({ mime_type: 'image/png', size: PNG.length, caption: 'uploaded from the dashboard' });
    const img = page.locator(`[data-attachment="${added[0]!.id}"] img`);
    await waitFor('the uploaded image to load', async () => (await img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)) === 1);
    expect(Buffer.from(await (await page.request.get(`${stack.baseUrl}/notes/attachments/${added[0]!.id}`)).body())).toEqual(PNG);
  });

  it('refuses an HTML file named .png with a readable message, storing nothing', async () => {
    const before = (await gateway.notes.get.query({ id: noteId })).attachments;
    const filesBefore = storedFiles(stack.broker.stateDir);
    await page.goto(`${stack.baseUrl}/notes/${noteId}`);
    await waitForHydration(page);
    const html = Buffer.from('<!doctype html><html><body><script>alert(document.cookie)</script></body></html>');
    await page.getByTestId('upload-file').setInputFiles({ name: 'cute-cat.png', mimeType: 'image/png', buffer: html });
    await page.getByTestId('upload-submit').click();
    const alert = page.locator('[role=alert][data-error-code=ATTACHMENT_TYPE_REFUSED]');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('Only PNG, JPEG, GIF or WebP images can be attached.');
    expect((await gateway.notes.get.query({ id: noteId })).attachments).toEqual(before);
    expect(storedFiles(stack.broker.stateDir)).toEqual(filesBefore);
  });

  it('refuses an image over the ceiling before sending it, storing nothing', async () => {
    const before = (await gateway.notes.get.query({ id: noteId })).attachments;
    await page.goto(`${stack.baseUrl}/notes/${noteId}`);
    await waitForHydration(page);
    const huge = Buffer.concat([PNG, Buffer.alloc(4 * 1024 * 1024)]);
    await page.getByTestId('upload-file').setInputFiles({ name: 'huge.png', mimeType: 'image/png', buffer: huge });
    await page.getByTestId('upload-submit').click();
    const alert = page.locator('[data-testid=upload-form] [role=alert][data-error-code=FILE_TOO_LARGE]');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('The file is too large.');
    expect((await gateway.notes.get.query({ id: noteId })).attachments).toEqual(before);
  });

  it('refuses a cross-origin upload that carries the operator\'s cookie (403), storing nothing', async () => {
    const before = (await gateway.notes.get.query({ id: noteId })).attachments;
    const filesBefore = storedFiles(stack.broker.stateDir);
    const cookie = `tmcp_session=${await operatorSessionOf(page)}`;
    const url = `${stack.baseUrl}/notes/${noteId}?/addAttachment`;
    const png = { name: 'x.png', type: 'image/png', bytes: PNG };
    // Another local port is the same site: the browser would attach the cookie.
    for (const origin of ['http://127.0.0.1:1', 'null', 'http://evil.example']) {
      const refused = await multipartPost(url, { cookie, origin }, { id: String(noteId) }, png);
      expect(refused.status, origin).toBe(403);
    }
    expect((await gateway.notes.get.query({ id: noteId })).attachments).toEqual(before);
    expect(storedFiles(stack.broker.stateDir)).toEqual(filesBefore);
    // The same request from our own origin is what the form sends: it is accepted.
    const accepted = await multipartPost(url, { cookie, origin: stack.baseUrl, 'x-sveltekit-action': 'true' }, { id: String(noteId) }, png);
    expect(accepted.status).toBe(200);
    expect((await gateway.notes.get.query({ id: noteId })).attachments).toHaveLength(before.length + 1);
  });

  it('speaks Vietnamese and fits a phone in every view', async () => {
    const phone = await stack.browser.newContext({ locale: 'vi-VN', viewport: { width: 390, height: 844 }, storageState: await context.storageState() });
    const p = await phone.newPage();
    try {
      for (const view of ['list', 'gallery', 'kanban']) {
        await p.goto(`${stack.baseUrl}/notes?view=${view}`);
        await p.locator('main h1').waitFor();
        await p.locator('header [data-lang=vi]').click();
        expect(await p.locator('main h1').textContent()).toBe('Ghi chú và ý tưởng');
        const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, view).toBeLessThanOrEqual(0);
      }
      await p.goto(`${stack.baseUrl}/notes/${noteId}`);
      expect(await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    } finally {
      await phone.close();
    }
  });
});
