import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { embeddingText, hashedBagOfWords } from '@trelliscms/core';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fixture, loadFixture } from '../test/load-fixture';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(
    `Skipping the vector search browser test: ${CHROMIUM} is absent (apt-get install -y chromium).`,
  );
}

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.xml': 'application/xml',
};

/** A tiny static server over a folder: `/x/` serves `/x/index.html`. */
function serve(root: string): Promise<{ server: Server; url: string }> {
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    const file = join(root, path.endsWith('/') ? `${path}index.html` : path);
    if (!file.startsWith(root)) {
      res.statusCode = 403;
      res.end();
      return;
    }
    try {
      const body = await readFile(file);
      res.setHeader('content-type', types[extname(file)] ?? 'application/octet-stream');
      res.end(body);
    } catch {
      res.statusCode = 404;
      res.end('not found');
    }
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

describe.skipIf(!hasChromium)('the published vector search index in headless Chromium', () => {
  let fixture: Fixture;
  let server: Server;
  let url: string;
  let browser: BrowserContext;
  let profile: string;

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
    ({ server, url } = await serve(join(fixture.root, 'site', 'current')));
    profile = mkdtempSync(join(tmpdir(), 'trellis-chromium-'));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    fixture?.cleanup();
    if (profile) rmSync(profile, { recursive: true, force: true });
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
