import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fixture, loadFixture } from '../test/load-fixture';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(
    `Skipping the published-site browser test: ${CHROMIUM} is absent (apt-get install -y chromium).`,
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

describe.skipIf(!hasChromium)('the published site in headless Chromium', () => {
  let fixture: Fixture;
  let server: Server;
  let url: string;
  let browser: BrowserContext;
  let profile: string;

  beforeAll(async () => {
    fixture = loadFixture('blog');
    const result = await fixture.build({ mode: 'full' });
    expect(result.ok).toBe(true);
    ({ server, url } = await serve(join(fixture.root, 'site', 'current')));
    profile = mkdtempSync(join(tmpdir(), 'trellis-chromium-'));
    // a fresh profile folder per run (Playwright passes it as --user-data-dir)
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

  it('follows a link and finds a page through the search box', async () => {
    const page = await browser.newPage();
    const failed: string[] = [];
    page.on('pageerror', (error) => failed.push(error.message));
    await page.goto(`${url}/`);
    await expect(page.locator('h1').textContent()).resolves.toBe('Fixture Blog');

    await page.click('ul.latest a:has-text("Liquid Layouts")');
    await page.waitForURL(`${url}/blog/liquid-layouts/`);
    await expect(page.locator('article h1').textContent()).resolves.toBe('Liquid Layouts');
    await page.click('ul.tags a:has-text("Web")');
    await page.waitForURL(`${url}/tags/web/`);

    await page.fill('form[data-trellis-search] input[name=q]', 'zucchini');
    const hit = page.locator('[data-results] a');
    await hit.first().waitFor({ timeout: 10_000 });
    await expect(hit.allTextContents()).resolves.toEqual(['Graph Gardening']);
    await hit.first().click();
    await page.waitForURL(`${url}/blog/graph-gardening/`);
    await expect(page.locator('article h1').textContent()).resolves.toBe('Graph Gardening');
    expect(failed).toEqual([]);
  }, 60_000);
});
