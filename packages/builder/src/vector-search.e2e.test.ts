import { join } from 'node:path';
import { embeddingText, hashedBagOfWords } from '@trelliscms/core';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, openChromium, serveFolder } from '../test/browser';
import { type Fixture, loadFixture } from '../test/load-fixture';

const hasChromium = chromiumAvailable('the vector search browser test');

describe.skipIf(!hasChromium)('the published vector search index in headless Chromium', () => {
  let fixture: Fixture;
  let url: string;
  let browser: BrowserContext;
  let closeServer: (() => Promise<void>) | undefined;
  let closeBrowser: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    fixture = loadFixture('blog');
    const { snapshot } = fixture;
    snapshot.site.searchEmission = 'bm25+vector';
    snapshot.embeddings = { provider: 'hashed-bow', dimensions: 256 };
    // the word only the vectors know: past the first 300 characters of text the BM25 index keeps
    snapshot.items.push({
      id: 'post:birds',
      type: 'post',
      fields: {
        title: 'Birds of the Cloud Forest',
        date: '2026-03-01',
        body: `${'Mist and moss and tall trees. '.repeat(12)}At dawn a resplendent quetzal calls.`,
      },
    });
    const types = new Map(snapshot.types.map((type) => [type.name, type]));
    for (const item of snapshot.items) {
      const type = types.get(item.type)!;
      item.embedding = hashedBagOfWords(embeddingText({ type: type as never, fields: item.fields }));
    }
    const result = await fixture.build({ mode: 'full' });
    expect(result.ok).toBe(true);
    const served = await serveFolder(join(fixture.root, 'site', 'current'));
    ({ url } = served);
    closeServer = served.close;
    const chromium = await openChromium();
    ({ browser } = chromium);
    closeBrowser = chromium.close;
  }, 60_000);

  afterAll(async () => {
    await closeBrowser?.();
    await closeServer?.();
    fixture?.cleanup();
  });

  it('ranks by the vector index in the browser: finds a page BM25 alone misses, and keeps BM25 hits', async () => {
    const page = await browser.newPage();
    const failed: string[] = [];
    page.on('pageerror', (error) => failed.push(error.message));
    const vectorFiles: string[] = [];
    page.on('request', (request) => {
      if (/\/search\/vectors-\d+\.json$/.test(request.url())) vectorFiles.push(request.url());
    });
    await page.goto(`${url}/`);
    type Hit = { id: string; url: string; title: string };
    const search = (query: string, mode?: string) =>
      page.evaluate(
        ([q, m]) =>
          (window as unknown as { trellisSearch: (q: string, o?: object) => Promise<Hit[]> }).trellisSearch(
            q!,
            m ? { mode: m } : undefined,
          ),
        [query, mode],
      );
    expect(await search('quetzal', 'bm25')).toEqual([]);
    const hybrid = await search('quetzal');
    expect(hybrid[0]).toMatchObject({
      id: 'post:birds',
      // resolved against where search.js was loaded from, so it works wherever the site is served
      url: `${url}/blog/birds/`,
      title: 'Birds of the Cloud Forest',
    });
    expect((await search('quetzal', 'vector'))[0]?.id).toBe('post:birds');
    // a word BM25 knows still ranks first in the fused ranking
    expect((await search('zucchini'))[0]?.title).toBe('Graph Gardening');
    expect(vectorFiles).toEqual([`${url}/search/vectors-0.json`]);

    // the search box uses the same ranking
    await page.fill('form[data-trellis-search] input[name=q]', 'quetzal');
    const hit = page.locator('[data-results] a');
    await hit.first().waitFor({ timeout: 10_000 });
    await expect(hit.first().textContent()).resolves.toBe('Birds of the Cloud Forest');
    expect(failed).toEqual([]);
  }, 60_000);
});
