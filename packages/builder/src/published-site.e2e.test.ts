import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, openChromium, serveFolder } from '../test/browser';
import { type Fixture, loadFixture } from '../test/load-fixture';

const hasChromium = chromiumAvailable('the published-site browser test');

describe.skipIf(!hasChromium)('the published site in headless Chromium', () => {
  let fixture: Fixture;
  let url: string;
  let browser: BrowserContext;
  let closeServer: (() => Promise<void>) | undefined;
  let closeBrowser: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    fixture = loadFixture('blog');
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
