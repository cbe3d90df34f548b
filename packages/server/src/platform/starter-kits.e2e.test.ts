import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../test/helpers/test-platform';

/**
 * Issue 18, "starter kits produce a site worth publishing": each kit's first build, on a real
 * server, looked at in headless Chromium at phone and desktop widths. Every internal link from
 * the home page resolves inside the preview base, the search box finds a page, and axe-core
 * finds no serious or critical accessibility violation on any page, in light or dark mode.
 * Screenshots go to a temp folder (removed after), or to TRELLIS_SCREENSHOTS_DIR when set.
 */

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(`Skipping the starter-kit browser test: ${CHROMIUM} is absent (apt-get install -y chromium).`);
}

const KITS = ['author', 'designer', 'developer'] as const;
const WIDTHS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 900 } } as const;
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[] }>;
}

async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: axeSource });
  const violations = (await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run: (options: unknown) => Promise<{ violations: unknown }> } }
    ).axe;
    return (await axe.run({ resultTypes: ['violations'] })).violations;
  })) as AxeViolation[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

describe.skipIf(!hasChromium)('starter kits in headless Chromium', () => {
  let platform: TestPlatform;
  let origin: string;
  let browser: BrowserContext;
  let profile: string;
  let shots: string;
  const keepShots = process.env.TRELLIS_SCREENSHOTS_DIR;

  beforeAll(async () => {
    platform = await startTestPlatform({
      env: {
        LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: '0',
        LOAD_SHED_MAX_HEAP_USED_BYTES: '0',
        LOAD_SHED_MAX_RSS_BYTES: '0',
      },
    });
    await platform.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(platform.app.server.address() as { port: number }).port}`;
    profile = mkdtempSync(join(tmpdir(), 'trellis-chromium-'));
    shots = keepShots ?? mkdtempSync(join(tmpdir(), 'trellis-kit-shots-'));
    mkdirSync(shots, { recursive: true });
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
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await platform?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    if (shots && !keepShots) rmSync(shots, { recursive: true, force: true });
  });

  it('axe-core, as injected here, reports a page with serious problems', async () => {
    const page = await browser.newPage();
    await page.setContent('<!doctype html><html><body><img src="data:,"><a href="#x"></a></body></html>');
    const problems = await seriousViolations(page);
    expect(problems.join('\n')).toMatch(/image-alt \(critical\)/);
    await page.close();
  });

  it.each(KITS)(
    'the %s kit: every page looks right at phone and desktop widths, links resolve, search works, no serious axe violations',
    async (kit) => {
      const owner = { authorization: `Bearer ${platform.ownerKey}` };
      const created = await platform.app.inject({
        method: 'POST',
        url: '/api/sites',
        headers: owner,
        payload: {
          name: { author: 'Field Notes', designer: 'Robin Vega Studio', developer: 'Example Docs' }[kit],
          slug: `e2e-${kit}`,
          mantra: { author: 'A small blog', designer: 'Identity, product, print', developer: 'v1.2' }[kit],
          starterKit: kit,
        },
      });
      expect(created.statusCode, created.body).toBe(201);
      const built = await platform.app.inject({
        method: 'POST',
        url: '/api/build?env=dev',
        headers: { ...owner, 'x-site-id': created.json().id },
        payload: { mode: 'full' },
      });
      expect(built.json()).toMatchObject({ ok: true, deploy: { serveCheck: { ok: true } } });
      const base = `${origin}/sites/e2e-${kit}/dev/`;

      const page = await browser.newPage();
      const pageErrors: string[] = [];
      page.on('pageerror', (error) => pageErrors.push(error.message));
      const statuses = new Map<string, number>();
      const violations: string[] = [];
      const queue = [base];
      while (queue.length > 0 && statuses.size < 200) {
        const url = queue.shift()!;
        if (statuses.has(url)) continue;
        const response = await page.goto(url);
        statuses.set(url, response?.status() ?? 0);
        if (!response?.ok() || !String(response.headers()['content-type']).startsWith('text/html')) continue;
        for (const problem of await seriousViolations(page)) violations.push(`${url}: ${problem}`);
        const links = await page.$$eval('a[href], link[href], script[src], img[src]', (elements) =>
          elements.map((e) => (e as HTMLAnchorElement).href || (e as HTMLImageElement).src),
        );
        for (const link of links) {
          const target = new URL(link);
          target.hash = '';
          if (target.origin !== origin) continue;
          expect(target.href.startsWith(base), `${target.href} (on ${url}) leaves the preview`).toBe(true);
          if (!statuses.has(target.href)) queue.push(target.href);
        }
      }
      expect([...statuses].filter(([, status]) => status !== 200)).toEqual([]);
      expect(statuses.size).toBeGreaterThan(10);

      // Screenshots of the home, a listing, an item and the 404 page at both widths, light and dark.
      const itemUrl = [...statuses.keys()].find((url) => /\/(blog|work|docs\/guide)\/[a-z-]+\/$/.test(url))!;
      const listing = `${base}${{ author: 'blog', designer: 'work', developer: 'docs' }[kit]}/`;
      const pages = { home: base, listing, item: itemUrl, missing: `${base}no/such/page/` };
      for (const [width, viewport] of Object.entries(WIDTHS)) {
        await page.setViewportSize(viewport);
        for (const scheme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme: scheme });
          for (const [name, url] of Object.entries(pages)) {
            const response = await page.goto(url);
            expect(response?.status()).toBe(name === 'missing' ? 404 : 200);
            const file = join(shots, `${kit}-${name}-${width}-${scheme}.png`);
            await page.screenshot({ path: file, fullPage: true });
            expect(statSync(file).size).toBeGreaterThan(1000);
            // Nothing wider than the viewport: the layout fits a phone.
            const overflow = await page.evaluate(
              () => document.documentElement.scrollWidth - window.innerWidth,
            );
            expect(overflow, `${url} at ${width}`).toBeLessThanOrEqual(0);
            if (scheme === 'dark' || name === 'missing') {
              for (const problem of await seriousViolations(page))
                violations.push(`${url} (${width}, ${scheme}): ${problem}`);
            }
          }
        }
      }
      expect(violations).toEqual([]);

      // The search box finds a page through the emitted index, and its result stays in the preview.
      await page.emulateMedia({ colorScheme: 'light' });
      await page.goto(base);
      const query = { author: 'plain text', designer: 'wayfinding', developer: 'configuration' }[kit];
      await page.fill('form[data-trellis-search] input[name=q]', query);
      const hit = page.locator('[data-results] a');
      await hit.first().waitFor({ timeout: 20_000 });
      const href = await hit.first().evaluate((a) => (a as HTMLAnchorElement).href);
      expect(href.startsWith(base)).toBe(true);
      await hit.first().click();
      await page.waitForURL(href);
      expect(pageErrors).toEqual([]);
      await page.close();
    },
    300_000,
  );
});
