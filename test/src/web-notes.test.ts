// Guards the dashboard's /notes pages end to end (production build, real broker, Chromium): notes saved through the gateway are listed, searched without accents, moved on the Kanban board, edited, deleted and restored; images are served only to a signed-in operator, with the stored type, nosniff and inline; the pages speak Vietnamese and fit a phone.
import { request as httpRequest } from 'node:http';
import { createBrokerClient, type BrokerClient } from '@terminal-mcp/broker-client';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInFirstTime, startWebStack, waitFor, waitForHydration, type WebStack } from './helpers/web-stack.js';

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
  }, 60_000);

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
    await waitFor('the saved note', async () => (await gateway.notes.get.query({ id: noteId })).title === 'Durable queue, decided');
    expect(await gateway.notes.get.query({ id: noteId })).toMatchObject({ status: 'applied', project: 'mesflow', updated_by: 'web:admin' });

    await page.goto(`${stack.baseUrl}/notes/${noteId}`);
    await page.getByTestId('note-delete').click();
    await page.getByTestId('note-restore').waitFor();
    expect((await gateway.notes.get.query({ id: noteId })).deleted_at).not.toBeNull();
    await page.getByTestId('note-restore').click();
    await page.getByTestId('note-delete').waitFor();
    expect((await gateway.notes.get.query({ id: noteId })).deleted_at).toBeNull();
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
