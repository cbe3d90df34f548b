import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../test/helpers/test-platform';
import { STARTER_KITS } from './starter-kits';

const KITS = ['author', 'designer', 'developer'] as const;

/** The links of a page (href and src), resolved against its URL or its `<base href>`. */
function linksOf(html: string, pageUrl: string): URL[] {
  const baseHref = /<base href="([^"]*)"/.exec(html)?.[1];
  const base = baseHref ? new URL(baseHref, pageUrl).href : pageUrl;
  return [...html.matchAll(/\s(?:href|src)="([^"]*)"/g)].map(
    (m) => new URL(m[1]!.replace(/&amp;/g, '&'), base),
  );
}

describe('starter kits', () => {
  let platform: TestPlatform;
  let origin: string;
  const owner = () => ({ authorization: `Bearer ${platform.ownerKey}` });

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
  }, 60_000);
  afterAll(async () => {
    await platform?.close();
  });

  async function createKitSite(kit: string, extra: Record<string, unknown> = {}) {
    const created = await platform.app.inject({
      method: 'POST',
      url: '/api/sites',
      headers: owner(),
      payload: { name: `The ${kit} kit`, slug: `kit-${kit}`, starterKit: kit, ...extra },
    });
    expect(created.statusCode, created.body).toBe(201);
    return { ...owner(), 'x-site-id': created.json().id as string };
  }

  const get = (url: string) => platform.app.inject({ method: 'GET', url });

  it.each(KITS)(
    'the %s kit builds a complete site on its first build: every internal link resolves and the serve check passes',
    async (kit) => {
      const headers = await createKitSite(kit);
      const built = await platform.app.inject({
        method: 'POST',
        url: '/api/build?env=dev',
        headers,
        payload: { mode: 'full' },
      });
      expect(built.statusCode, built.body).toBe(200);
      const result = built.json();
      expect(result.ok, result.error).toBe(true);
      expect(result.deploy.serveCheck).toMatchObject({ ok: true, status: 200 });
      const base = `${origin}/sites/kit-${kit}/dev/`;
      expect(result.warnings).toEqual([
        expect.objectContaining({
          code: 'public_url_missing',
          message: expect.stringMatching(/\/sites\/kit-/),
        }),
      ]);

      // Crawl from the home page, staying inside the preview base.
      const seen = new Map<string, number>();
      const queue = [base];
      while (queue.length > 0 && seen.size < 500) {
        const url = queue.shift()!;
        if (seen.has(url)) continue;
        const response = await get(url.slice(origin.length));
        seen.set(url, response.statusCode);
        if (response.statusCode !== 200 || !String(response.headers['content-type']).startsWith('text/html'))
          continue;
        for (const link of linksOf(response.body, url)) {
          link.hash = '';
          if (link.origin !== origin) continue;
          // every link stays inside the preview
          expect(link.pathname.startsWith(`/sites/kit-${kit}/dev/`), `${link} on ${url}`).toBe(true);
          if (!seen.has(link.href)) queue.push(link.href);
        }
      }
      expect(seen.size).toBeLessThan(500);
      const broken = [...seen].filter(([, status]) => status !== 200);
      expect(broken).toEqual([]);
      const paths = [...seen.keys()].map((url) => url.slice(base.length - 1));
      expect(paths).toEqual(expect.arrayContaining(['/', '/feed.xml', '/tags/', '/about/']));
      expect(paths.some((path) => /^\/tags\/[a-z]+\/$/.test(path))).toBe(true);
      expect(paths.some((path) => /^\/authors\/[a-z-]+\/$/.test(path))).toBe(true);
      expect(paths.some((path) => /page\/2\/$/.test(path))).toBe(true);

      // The sitemap and the feed have absolute URLs from the preview base; a missing page is the kit's 404.
      const sitemap = await get(`/sites/kit-${kit}/dev/sitemap.xml`);
      expect(sitemap.body).toContain(`<loc>${base}</loc>`);
      expect(sitemap.body).not.toContain('404.html');
      const feed = await get(`/sites/kit-${kit}/dev/feed.xml`);
      expect(feed.body).toContain(`<link rel="self" href="${base}feed.xml"/>`);
      expect(feed.body.match(/<entry>/g)?.length).toBeGreaterThanOrEqual(3);
      const missing = await get(`/sites/kit-${kit}/dev/no/such/page/`);
      expect(missing.statusCode).toBe(404);
      expect(missing.body).toContain('Page not found');
      expect(missing.body).toContain(`<base href="${base}">`);
    },
    120_000,
  );

  it('the about page has a contact form whose post, from the page, becomes a lead the members list', async () => {
    const headers = await createKitSite('author', { slug: 'kit-leads' });
    const built = await platform.app.inject({
      method: 'POST',
      url: '/api/build?env=dev',
      headers,
      payload: { mode: 'full' },
    });
    expect(built.statusCode, built.body).toBe(200);
    const pageUrl = `${origin}/sites/kit-leads/dev/about/`;
    const about = await get(pageUrl.slice(origin.length));
    expect(about.statusCode).toBe(200);
    const form = /<form method="post" action="([^"]+)">([\s\S]*?)<\/form>/.exec(about.body);
    expect(form?.[1]).toBe('/api/leads');
    const hidden = Object.fromEntries(
      [...(form?.[2] ?? '').matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [
        m[1],
        m[2],
      ]),
    );
    expect(hidden).toEqual({ site: 'kit-leads', _redirect: '?sent=1' });
    expect(form?.[2]).toContain('name="_honeypot"');

    // what a browser sends for the form: urlencoded, from the page's origin (the server itself)
    const action = new URL(form?.[1] ?? '', pageUrl);
    const posted = await platform.app.inject({
      method: 'POST',
      url: action.pathname,
      headers: {
        host: action.host,
        origin,
        referer: pageUrl,
        'content-type': 'application/x-www-form-urlencoded',
      },
      payload: new URLSearchParams({
        ...hidden,
        name: 'Ada',
        email: 'ada@example.test',
        message: 'Hello',
        _honeypot: '',
      }).toString(),
    });
    expect(posted.statusCode, posted.body).toBe(303);
    expect(posted.headers.location).toBe(`${pageUrl}?sent=1`);
    const leads = await platform.app.inject({ method: 'GET', url: '/api/leads', headers });
    expect(leads.json()).toEqual([expect.objectContaining({ name: 'Ada', message: 'Hello', pageUrl })]);
  }, 120_000);

  it('seeds every item of each kit', () => {
    for (const kit of KITS) expect(STARTER_KITS[kit].items.length).toBeGreaterThan(5);
  });
});
